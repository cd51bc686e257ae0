"""The CLI modules keep their promises: small modules and a light start.

(That the examples run, and that each module says why it exists, holds for every module:
tests/test_module_contracts.py.)
"""

from __future__ import annotations

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
