"""A documented path, kept: everything of `groundwire.features.split`."""

from groundwire.features.split import *  # noqa: F403
