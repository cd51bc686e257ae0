"""Every example in the engine's docstrings runs and shows what it says."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import groundwire.emulator.engine as engine

MODULES = sorted(f"{engine.__name__}.{m.name}" for m in pkgutil.iter_modules(engine.__path__))


@pytest.mark.parametrize("module_name", MODULES)
def test_docstring_examples_hold(module_name: str) -> None:
    module = importlib.import_module(module_name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
