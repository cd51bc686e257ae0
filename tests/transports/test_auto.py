"""Both auto transports: gRPC first, REST while gRPC cannot connect, gRPC again after the cool-down.

Real transports against real servers, blocking and asyncio; a fake clock stands for the
passing of the cool-down.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

import pytest
from google.protobuf.message import Message

from groundwire.contract.apis import Method
from groundwire.contract.errors import DeadlineExceeded, Unavailable
from groundwire.transports.base import ConnectionFailure
from tests.transports import canned
from tests.transports.kinds import Transports
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
    """A real transport of either kind, with the number of calls it was asked to make."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.calls = 0

    def unary(self, method: Method, request: Message, *, timeout: float | None, **kw: Any) -> Any:
        self.calls += 1
        return self.inner.unary(method, request, timeout=timeout, **kw)

    def stream(self, method: Method, requests: Any, *, timeout: float | None, **kw: Any) -> Any:
        self.calls += 1
        return self.inner.stream(method, requests, timeout=timeout, **kw)

    def close(self) -> Any:
        return self.inner.close()


class Answering:
    """A transport of either kind whose every call, or stream, gives `answer(its timeout)`."""

    def __init__(self, kind: str, answer: Callable[[float | None], Message]) -> None:
        self.kind = kind
        self.answer = answer

    def unary(self, method: Method, request: Message, *, timeout: float | None, **kw: Any) -> Any:
        return self.answer(timeout) if self.kind == "sync" else self._answer(timeout)

    def stream(self, method: Method, requests: Any, *, timeout: float | None, **kw: Any) -> Any:
        return self._answers(timeout) if self.kind == "sync" else self._async_answers(timeout)

    def close(self) -> Any:
        return None if self.kind == "sync" else asyncio.sleep(0)

    async def _answer(self, timeout: float | None) -> Message:
        return self.answer(timeout)

    def _answers(self, timeout: float | None) -> Iterator[Message]:
        yield self.answer(timeout)  # a generator, like the real transport's stream

    async def _async_answers(self, timeout: float | None) -> AsyncIterator[Message]:
        yield self.answer(timeout)


def warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [
        r.getMessage()
        for r in caplog.records
        if r.name == "groundwire" and r.levelno == logging.WARNING
    ]


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def refused_auto(
    kinds: Transports, refused_port: int, rest_server: RestServer, clock: FakeClock
) -> tuple[Any, Counted]:
    grpc = Counted(
        kinds.grpc(
            f"127.0.0.1:{refused_port}", credentials=None, secure=False, options=FAST_RECONNECT
        )
    )
    rest = kinds.rest(rest_server.base_url, credentials=None)
    return kinds.auto(grpc, rest, cooldown=COOLDOWN, clock=clock), grpc


def test_when_grpc_cannot_connect_the_call_goes_over_rest_and_one_warning_is_logged(
    kinds: Transports,
    refused_auto: tuple[Any, Counted],
    rest_server: RestServer,
    caplog: pytest.LogCaptureFixture,
) -> None:
    auto, grpc = refused_auto
    with caplog.at_level(logging.WARNING, logger="groundwire"):
        assert kinds.check(auto) == canned.check_response()
    assert (grpc.calls, rest_server.seen.calls) == (1, 1)
    assert len(warnings(caplog)) == 1
    assert "REST" in warnings(caplog)[0]


def test_within_the_cooldown_calls_go_straight_to_rest(
    kinds: Transports,
    refused_auto: tuple[Any, Counted],
    rest_server: RestServer,
    clock: FakeClock,
    caplog: pytest.LogCaptureFixture,
) -> None:
    auto, grpc = refused_auto
    with caplog.at_level(logging.WARNING, logger="groundwire"):
        kinds.check(auto)
        clock.now += COOLDOWN - 1
        assert kinds.check(auto) == canned.check_response()
        assert kinds.check(auto) == canned.check_response()
    assert (grpc.calls, rest_server.seen.calls) == (1, 3)
    assert len(warnings(caplog)) == 1


def test_after_the_cooldown_grpc_is_tried_again_without_a_second_warning(
    kinds: Transports,
    refused_auto: tuple[Any, Counted],
    rest_server: RestServer,
    clock: FakeClock,
    caplog: pytest.LogCaptureFixture,
) -> None:
    auto, grpc = refused_auto
    with caplog.at_level(logging.WARNING, logger="groundwire"):
        kinds.check(auto)
        clock.now += COOLDOWN
        assert kinds.check(auto) == canned.check_response()
    assert (grpc.calls, rest_server.seen.calls) == (2, 2)
    assert len(warnings(caplog)) == 1


def test_when_grpc_connects_again_the_switch_back_is_logged_once(
    kinds: Transports,
    refused_port: int,
    rest_server: RestServer,
    clock: FakeClock,
    caplog: pytest.LogCaptureFixture,
) -> None:
    grpc = kinds.grpc(
        f"127.0.0.1:{refused_port}", credentials=None, secure=False, options=FAST_RECONNECT
    )
    rest = kinds.rest(rest_server.base_url, credentials=None)
    auto = kinds.auto(grpc, rest, cooldown=COOLDOWN, clock=clock)
    server: GrpcServer | None = None
    try:
        with caplog.at_level(logging.WARNING, logger="groundwire"):
            kinds.check(auto)
            server = start_grpc_server(refused_port)
            deadline = time.monotonic() + 3
            while server.seen.calls == 0 and time.monotonic() < deadline:
                clock.now += COOLDOWN
                kinds.check(auto)
                kinds.pause(0.02)
            kinds.check(auto)
        assert server.seen.calls == 2
        assert len(warnings(caplog)) == 2
        assert "back" in warnings(caplog)[1]
    finally:
        kinds.run(auto.close())
        if server is not None:
            server.server.stop(grace=None)


