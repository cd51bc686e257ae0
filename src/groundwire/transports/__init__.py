"""The transports that carry calls: gRPC and REST, blocking and asyncio, and the auto fallback.

Each lives in its own module (`grpc`, `grpc_aio`, `rest`, `rest_aio`, `auto`) so that importing
one does not load the others' libraries; `base` holds the contract they all keep.
"""

from groundwire.transports.base import AsyncTransport, ConnectionFailure, Metadata, Transport

__all__ = ["AsyncTransport", "ConnectionFailure", "Metadata", "Transport"]
