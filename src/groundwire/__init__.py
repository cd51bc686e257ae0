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
    "CheckGroundingResult": "groundwire.core.results",
    "Claim": "groundwire.core.results",
    "Chunk": "groundwire.core.results",
    "CorroborationResult": "groundwire.core.results",
    "CorroboratedClaim": "groundwire.core.results",
    "GenerateResult": "groundwire.core.results",
}

__all__ = [
    "AsyncGroundingClient",
    "CheckGroundingResult",
    "Chunk",
    "Claim",
    "CorroboratedClaim",
    "CorroborationResult",
    "GenerateResult",
    "GroundingClient",
    "GroundwireError",
    "RetryPolicy",
    "StatusCode",
    "__version__",
]

if TYPE_CHECKING:
    from groundwire.aio import AsyncGroundingClient
    from groundwire.client import GroundingClient
    from groundwire.core.errors import GroundwireError, StatusCode
    from groundwire.core.results import (
        CheckGroundingResult,
        Chunk,
        Claim,
        CorroboratedClaim,
        CorroborationResult,
        GenerateResult,
    )
    from groundwire.core.retry import RetryPolicy


def __getattr__(name: str) -> Any:
    module_name = _EXPORTS.get(name)
    if module_name is None:
        raise AttributeError(f"module 'groundwire' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module_name), name)
    globals()[name] = value
    return value
