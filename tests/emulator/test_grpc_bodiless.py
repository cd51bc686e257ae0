"""gRPC unary calls whose request never arrives neither hold the server nor starve others."""

from __future__ import annotations

import re
import socket
import struct
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from typing import Any

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

from groundwire.emulator import Emulator, emulator
from groundwire.emulator.limits import Limits
from groundwire.emulator.serving import Activity
from tests.emulator.support import CHECK, check_request, unary_call

pytestmark = pytest.mark.timeout(90)

HANG_BOUND = 10.0
"""Generous: only a hang takes this long."""

_HEALTH_CHECK = "/grpc.health.v1.Health/Check"
_STATUS = re.compile(rb"grpc-status\x01([0-9])")
"""The status trailer as the server sends it: a literal field, its value one digit long."""
_PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
_DATA, _HEADERS, _SETTINGS = 0x0, 0x1, 0x4
_END_HEADERS, _ACK = 0x4, 0x1


def _frame(kind: int, flags: int, stream: int, payload: bytes) -> bytes:
    return (
        struct.pack(">I", len(payload))[1:]
        + bytes([kind, flags])
        + struct.pack(">I", stream)
        + payload
    )


def _literal(name: str, value: str) -> bytes:
    """One HPACK header field, literal and never indexed, so no table state is needed."""
    return b"\x00" + bytes([len(name)]) + name.encode() + bytes([len(value)]) + value.encode()


class BodilessCaller:
    """A raw HTTP/2 connection whose unary calls send HEADERS and a 5-byte length prefix only."""

    def __init__(self, address: str) -> None:
        host, port = address.rsplit(":", 1)
        self.socket = socket.create_connection((host, int(port)), timeout=HANG_BOUND)
        self.socket.sendall(_PREFACE + _frame(_SETTINGS, 0, 0, b""))
        self._await_server_settings()
        self.socket.sendall(_frame(_SETTINGS, _ACK, 0, b""))
        self.next_stream = 1
        self.authority = address

    def _await_server_settings(self) -> None:
        received = b""
        while True:
            while len(received) < 9:
                received += self.socket.recv(65536)
            length = int.from_bytes(received[:3], "big")
            kind, flags = received[3], received[4]
            if kind == _SETTINGS and not flags & _ACK:
                return
            while len(received) < 9 + length:
                received += self.socket.recv(65536)
            received = received[9 + length :]

    def call(self, path: str, count: int) -> None:
        frames = b""
        for _ in range(count):
            block = b"".join(
                _literal(name, value)
                for name, value in [
                    (":method", "POST"),
                    (":scheme", "http"),
                    (":path", path),
                    (":authority", self.authority),
                    ("content-type", "application/grpc"),
                    ("te", "trailers"),
                ]
            )
            stream = self.next_stream
            self.next_stream += 2
            prefix = b"\x00" + struct.pack(">I", 100)  # a 100-byte message that never comes
            frames += _frame(_HEADERS, _END_HEADERS, stream, block) + _frame(
                _DATA, 0, stream, prefix
            )
        self.socket.sendall(frames)

    def close(self) -> None:
        self.socket.close()


