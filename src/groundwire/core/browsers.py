"""A documented path, kept: everything of `groundwire.emulator.browsers`."""

from groundwire.emulator.browsers import *  # noqa: F403
