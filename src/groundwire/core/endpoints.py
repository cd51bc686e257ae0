"""A documented path, kept: everything of `groundwire.client.endpoints`."""

from groundwire.client.endpoints import *  # noqa: F403
