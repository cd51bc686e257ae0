"""Fixtures: canned servers on loopback and clients pointed at them."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.canned import CannedServers


@pytest.fixture
def servers() -> Iterator[CannedServers]:
    """Servers whose behaviour each test sets with `servers.behaviour = ...`."""

    def unset(method, request):  # type: ignore[no-untyped-def]
        raise AssertionError("the test did not set a behaviour")

    with CannedServers(unset) as running:
        yield running
