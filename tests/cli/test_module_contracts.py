"""The CLI modules keep their promises: examples that run, a reason to exist, a light start."""

from __future__ import annotations

import doctest
import importlib
import subprocess
import sys
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[2] / "src"
CLI_MODULES = sorted(
    f"groundwire.cli.{path.stem}" if path.stem != "__init__" else "groundwire.cli"
    for path in (SRC / "groundwire" / "cli").glob("*.py")
    if path.stem != "__main__"
)


@pytest.mark.parametrize("name", CLI_MODULES)
def test_docstring_examples_run(name: str) -> None:
    assert doctest.testmod(importlib.import_module(name)).failed == 0


@pytest.mark.parametrize("name", CLI_MODULES)
def test_each_module_opens_with_a_one_line_reason(name: str) -> None:
    first_line = (importlib.import_module(name).__doc__ or "").splitlines()[0]
    assert first_line.endswith(".")
    assert len(first_line) <= 100


@pytest.mark.parametrize("name", CLI_MODULES)
def test_each_module_stays_under_400_lines(name: str) -> None:
    path = Path(importlib.import_module(name).__file__ or "")
    assert len(path.read_text(encoding="utf-8").splitlines()) <= 400


def test_help_loads_neither_grpc_nor_protobuf() -> None:
    code = (
        "import sys\n"
        "from groundwire.cli import build_parser\n"
        "build_parser().format_help()\n"
        "heavy = ('grpc', 'google.protobuf', 'google.rpc', 'aiohttp', 'httpx')\n"
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
