"""A documented path, kept: everything of `groundwire.integrations.web`."""

from groundwire.integrations.web import *  # noqa: F403
