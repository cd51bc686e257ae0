"""A documented path, kept: everything of `groundwire.contract.errors`."""

from groundwire.contract.errors import *  # noqa: F403
