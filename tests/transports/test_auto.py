"""The auto transport: gRPC first, REST while gRPC cannot connect, back to gRPC after the cool-down.

Real transports against real servers; a fake clock stands for the passing of the cool-down.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable, Iterator

import pytest
from google.protobuf.message import Message

from groundwire.core.apis import Method
from groundwire.core.errors import DeadlineExceeded, Unavailable
from groundwire.transports.auto import AutoTransport
from groundwire.transports.base import ConnectionFailure, Metadata, Transport
from groundwire.transports.grpc import GrpcTransport
from groundwire.transports.rest import RestTransport
from tests.transports import canned
from tests.transports.servers import GrpcServer, RestServer, start_grpc_server

COOLDOWN = 60.0
FAST_RECONNECT = (
    ("grpc.initial_reconnect_backoff_ms", 20),
    ("grpc.min_reconnect_backoff_ms", 20),
    ("grpc.max_reconnect_backoff_ms", 50),
)


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class Counted:
    """A real transport, with the number of calls it was asked to make."""

    def __init__(self, inner: Transport) -> None:
        self.inner = inner
        self.calls = 0

    def unary(
        self, method: Method, request: Message, *, timeout: float | None, metadata: Metadata
    ) -> Message:
        self.calls += 1
        return self.inner.unary(method, request, timeout=timeout, metadata=metadata)

    def stream(
        self,
        method: Method,
        requests: Iterable[Message],
        *,
        timeout: float | None,
        metadata: Metadata,
    ) -> Iterator[Message]:
        self.calls += 1
        return self.inner.stream(method, requests, timeout=timeout, metadata=metadata)

    def close(self) -> None:
        self.inner.close()

    def abandon(self) -> None:
        self.inner.abandon()


def warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [
        r.getMessage()
        for r in caplog.records
        if r.name == "groundwire" and r.levelno == logging.WARNING
    ]


def call(transport: AutoTransport, answer: str = canned.OK) -> Message:
    return transport.unary(
        canned.CHECK, canned.check_request(answer), timeout=3.0, metadata=canned.METADATA
    )


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def refused_auto(
    refused_port: int, rest_server: RestServer, clock: FakeClock
) -> Iterator[tuple[AutoTransport, Counted]]:
    grpc = Counted(
        GrpcTransport(
            f"127.0.0.1:{refused_port}", credentials=None, secure=False, options=FAST_RECONNECT
        )
    )
    auto = AutoTransport(
        grpc, RestTransport(rest_server.base_url, credentials=None), cooldown=COOLDOWN, clock=clock
    )
    yield auto, grpc
    auto.close()


def test_when_grpc_cannot_connect_the_call_goes_over_rest_and_one_warning_is_logged(
    refused_auto: tuple[AutoTransport, Counted],
    rest_server: RestServer,
    caplog: pytest.LogCaptureFixture,
) -> None:
    auto, grpc = refused_auto
    with caplog.at_level(logging.WARNING, logger="groundwire"):
        assert call(auto) == canned.check_response()
    assert (grpc.calls, rest_server.seen.calls) == (1, 1)
    assert len(warnings(caplog)) == 1
    assert "REST" in warnings(caplog)[0]


def test_within_the_cooldown_calls_go_straight_to_rest(
    refused_auto: tuple[AutoTransport, Counted],
    rest_server: RestServer,
    clock: FakeClock,
    caplog: pytest.LogCaptureFixture,
) -> None:
    auto, grpc = refused_auto
    with caplog.at_level(logging.WARNING, logger="groundwire"):
        call(auto)
        clock.now += COOLDOWN - 1
        call(auto)
        call(auto)
    assert (grpc.calls, rest_server.seen.calls) == (1, 3)
    assert len(warnings(caplog)) == 1


def test_after_the_cooldown_grpc_is_tried_again_without_a_second_warning(
    refused_auto: tuple[AutoTransport, Counted],
    rest_server: RestServer,
    clock: FakeClock,
    caplog: pytest.LogCaptureFixture,
) -> None:
    auto, grpc = refused_auto
    with caplog.at_level(logging.WARNING, logger="groundwire"):
        call(auto)
        clock.now += COOLDOWN
        assert call(auto) == canned.check_response()
    assert (grpc.calls, rest_server.seen.calls) == (2, 2)
    assert len(warnings(caplog)) == 1


def test_when_grpc_connects_again_the_switch_back_is_logged_once(
    refused_port: int, rest_server: RestServer, clock: FakeClock, caplog: pytest.LogCaptureFixture
) -> None:
    grpc = GrpcTransport(
        f"127.0.0.1:{refused_port}", credentials=None, secure=False, options=FAST_RECONNECT
    )
    auto = AutoTransport(
        grpc, RestTransport(rest_server.base_url, credentials=None), cooldown=COOLDOWN, clock=clock
    )
    server: GrpcServer | None = None
    try:
        with caplog.at_level(logging.WARNING, logger="groundwire"):
            call(auto)
            server = start_grpc_server(refused_port)
            deadline = time.monotonic() + 3
            while server.seen.calls == 0 and time.monotonic() < deadline:
                clock.now += COOLDOWN
                call(auto)
                time.sleep(0.02)
            call(auto)
        assert server.seen.calls == 2
        assert len(warnings(caplog)) == 2
        assert "back" in warnings(caplog)[1]
    finally:
        auto.close()
        if server is not None:
            server.server.stop(grace=None)


def test_unavailable_from_a_reachable_grpc_server_does_not_switch(
    grpc_server: GrpcServer,
    rest_server: RestServer,
    clock: FakeClock,
    caplog: pytest.LogCaptureFixture,
) -> None:
    auto = AutoTransport(
        GrpcTransport(grpc_server.target, credentials=None, secure=False),
        RestTransport(rest_server.base_url, credentials=None),
        clock=clock,
    )
    try:
        with caplog.at_level(logging.WARNING, logger="groundwire"):
            with pytest.raises(Unavailable) as raised:
                call(auto, canned.UNAVAILABLE)
            assert not isinstance(raised.value, ConnectionFailure)
            call(auto)
        assert (grpc_server.seen.calls, rest_server.seen.calls) == (2, 0)
        assert warnings(caplog) == []
    finally:
        auto.close()


def test_a_stream_of_a_request_list_falls_back_whole(
    refused_auto: tuple[AutoTransport, Counted], rest_server: RestServer
) -> None:
    auto, _ = refused_auto
    requests = [canned.stream_request(text) for text in ("一", "二", "三")]
    responses = list(auto.stream(canned.STREAM, requests, timeout=3.0, metadata=()))
    assert [canned.streamed_text(r) for r in responses] == ["0: 一", "1: 二", "2: 三"]
    assert rest_server.seen.calls == 1


def test_a_live_stream_stays_on_grpc_even_when_it_cannot_connect(
    refused_auto: tuple[AutoTransport, Counted], rest_server: RestServer
) -> None:
    auto, _ = refused_auto
    requests = (canned.stream_request(text) for text in ("一", "二"))
    with pytest.raises(ConnectionFailure):
        list(auto.stream(canned.STREAM, requests, timeout=3.0, metadata=()))
    assert rest_server.seen.calls == 0  # REST would read every request first: a live one hangs


def test_a_stream_over_grpc_stays_on_grpc(grpc_server: GrpcServer, rest_server: RestServer) -> None:
    auto = AutoTransport(
        GrpcTransport(grpc_server.target, credentials=None, secure=False),
        RestTransport(rest_server.base_url, credentials=None),
    )
    try:
        requests = (canned.stream_request(text) for text in ("a", "b"))
        responses = list(auto.stream(canned.STREAM, requests, timeout=3.0, metadata=()))
        assert len(responses) == 2
        assert (grpc_server.seen.calls, rest_server.seen.calls) == (1, 0)
    finally:
        auto.close()


class RefusedAfter:
    """A gRPC transport that takes `seconds` of the clock to find that it cannot connect."""

    def __init__(self, clock: FakeClock, seconds: float) -> None:
        self.clock = clock
        self.seconds = seconds

    def unary(
        self, method: Method, request: Message, *, timeout: float | None, metadata: Metadata
    ) -> Message:
        self.clock.now += self.seconds
        raise ConnectionFailure("TLS handshake failed")

    def stream(
        self,
        method: Method,
        requests: Iterable[Message],
        *,
        timeout: float | None,
        metadata: Metadata,
    ) -> Iterator[Message]:
        self.clock.now += self.seconds
        raise ConnectionFailure("TLS handshake failed")
        yield  # a generator, like the real transport's stream

    def close(self) -> None:
        pass

    def abandon(self) -> None:
        pass


class TimedRest:
    """A REST transport that answers at once and notes the timeout of every call."""

    def __init__(self) -> None:
        self.timeouts: list[float | None] = []

    def unary(
        self, method: Method, request: Message, *, timeout: float | None, metadata: Metadata
    ) -> Message:
        self.timeouts.append(timeout)
        return canned.check_response()

    def stream(
        self,
        method: Method,
        requests: Iterable[Message],
        *,
        timeout: float | None,
        metadata: Metadata,
    ) -> Iterator[Message]:
        self.timeouts.append(timeout)
        return canned.stream_responses(requests)

    def close(self) -> None:
        pass

    def abandon(self) -> None:
        pass


def unary_after_grpc_took(seconds: float, clock: FakeClock, rest: TimedRest) -> None:
    auto = AutoTransport(RefusedAfter(clock, seconds), rest, clock=clock)
    auto.unary(canned.CHECK, canned.check_request(), timeout=2.0, metadata=())


def stream_after_grpc_took(seconds: float, clock: FakeClock, rest: TimedRest) -> None:
    auto = AutoTransport(RefusedAfter(clock, seconds), rest, clock=clock)
    list(auto.stream(canned.STREAM, [canned.stream_request("one")], timeout=2.0, metadata=()))


CALLS_WITH_A_TIMEOUT_OF_2_S = [unary_after_grpc_took, stream_after_grpc_took]


@pytest.mark.parametrize("call_after_grpc_took", CALLS_WITH_A_TIMEOUT_OF_2_S)
def test_rest_gets_only_what_grpc_left_of_the_attempts_timeout(
    clock: FakeClock, call_after_grpc_took: Callable[[float, FakeClock, TimedRest], None]
) -> None:
    rest = TimedRest()
    call_after_grpc_took(1.5, clock, rest)
    assert rest.timeouts == [pytest.approx(0.5)]


@pytest.mark.parametrize("call_after_grpc_took", CALLS_WITH_A_TIMEOUT_OF_2_S)
def test_when_grpc_used_up_the_timeout_rest_is_not_tried(
    clock: FakeClock, call_after_grpc_took: Callable[[float, FakeClock, TimedRest], None]
) -> None:
    rest = TimedRest()
    with pytest.raises(DeadlineExceeded):
        call_after_grpc_took(2.5, clock, rest)
    assert rest.timeouts == []
