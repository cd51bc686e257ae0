"""A documented path, kept: `groundwire.integrations.pytest_plugin`, the very same module."""

import sys

from groundwire.integrations import pytest_plugin as _plugin
from groundwire.integrations.pytest_plugin import *  # noqa: F403

# The same module object, hooks and fixtures included: an install made before the plugin
# moved has its `pytest11` entry point here, and pytest must find the whole plugin.
sys.modules[__name__] = _plugin
