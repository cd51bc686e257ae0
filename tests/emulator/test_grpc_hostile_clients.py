"""Idle and unread gRPC streams neither starve unary calls nor health, and are bounded."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import ExitStack
from typing import Any

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from groundwire.emulator import Emulator, emulator
from groundwire.emulator.limits import Limits
from tests.emulator.support import (
    CHECK,
    PROJECT_LOCATION,
    QUESTION,
    STREAM,
    check_request,
    unary_call,
)

pytestmark = pytest.mark.timeout(60)

IDLE_STREAMS = 16
HANG_BOUND = 10.0
"""Generous: only a hang takes this long."""


def stream_request() -> Any:
    request: Any = STREAM.request_class(location=PROJECT_LOCATION)
    request.contents.add(role="user", parts=[{"text": QUESTION}])
    return request


def open_stream(channel: grpc.Channel, requests: Iterator[Any]) -> Any:
    call = channel.stream_stream(
        STREAM.grpc_path,
        request_serializer=STREAM.request_class.SerializeToString,
        response_deserializer=STREAM.response_class.FromString,
    )
    return call(requests, timeout=HANG_BOUND * 3)


def silent_requests(stop: threading.Event) -> Iterator[Any]:
    stop.wait(HANG_BOUND * 3)
    yield from ()


def chatty_requests(stop: threading.Event) -> Iterator[Any]:
    """Many requests that are never read back: the server's replies pile up."""
    for _ in range(200):
        if stop.is_set():
            return
        yield stream_request()
    stop.wait(HANG_BOUND * 3)


def unary_and_health_answer(emu: Emulator) -> None:
    with grpc.insecure_channel(emu.grpc_address) as fresh:
        response: Any = unary_call(fresh, CHECK, check_request(), timeout=HANG_BOUND)
        assert response.claims
        reply = health_pb2_grpc.HealthStub(fresh).Check(
            health_pb2.HealthCheckRequest(), timeout=HANG_BOUND
        )
        assert reply.status == health_pb2.HealthCheckResponse.SERVING


@pytest.mark.parametrize("requests", [silent_requests, chatty_requests])
def test_streams_that_never_send_or_never_read_do_not_starve_unary_calls_or_health(
    requests: Any,
) -> None:
    stop = threading.Event()
    with emulator() as emu, ExitStack() as stack:
        stack.callback(stop.set)
        for _ in range(IDLE_STREAMS):
            channel = stack.enter_context(grpc.insecure_channel(emu.grpc_address))
            call = open_stream(channel, requests(stop))
            stack.callback(call.cancel)
        assert emu.activity is not None
        assert emu.activity.wait_until(  # every stream has reached the server
            lambda now: now.streams_open == IDLE_STREAMS, timeout=HANG_BOUND
        )
        unary_and_health_answer(emu)


def test_streams_beyond_capacity_are_refused_with_resource_exhausted_at_once() -> None:
    stop = threading.Event()
    with emulator(limits=Limits(max_streams=2)) as emu, ExitStack() as stack:
        stack.callback(stop.set)
        channel = stack.enter_context(grpc.insecure_channel(emu.grpc_address))
        for _ in range(2):
            stack.callback(open_stream(channel, silent_requests(stop)).cancel)
        assert emu.activity is not None
        assert emu.activity.wait_until(lambda now: now.streams_open == 2, timeout=HANG_BOUND)
        extra = open_stream(channel, iter([stream_request()]))
        with pytest.raises(grpc.RpcError) as raised:
            list(extra)
        assert raised.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        unary_and_health_answer(emu)


def test_a_stream_idle_past_its_timeout_is_ended_by_the_server() -> None:
    stop = threading.Event()
    with emulator(limits=Limits(stream_idle_timeout=0.5)) as emu, ExitStack() as stack:
        stack.callback(stop.set)
        channel = stack.enter_context(grpc.insecure_channel(emu.grpc_address))
        call = open_stream(channel, silent_requests(stop))
        with pytest.raises(grpc.RpcError) as raised:
            list(call)
        assert raised.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED
        assert "idle" in (raised.value.details() or "")


def test_a_stream_idle_between_requests_is_ended_too() -> None:
    stop = threading.Event()

    def one_then_silence() -> Iterator[Any]:
        yield stream_request()
        stop.wait(HANG_BOUND * 3)

    with emulator(limits=Limits(stream_idle_timeout=0.5)) as emu, ExitStack() as stack:
        stack.callback(stop.set)
        channel = stack.enter_context(grpc.insecure_channel(emu.grpc_address))
        responses = iter(open_stream(channel, one_then_silence()))
        assert next(responses).candidates
        with pytest.raises(grpc.RpcError) as raised:
            list(responses)
        assert raised.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED
