"""Fixtures: canned servers on loopback and clients pointed at them."""

from __future__ import annotations

from collections.abc import Iterator
from typing import NoReturn

import pytest
from google.protobuf.message import Message

from groundwire.contract import apis
from tests.support.canned import CannedServers


@pytest.fixture
def servers() -> Iterator[CannedServers]:
    """Servers whose behaviour each test sets with `servers.behaviour = ...`."""

    def unset(method: apis.Method, request: Message) -> NoReturn:
        raise AssertionError("the test did not set a behaviour")

    with CannedServers(unset) as running:
        yield running
