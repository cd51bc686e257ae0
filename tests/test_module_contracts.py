"""Every module of groundwire keeps two promises: its examples run, and it says why it exists."""

from __future__ import annotations

import doctest
import importlib
import pkgutil
import subprocess
import sys
import types

import pytest

import groundwire


def _all_modules() -> list[str]:
    """Every module of the installed package, `__main__` aside (importing it runs the CLI)."""
    names = ["groundwire"]
    for module in pkgutil.walk_packages(groundwire.__path__, "groundwire."):
        if not module.name.endswith(".__main__"):
            names.append(module.name)
    return sorted(names)


MODULES = _all_modules()
OPTIONAL = {
    "groundwire.otel": "opentelemetry.trace",
    "groundwire.langchain": "langchain_core",
    "groundwire.client.otel": "opentelemetry.trace",
    "groundwire.integrations.langchain.runnable": "langchain_core",
    "groundwire.integrations.beam.handlers": "apache_beam",
    "groundwire.integrations.beam.transforms": "apache_beam",
}
"""Modules of an extra, and what they need: skipped where the extra is not installed."""


def _import(name: str) -> types.ModuleType:
    if name in OPTIONAL:
        pytest.importorskip(OPTIONAL[name])
    return importlib.import_module(name)


def test_the_walk_finds_every_layer_of_the_package() -> None:
    layers = {name.split(".")[1] for name in MODULES if name.count(".") >= 1}
    assert {
        "contract",
        "wire",
        "transports",
        "features",
        "client",
        "emulator",
        "integrations",
        "cli",
    } <= layers


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_run(name: str) -> None:
    result = doctest.testmod(_import(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0


@pytest.mark.parametrize("name", MODULES)
def test_each_module_opens_with_a_one_line_reason(name: str) -> None:
    first_line = (_import(name).__doc__ or "").splitlines()[0]
    assert first_line.endswith(".")
    assert len(first_line) <= 100


def test_importing_groundwire_and_its_clients_loads_no_extra() -> None:
    code = (
        "import sys\n"
        "import groundwire, groundwire.client.sync, groundwire.client.aio\n"
        "import groundwire.integrations.langchain.documents\n"
        "from groundwire import GroundingClient, CheckGroundingResult\n"
        "extras = ('langchain_core', 'langsmith', 'pydantic', 'opentelemetry')\n"
        "print(sorted(m for m in sys.modules if m.startswith(extras)))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert result.stdout.strip() == "[]"
