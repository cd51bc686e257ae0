"""The core modules keep their promises: light to import, and shown by examples.

(That the examples run, and that each module says why it exists, holds for every module:
tests/test_module_contracts.py.)
"""

from __future__ import annotations

import doctest
import importlib
import subprocess
import sys
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[2] / "src"
CORE_MODULES = [
    "groundwire.wire.error_codecs",
    "groundwire.contract.errors",
    "groundwire.contract.graphemes",
    "groundwire.contract.offsets",
    "groundwire.contract.rendering",
    "groundwire.contract.retry",
    "groundwire.contract.validation",
]


@pytest.mark.parametrize("name", CORE_MODULES)
def test_each_core_module_shows_itself_in_examples(name: str) -> None:
    tests = doctest.DocTestFinder().find(importlib.import_module(name))
    assert any(test.examples for test in tests)


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
