"""groundwire: a fast, protobuf-first client for Google's grounding APIs.

>>> from groundwire import GroundingClient
>>> with GroundingClient("my-project") as client:                # doctest: +SKIP
...     result = client.check_grounding("Tokyo is in Japan.", ["Tokyo is a city in Japan."])

The heavy parts (gRPC channels, the HTTP stack, asyncio support, the stubs) load on first
use, so `import groundwire` stays light.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from groundwire.contract.version import VERSION as __version__

_HOMES = {  # where each export lives; the others are errors of groundwire.contract.errors
    "GroundingClient": "groundwire.client.sync",
    "AsyncGroundingClient": "groundwire.client.aio",
    "RetryPolicy": "groundwire.contract.retry",
    "EndpointError": "groundwire.contract.errors",
    "ConfigurationError": "groundwire.contract.errors",
    "ConnectionFailure": "groundwire.transports.base",
    "PoolLimits": "groundwire.client.options",
    "CheckGroundingResult": "groundwire.contract.results",
    "Claim": "groundwire.contract.results",
    "Chunk": "groundwire.contract.results",
    "CorroborationResult": "groundwire.contract.results",
    "CorroboratedClaim": "groundwire.contract.results",
    "GenerateResult": "groundwire.contract.results",
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
    from groundwire.client.aio import AsyncGroundingClient
    from groundwire.client.options import PoolLimits
    from groundwire.client.sync import GroundingClient
    from groundwire.contract.errors import (
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
    from groundwire.contract.results import (
        CheckGroundingResult,
        Chunk,
        Claim,
        CorroboratedClaim,
        CorroborationResult,
        GenerateResult,
    )
    from groundwire.contract.retry import RetryPolicy
    from groundwire.transports.base import ConnectionFailure


def __getattr__(name: str) -> Any:
    if name not in __all__:
        raise AttributeError(f"module 'groundwire' has no attribute {name!r}")
    import importlib

    module = importlib.import_module(_HOMES.get(name, "groundwire.contract.errors"))
    value = getattr(module, name)
    globals()[name] = value
    return value
