"""What a module of an optional extra says when its extra is missing: which one to install."""

from __future__ import annotations

_NEEDS = {
    "otel": "OpenTelemetry",
    "langchain": "LangChain",
    "beam": "Apache Beam",
    "spark": "PySpark",
}


def missing_extra(error: ImportError, extra: str, feature: str) -> ModuleNotFoundError:
    """The ModuleNotFoundError for `feature`, naming the extra to install.

    Example:
        >>> missing = ModuleNotFoundError("No module named 'opentelemetry'", name="opentelemetry")
        >>> print(missing_extra(missing, "otel", "groundwire.otel"))  # doctest: +ELLIPSIS
        groundwire.otel needs OpenTelemetry (...): pip install 'groundwire[otel]'
    """
    return ModuleNotFoundError(
        f"{feature} needs {_NEEDS.get(extra, extra)} ({error}): pip install 'groundwire[{extra}]'",
        name=error.name,
    )
