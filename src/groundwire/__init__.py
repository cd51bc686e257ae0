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

_HOMES = {  # where each export lives; the others are errors of groundwire.core.errors
    "GroundingClient": "groundwire.client",
    "AsyncGroundingClient": "groundwire.aio",
    "RetryPolicy": "groundwire.core.retry",
    "EndpointError": "groundwire.core.errors",
    "ConfigurationError": "groundwire.core.errors",
    "ConnectionFailure": "groundwire.transports.base",
    "PoolLimits": "groundwire.core.client_options",
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
    from groundwire.core.client_options import PoolLimits
    from groundwire.core.errors import (
        Aborted,
        AlreadyExists,
        Cancelled,
        ClientClosed,
        ClientForked,
        ConfigurationError,
        DataLoss,
        DeadlineExceeded,
        EndpointError,
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
    if name not in __all__:
        raise AttributeError(f"module 'groundwire' has no attribute {name!r}")
    import importlib

    module = importlib.import_module(_HOMES.get(name, "groundwire.core.errors"))
    value = getattr(module, name)
    globals()[name] = value
    return value
