"""groundwire: a fast, protobuf-first client for Google's grounding APIs.

>>> from groundwire import GroundingClient
>>> with GroundingClient("my-project") as client:                # doctest: +SKIP
...     result = client.check_grounding("Tokyo is in Japan.", ["Tokyo is a city in Japan."])

The heavy parts (gRPC channels, the HTTP stack, asyncio support, the stubs) load on first
use, so `import groundwire` stays light.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from groundwire.core.version import VERSION as __version__

_EXPORTS = {
    "GroundingClient": "groundwire.client",
    "AsyncGroundingClient": "groundwire.aio",
    "RetryPolicy": "groundwire.core.retry",
    "GroundwireError": "groundwire.core.errors",
    "StatusCode": "groundwire.core.errors",
    "Aborted": "groundwire.core.errors",
    "AlreadyExists": "groundwire.core.errors",
    "Cancelled": "groundwire.core.errors",
    "ClientClosed": "groundwire.core.errors",
    "ClientForked": "groundwire.core.errors",
    "WrongEventLoop": "groundwire.core.errors",
    "DataLoss": "groundwire.core.errors",
    "DeadlineExceeded": "groundwire.core.errors",
    "FailedPrecondition": "groundwire.core.errors",
    "Internal": "groundwire.core.errors",
    "InvalidArgument": "groundwire.core.errors",
    "MessageTooLarge": "groundwire.core.errors",
    "NotFound": "groundwire.core.errors",
    "OutOfRange": "groundwire.core.errors",
    "PermissionDenied": "groundwire.core.errors",
    "ResourceExhausted": "groundwire.core.errors",
    "Unauthenticated": "groundwire.core.errors",
    "Unavailable": "groundwire.core.errors",
    "Unimplemented": "groundwire.core.errors",
    "Unknown": "groundwire.core.errors",
    "EndpointError": "groundwire.core.addresses",
    "ConfigurationError": "groundwire.core.client_options",
    "ConnectionFailure": "groundwire.transports.base",
    "PoolLimits": "groundwire.core.limits",
    "CheckGroundingResult": "groundwire.core.results",
    "Claim": "groundwire.core.results",
    "Chunk": "groundwire.core.results",
    "CorroborationResult": "groundwire.core.results",
    "CorroboratedClaim": "groundwire.core.results",
    "GenerateResult": "groundwire.core.results",
}

__all__ = [
    "Aborted",
    "AlreadyExists",
    "AsyncGroundingClient",
    "Cancelled",
    "CheckGroundingResult",
    "Chunk",
    "Claim",
    "ClientClosed",
    "ClientForked",
    "ConfigurationError",
    "ConnectionFailure",
    "CorroboratedClaim",
    "CorroborationResult",
    "DataLoss",
    "DeadlineExceeded",
    "EndpointError",
    "FailedPrecondition",
    "GenerateResult",
    "GroundingClient",
    "GroundwireError",
    "Internal",
    "InvalidArgument",
    "MessageTooLarge",
    "NotFound",
    "OutOfRange",
    "PermissionDenied",
    "PoolLimits",
    "ResourceExhausted",
    "RetryPolicy",
    "StatusCode",
    "Unauthenticated",
    "Unavailable",
    "Unimplemented",
    "Unknown",
    "WrongEventLoop",
    "__version__",
]

if TYPE_CHECKING:
    from groundwire.aio import AsyncGroundingClient
    from groundwire.client import GroundingClient
    from groundwire.core.addresses import EndpointError
    from groundwire.core.client_options import ConfigurationError
    from groundwire.core.errors import (
        Aborted,
        AlreadyExists,
        Cancelled,
        ClientClosed,
        ClientForked,
        DataLoss,
        DeadlineExceeded,
        FailedPrecondition,
        GroundwireError,
        Internal,
        InvalidArgument,
        MessageTooLarge,
        NotFound,
        OutOfRange,
        PermissionDenied,
        ResourceExhausted,
        StatusCode,
        Unauthenticated,
        Unavailable,
        Unimplemented,
        Unknown,
        WrongEventLoop,
    )
    from groundwire.core.limits import PoolLimits
    from groundwire.core.results import (
        CheckGroundingResult,
        Chunk,
        Claim,
        CorroboratedClaim,
        CorroborationResult,
        GenerateResult,
    )
    from groundwire.core.retry import RetryPolicy
    from groundwire.transports.base import ConnectionFailure


def __getattr__(name: str) -> Any:
    module_name = _EXPORTS.get(name)
    if module_name is None:
        raise AttributeError(f"module 'groundwire' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module_name), name)
    globals()[name] = value
    return value
