"""groundwire: a fast, protobuf-first client for Google's grounding APIs."""

__version__ = "0.1.0"
