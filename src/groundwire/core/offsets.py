"""A documented path, kept: everything of `groundwire.contract.offsets`."""

from groundwire.contract.offsets import *  # noqa: F403