def test_unavailable_from_a_reachable_grpc_server_does_not_switch(
    kinds: Transports,
    grpc_server: GrpcServer,
    rest_server: RestServer,
    clock: FakeClock,
    caplog: pytest.LogCaptureFixture,
) -> None:
    auto = kinds.auto(
        kinds.grpc(grpc_server.target, credentials=None, secure=False),
        kinds.rest(rest_server.base_url, credentials=None),
        clock=clock,
    )
    with caplog.at_level(logging.WARNING, logger="groundwire"):
        with pytest.raises(Unavailable) as raised:
            kinds.check(auto, canned.UNAVAILABLE)
        assert not isinstance(raised.value, ConnectionFailure)
        kinds.check(auto)
    assert (grpc_server.seen.calls, rest_server.seen.calls) == (2, 0)
    assert warnings(caplog) == []


def test_a_stream_of_a_request_list_falls_back_whole(
    kinds: Transports, refused_auto: tuple[Any, Counted], rest_server: RestServer
) -> None:
    auto, _ = refused_auto
    requests = [canned.stream_request(text) for text in ("一", "二", "三")]
    responses = kinds.stream(auto, requests)
    assert [canned.streamed_text(r) for r in responses] == ["0: 一", "1: 二", "2: 三"]
    assert rest_server.seen.calls == 1


def test_a_live_stream_stays_on_grpc_even_when_it_cannot_connect(
    kinds: Transports, refused_auto: tuple[Any, Counted], rest_server: RestServer
) -> None:
    auto, _ = refused_auto
    with pytest.raises(ConnectionFailure):
        kinds.stream(auto, kinds.live(canned.stream_request(text) for text in ("一", "二")))
    assert rest_server.seen.calls == 0  # REST would read every request first: a live one hangs


def test_a_stream_over_grpc_stays_on_grpc_and_passes_every_request(
    kinds: Transports, grpc_server: GrpcServer, rest_server: RestServer
) -> None:
    auto = kinds.auto(
        kinds.grpc(grpc_server.target, credentials=None, secure=False),
        kinds.rest(rest_server.base_url, credentials=None),
    )
    responses = kinds.stream(auto, kinds.live(canned.stream_request(text) for text in "abcd"))
    assert [canned.streamed_text(r) for r in responses] == ["0: a", "1: b", "2: c", "3: d"]
    assert (grpc_server.seen.calls, rest_server.seen.calls) == (1, 0)


def unary_after_grpc_took(kinds: Transports, auto: Any) -> None:
    kinds.unary(auto, canned.check_request(), timeout=2.0, metadata=())


def stream_after_grpc_took(kinds: Transports, auto: Any) -> None:
    kinds.stream(auto, [canned.stream_request("one")], timeout=2.0)


CALLS_WITH_A_TIMEOUT_OF_2_S = [unary_after_grpc_took, stream_after_grpc_took]


def after_grpc_took(
    seconds: float,
    kinds: Transports,
    call_after_grpc_took: Callable[[Transports, Any], None],
    rest_timeouts: list[float | None],
) -> None:
    """Calls after a gRPC that took `seconds` to find it cannot connect; notes REST's timeouts."""
    clock = FakeClock()

    def refused(timeout: float | None) -> Message:
        clock.now += seconds
        raise ConnectionFailure("TLS handshake failed")

    def answered(timeout: float | None) -> Message:
        rest_timeouts.append(timeout)
        return canned.stream_response(0, canned.stream_request("one"))

    grpc, rest = Answering(kinds.kind, refused), Answering(kinds.kind, answered)
    call_after_grpc_took(kinds, kinds.auto(grpc, rest, clock=clock))


@pytest.mark.parametrize("call_after_grpc_took", CALLS_WITH_A_TIMEOUT_OF_2_S)
def test_rest_gets_only_what_grpc_left_of_the_attempts_timeout(
    kinds: Transports, call_after_grpc_took: Callable[[Transports, Any], None]
) -> None:
    rest_timeouts: list[float | None] = []
    after_grpc_took(1.5, kinds, call_after_grpc_took, rest_timeouts)
    assert rest_timeouts == [pytest.approx(0.5)]


@pytest.mark.parametrize("call_after_grpc_took", CALLS_WITH_A_TIMEOUT_OF_2_S)
def test_when_grpc_used_up_the_timeout_rest_is_not_tried(
    kinds: Transports, call_after_grpc_took: Callable[[Transports, Any], None]
) -> None:
    rest_timeouts: list[float | None] = []
    with pytest.raises(DeadlineExceeded):
        after_grpc_took(2.5, kinds, call_after_grpc_took, rest_timeouts)
    assert rest_timeouts == []
