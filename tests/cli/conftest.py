"""Keeps in-process CLI runs from picking up emulator pointers other tests left in the env."""

from __future__ import annotations

import socket
from collections.abc import Iterator

import pytest

from tests.cli.running import EMULATOR_VARIABLES


@pytest.fixture(autouse=True)
def _no_emulator_pointers(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in EMULATOR_VARIABLES:
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def refused_port() -> Iterator[int]:
    """A loopback port bound but not listening: every connection to it is refused."""
    reserved = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    reserved.bind(("127.0.0.1", 0))
    yield reserved.getsockname()[1]
    reserved.close()
