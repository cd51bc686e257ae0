"""A documented path, kept: everything of `groundwire.contract.attempts`."""

from groundwire.contract.attempts import *  # noqa: F403
