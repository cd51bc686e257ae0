"""The core modules keep their promises: light to import, examples that run, a reason to exist."""

from __future__ import annotations

import doctest
import importlib
import subprocess
import sys
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[2] / "src"
CORE_MODULES = [
    "groundwire.core.errors",
    "groundwire.core.offsets",
    "groundwire.core.retry",
    "groundwire.core.validation",
]


@pytest.mark.parametrize("name", CORE_MODULES)
def test_docstring_examples_run(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name))
    assert result.attempted > 0
    assert result.failed == 0


@pytest.mark.parametrize("name", CORE_MODULES)
def test_each_module_opens_with_a_one_line_reason(name: str) -> None:
    docstring = importlib.import_module(name).__doc__ or ""
    first_line = docstring.splitlines()[0]
    assert first_line.endswith(".")
    assert len(first_line) <= 100


def test_importing_the_core_loads_neither_grpc_nor_protobuf() -> None:
    code = (
        "import sys\n"
        f"import {', '.join(CORE_MODULES)}\n"
        "heavy = ('grpc', 'google.protobuf', 'google.rpc')\n"
        "print(sorted(m for m in sys.modules if m.startswith(heavy)))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        env={"PYTHONPATH": str(SRC)},
        capture_output=True,
        text=True,
        check=True,
    )
    assert result.stdout.strip() == "[]"
