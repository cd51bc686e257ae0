"""A documented path, kept: everything of `groundwire.contract.graphemes`."""

from groundwire.contract.graphemes import *  # noqa: F403
