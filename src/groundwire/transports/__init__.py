"""The transports that carry calls: gRPC and REST, blocking and asyncio, and the auto fallback.

One module each, so importing one does not load the others' libraries; `base` is the contract.
"""

from groundwire.transports.base import AsyncTransport, ConnectionFailure, Metadata, Transport

__all__ = ["AsyncTransport", "ConnectionFailure", "Metadata", "Transport"]
