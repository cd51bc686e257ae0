"""A documented path, kept: everything of `groundwire.contract.rendering`."""

from groundwire.contract.rendering import *  # noqa: F403