@contextmanager
def bodiless_calls(emu: Emulator, calls: int, connections: int, path: str) -> Iterator[None]:
    """`calls` bodiless unary calls to `path`, spread over `connections` connections."""
    activity = activity_of(emu)
    received = activity.calls_received + calls
    with ExitStack() as stack:
        for index in range(connections):
            caller = BodilessCaller(emu.grpc_address)
            stack.callback(caller.close)
            caller.call(path, calls // connections + (index < calls % connections))
        assert activity.wait_until(  # the server has every call
            lambda now: now.calls_received >= received, timeout=HANG_BOUND
        ), f"{calls} bodiless calls did not arrive"
        yield


def activity_of(emu: Emulator) -> Activity:
    assert emu.activity is not None, "an in-process emulator counts its activity"
    return emu.activity


def wait_for_serving(emu: Emulator, count: int) -> None:
    """Waits (bounded) until the emulator serves `count` calls at once."""
    assert activity_of(emu).wait_until(
        lambda now: now.calls_serving >= count, timeout=HANG_BOUND
    ), f"{count} calls were not being served"


def health(channel: grpc.Channel) -> Any:
    return health_pb2_grpc.HealthStub(channel).Check(
        health_pb2.HealthCheckRequest(), timeout=HANG_BOUND
    )


def reflection_lists_services(channel: grpc.Channel) -> bool:
    stub = reflection_pb2_grpc.ServerReflectionStub(channel)
    request = reflection_pb2.ServerReflectionRequest(list_services="")
    (reply,) = stub.ServerReflectionInfo(iter([request]), timeout=HANG_BOUND)
    return bool(reply.list_services_response.service)


def everything_answers(emu: Emulator) -> None:
    with grpc.insecure_channel(emu.grpc_address) as channel:
        response: Any = unary_call(channel, CHECK, check_request(), timeout=HANG_BOUND)
        assert response.claims
        assert health(channel).status == health_pb2.HealthCheckResponse.SERVING
        assert reflection_lists_services(channel)


SMALL = Limits(max_streams=4, max_rpcs=8)
"""Caps small enough for 40 bodiless calls to overrun all of them on the old server."""


def test_bodiless_calls_do_not_starve_unary_calls_health_or_reflection() -> None:
    with emulator(limits=SMALL) as emu, bodiless_calls(emu, 40, 4, CHECK.grpc_path):
        everything_answers(emu)


def test_bodiless_health_checks_do_not_starve_health_checks_or_anyone() -> None:
    with emulator(limits=SMALL) as emu, bodiless_calls(emu, 40, 4, _HEALTH_CHECK):
        everything_answers(emu)


def status_of_one_bodiless_call(emu: Emulator) -> int:
    """The gRPC status a fresh connection's one bodiless call ends with, read off the wire."""
    caller = BodilessCaller(emu.grpc_address)
    try:
        caller.call(CHECK.grpc_path, 1)
        received = b""
        deadline = time.monotonic() + HANG_BOUND
        while (found := _STATUS.search(received)) is None and time.monotonic() < deadline:
            received += caller.socket.recv(65536)
    finally:
        caller.close()
    assert found is not None, received
    return int(found.group(1))


def test_a_call_whose_request_never_arrives_ends_with_deadline_exceeded() -> None:
    with emulator(limits=Limits(request_timeout=0.5)) as emu:
        assert status_of_one_bodiless_call(emu) == grpc.StatusCode.DEADLINE_EXCEEDED.value[0]


def test_past_the_waiting_cap_a_bodiless_call_is_refused_and_a_whole_one_served() -> None:
    with (
        emulator(limits=Limits(max_waiting_requests=8)) as emu,
        bodiless_calls(emu, 8, 2, CHECK.grpc_path),
    ):
        assert status_of_one_bodiless_call(emu) == grpc.StatusCode.RESOURCE_EXHAUSTED.value[0]
        everything_answers(emu)


def test_health_checks_have_room_when_every_serving_slot_is_taken() -> None:
    limits = Limits(max_streams=1, max_rpcs=2)
    with (
        emulator(limits=limits) as emu,
        grpc.insecure_channel(emu.grpc_address) as channel,
    ):
        emu.stub("CheckGrounding", response={"supportScore": 0.5}, delay_ms=3000)
        call = channel.unary_unary(
            CHECK.grpc_path,
            request_serializer=bytes,
            response_deserializer=CHECK.response_class.FromString,
        )
        slow = [
            call.future(check_request().SerializeToString(), timeout=HANG_BOUND) for _ in range(2)
        ]
        wait_for_serving(emu, 2)  # both are being served, held by their stub's delay
        with pytest.raises(grpc.RpcError) as raised:
            unary_call(channel, CHECK, check_request(), timeout=HANG_BOUND)
        assert raised.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert health(channel).status == health_pb2.HealthCheckResponse.SERVING
        assert all(call.result() for call in slow)


@pytest.mark.slow
def test_1100_bodiless_calls_over_20_connections_do_not_starve_anyone() -> None:
    with emulator() as emu, bodiless_calls(emu, 1_100, 20, CHECK.grpc_path):
        for _ in range(5):
            everything_answers(emu)


@pytest.mark.slow
def test_1100_bodiless_health_checks_over_20_connections_do_not_starve_anyone() -> None:
    with emulator() as emu, bodiless_calls(emu, 1_100, 20, _HEALTH_CHECK):
        for _ in range(5):
            everything_answers(emu)
