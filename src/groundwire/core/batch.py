"""A documented path, kept: everything of `groundwire.features.batch`."""

from groundwire.features.batch import *  # noqa: F403
