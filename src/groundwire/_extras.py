"""What a module of an optional extra says when its extra is missing: which one to install.

`groundwire.otel`, `groundwire.langchain` and `groundwire.beam` need packages the base install
leaves out. Importing one without them raises a `ModuleNotFoundError` (what Python would raise)
whose message names the extra, instead of a bare "No module named ...".
"""

from __future__ import annotations

_NEEDS = {
    "otel": "OpenTelemetry",
    "langchain": "LangChain",
    "beam": "Apache Beam",
    "spark": "PySpark",
}


def missing_extra(error: ImportError, extra: str, feature: str) -> ModuleNotFoundError:
    """The error to raise for `feature` when importing what extra `extra` installs failed.

    Example:
        >>> missing = ModuleNotFoundError("No module named 'opentelemetry'", name="opentelemetry")
        >>> print(missing_extra(missing, "otel", "groundwire.otel"))  # doctest: +ELLIPSIS
        groundwire.otel needs OpenTelemetry (...): pip install 'groundwire[otel]'
    """
    return ModuleNotFoundError(
        f"{feature} needs {_NEEDS.get(extra, extra)} ({error}): pip install 'groundwire[{extra}]'",
        name=error.name,
    )
