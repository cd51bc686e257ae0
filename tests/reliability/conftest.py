"""Fixtures: emulator processes that are always stopped, whatever the test did to them."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence

import pytest

from tests.reliability.processes import EmulatorProcess

StartEmulator = Callable[..., EmulatorProcess]


@pytest.fixture
def start_emulator() -> Iterator[StartEmulator]:
    """Starts `groundwire serve` with extra arguments; every one started is stopped at teardown."""
    started: list[EmulatorProcess] = []

    def start(extra_args: Sequence[str] = ()) -> EmulatorProcess:
        server = EmulatorProcess(extra_args)
        started.append(server)
        return server.start()

    try:
        yield start
    finally:
        for server in started:
            server.stop()


@pytest.fixture(scope="module")
def plain_emulator() -> Iterator[EmulatorProcess]:
    """One plain emulator process shared by a module's tests."""
    with EmulatorProcess() as server:
        yield server
