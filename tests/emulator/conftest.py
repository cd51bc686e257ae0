"""One emulator on loopback ports for the tests of this directory that need a running server."""

from __future__ import annotations

from collections.abc import Iterator

import grpc
import pytest

from groundwire.emulator import Emulator, emulator


@pytest.fixture(scope="module")
def emu() -> Iterator[Emulator]:
    with emulator() as running:
        yield running


@pytest.fixture(scope="module")
def channel(emu: Emulator) -> Iterator[grpc.Channel]:
    with grpc.insecure_channel(emu.grpc_address) as opened:
        yield opened
