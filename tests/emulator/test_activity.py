"""Emulator.activity: the counts rise and fall with what the servers do, and can be waited on."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import grpc
import pytest

from groundwire.emulator import Emulator, emulator
from groundwire.emulator.serving import Activity
from tests.emulator.support import CHECK, PROJECT_LOCATION, QUESTION, STREAM
from tests.emulator.test_grpc_bodiless import BodilessCaller

pytestmark = pytest.mark.timeout(60)

HANG_BOUND = 10.0
"""Generous: only a hang takes this long."""


@pytest.fixture(scope="module")
def running() -> Iterator[tuple[Emulator, Activity]]:
    with emulator() as emu:
        assert emu.activity is not None
        yield emu, emu.activity


def test_a_stream_is_open_served_and_reading_until_its_client_ends_it(
    running: tuple[Emulator, Activity],
) -> None:
    emu, activity = running
    request: Any = STREAM.request_class(location=PROJECT_LOCATION)
    request.contents.add(role="user", parts=[{"text": QUESTION}])
    done = threading.Event()

    def requests() -> Iterator[Any]:
        yield request
        done.wait(timeout=HANG_BOUND)

    with grpc.insecure_channel(emu.grpc_address) as channel:
        call = channel.stream_stream(
            STREAM.grpc_path,
            request_serializer=STREAM.request_class.SerializeToString,
            response_deserializer=STREAM.response_class.FromString,
        )
        responses = iter(call(requests(), timeout=HANG_BOUND))
        assert next(responses) is not None
        assert activity.wait_until(
            lambda now: (now.streams_open, now.calls_serving, now.streams_reading) == (1, 1, 1),
            timeout=HANG_BOUND,
        )
        done.set()
        assert len(list(responses)) > 0
    assert activity.wait_until(
        lambda now: (now.streams_open, now.calls_serving, now.streams_reading) == (0, 0, 0),
        timeout=HANG_BOUND,
    )


def test_a_call_whose_request_has_not_come_is_received_and_waiting(
    running: tuple[Emulator, Activity],
) -> None:
    emu, activity = running
    received = activity.calls_received
    caller = BodilessCaller(emu.grpc_address)
    try:
        caller.call(CHECK.grpc_path, 1)
        assert activity.wait_until(
            lambda now: now.calls_received == received + 1 and now.calls_waiting == 1,
            timeout=HANG_BOUND,
        )
    finally:
        caller.close()
    assert activity.wait_until(lambda now: now.calls_waiting == 0, timeout=HANG_BOUND)
    assert activity.calls_serving == 0


def test_each_rest_connection_is_counted_as_it_is_accepted(
    running: tuple[Emulator, Activity],
) -> None:
    emu, activity = running
    accepted = activity.connections_accepted
    url = urlsplit(emu.http_url)
    assert url.hostname is not None
    assert url.port is not None
    with socket.create_connection((url.hostname, url.port), timeout=HANG_BOUND):
        assert activity.wait_until(
            lambda now: now.connections_accepted == accepted + 1, timeout=HANG_BOUND
        )


def test_waiting_for_what_does_not_happen_ends_at_the_timeout() -> None:
    assert not Activity().wait_until(lambda now: now.calls_received > 0, timeout=0.05)
