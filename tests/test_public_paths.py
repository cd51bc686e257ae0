"""Every import path the README and docs/ show still imports: shims keep the layers' moves quiet.

The paths are read from the pages themselves (import statements in code blocks, dotted names in
the prose), so a page that gains a path is checked without a change here.
"""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]

FENCE = re.compile(r"^```[^\n]*\n(.*?)^```", re.M | re.S)
IMPORT_FROM = re.compile(r"^\s*from (groundwire[\w.]*) import (\([^)]*\)|[^\n#]*)", re.M)
IMPORT = re.compile(r"^\s*import (groundwire[\w.]*)", re.M)
DOTTED = re.compile(r"(?<![\w.])groundwire(?:\.[A-Za-z_]\w*)+")

NOT_PATHS = {
    # OpenTelemetry attribute names a span carries (docs/operators.md), not Python paths.
    "groundwire.attempt",
    "groundwire.transport",
    "groundwire.fell_back",
    "groundwire.retries",
    "groundwire.status_code",
    "groundwire.characters_sent",
}
KEPT = [
    # Paths issue 39 names, and those docs/api.md used before it renders the new homes.
    "groundwire.otel.OpenTelemetryInterceptor",
    "groundwire.interceptors.Interceptor",
    "groundwire.core.errors.InvalidArgument",
    "groundwire.core.offsets.offsets_in",
    "groundwire.core.stream_merge.StreamMerge",
    "groundwire.core.split.SplitCheckResult",
    "groundwire.core.split.SplitCorroborationResult",
    "groundwire.core.batch.BatchOutcome",
    "groundwire.batch.Batch",
    "groundwire.aio_batch.AsyncBatch",
]
EXTRAS = ("opentelemetry", "langchain_core", "apache_beam", "pyspark", "pandas")
"""What an extra brings: a path that needs one is skipped where it is not installed."""


def _paths(text: str) -> set[str]:
    """The dotted paths of one page: `module` or `module.name` each."""
    found = {path for path in DOTTED.findall(text) if path not in NOT_PATHS}
    for block in FENCE.findall(text):
        found.update(IMPORT.findall(block))
        for module, names in IMPORT_FROM.findall(block):
            for name in names.strip("()").replace("\n", " ").split(","):
                name = name.split(" as ")[0].strip()
                if name:
                    found.add(f"{module}.{name}")
    return found


PATHS = sorted(set(KEPT).union(*(_paths(page.read_text(encoding="utf-8")) for page in PAGES)))


def resolve(path: str) -> object:
    """The module or object `path` names: its longest importable prefix, then attributes."""
    parts = path.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            found: object = importlib.import_module(".".join(parts[:cut]))
        except ModuleNotFoundError as error:
            if error.name != ".".join(parts[:cut]):
                raise
            continue
        for name in parts[cut:]:
            found = getattr(found, name)
        return found
    raise ModuleNotFoundError(path)


def test_the_pages_name_paths_to_check() -> None:
    assert "groundwire.core.errors.DeadlineExceeded" in PATHS
    assert "groundwire.emulator.emulator" in PATHS


@pytest.mark.parametrize("path", PATHS)
def test_each_documented_path_imports(path: str) -> None:
    try:
        found = resolve(path)
    except ModuleNotFoundError as error:
        if not (error.name or "").startswith(EXTRAS):
            raise
        pytest.skip(f"{path} needs {error.name}, not installed here")
    assert found is not None
