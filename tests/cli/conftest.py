"""Keeps in-process CLI runs from picking up emulator pointers other tests left in the env."""

from __future__ import annotations

import pytest

from tests.cli.running import EMULATOR_VARIABLES


@pytest.fixture(autouse=True)
def _no_emulator_pointers(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in EMULATOR_VARIABLES:
        monkeypatch.delenv(name, raising=False)
