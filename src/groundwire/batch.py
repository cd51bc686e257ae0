"""A documented path, kept: everything of `groundwire.features.batch_threads`."""

from groundwire.features.batch_threads import *  # noqa: F403
