"""Grounding checks in Apache Beam pipelines (Dataflow, Flink, Spark): `groundwire[beam]`.

>>> results, failed = records | CheckGrounding(project="my-project")  # doctest: +SKIP

- `CheckGrounding(...)` / `Corroborate(...)`: transforms returning `(results, failed)`.
- `GroundingCheckHandler` / `CorroborateHandler`: their `RunInference` model handlers.

Apache Beam loads when one of these names is first used, so
`groundwire.integrations.beam.records` (pure) imports without it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from groundwire.client.extras import missing_extra

if TYPE_CHECKING:
    from groundwire.integrations.beam.handlers import CorroborateHandler, GroundingCheckHandler
    from groundwire.integrations.beam.transforms import CheckGrounding, Corroborate

__all__ = ["CheckGrounding", "Corroborate", "CorroborateHandler", "GroundingCheckHandler"]

_HOMES = {
    "CheckGrounding": "groundwire.integrations.beam.transforms",
    "Corroborate": "groundwire.integrations.beam.transforms",
    "CorroborateHandler": "groundwire.integrations.beam.handlers",
    "GroundingCheckHandler": "groundwire.integrations.beam.handlers",
}


def __getattr__(name: str) -> Any:
    """Imports a transform or handler (and Apache Beam) when it is first asked for."""
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'groundwire.integrations.beam' has no attribute {name!r}")
    try:
        import apache_beam  # noqa: F401
    except ImportError as error:
        raise missing_extra(error, "beam", f"groundwire.beam.{name}") from error
    import importlib

    return getattr(importlib.import_module(home), name)
