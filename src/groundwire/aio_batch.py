"""A documented path, kept: everything of `groundwire.features.batch_tasks`."""

from groundwire.features.batch_tasks import *  # noqa: F403
