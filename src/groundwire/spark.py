"""A documented path, kept: everything of `groundwire.integrations.spark`."""

from groundwire.integrations.spark import *  # noqa: F403
