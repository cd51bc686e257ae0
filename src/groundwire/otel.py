"""A documented path, kept: everything of `groundwire.client.otel`."""

from groundwire.client.otel import *  # noqa: F403
