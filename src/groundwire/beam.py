"""A documented path, kept: `groundwire.integrations.beam`, its names loaded on first use."""

from groundwire.integrations.beam import __all__ as __all__
from groundwire.integrations.beam import __getattr__ as __getattr__
