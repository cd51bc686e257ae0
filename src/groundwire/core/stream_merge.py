"""A documented path, kept: everything of `groundwire.features.stream_merge`."""

from groundwire.features.stream_merge import *  # noqa: F403
