"""The asyncio auto transport: the same switching rules as the blocking one."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterable, AsyncIterator, Awaitable, Callable, Iterable

import pytest
from google.protobuf.message import Message

from groundwire.core.apis import Method
from groundwire.core.errors import DeadlineExceeded, Unavailable
from groundwire.transports.auto import AsyncAutoTransport
from groundwire.transports.base import ConnectionFailure, Metadata
from groundwire.transports.grpc_aio import AsyncGrpcTransport
from groundwire.transports.rest_aio import AsyncRestTransport
from tests.transports import canned
from tests.transports.servers import GrpcServer, RestServer
from tests.transports.test_auto import COOLDOWN, FakeClock, warnings


async def call(transport: AsyncAutoTransport, answer: str = canned.OK) -> Message:
    return await transport.unary(
        canned.CHECK, canned.check_request(answer), timeout=3.0, metadata=canned.METADATA
    )


@pytest.fixture
async def refused_auto(
    refused_port: int, rest_server: RestServer
) -> AsyncIterator[tuple[AsyncAutoTransport, FakeClock]]:
    clock = FakeClock()
    auto = AsyncAutoTransport(
        AsyncGrpcTransport(f"127.0.0.1:{refused_port}", credentials=None, secure=False),
        AsyncRestTransport(rest_server.base_url, credentials=None),
        cooldown=COOLDOWN,
        clock=clock,
    )
    yield auto, clock
    await auto.close()


async def test_when_grpc_cannot_connect_calls_go_over_rest_for_the_cooldown(
    refused_auto: tuple[AsyncAutoTransport, FakeClock],
    rest_server: RestServer,
    caplog: pytest.LogCaptureFixture,
) -> None:
    auto, clock = refused_auto
    with caplog.at_level(logging.WARNING, logger="groundwire"):
        assert await call(auto) == canned.check_response()
        clock.now += COOLDOWN - 1
        assert await call(auto) == canned.check_response()
        clock.now += 1
        assert await call(auto) == canned.check_response()
    assert rest_server.seen.calls == 3
    assert len(warnings(caplog)) == 1


async def test_unavailable_from_a_reachable_grpc_server_does_not_switch(
    aio_grpc_server: GrpcServer, rest_server: RestServer, caplog: pytest.LogCaptureFixture
) -> None:
    auto = AsyncAutoTransport(
        AsyncGrpcTransport(aio_grpc_server.target, credentials=None, secure=False),
        AsyncRestTransport(rest_server.base_url, credentials=None),
    )
    try:
        with caplog.at_level(logging.WARNING, logger="groundwire"):
            with pytest.raises(Unavailable) as raised:
                await call(auto, canned.UNAVAILABLE)
            assert not isinstance(raised.value, ConnectionFailure)
        assert (aio_grpc_server.seen.calls, rest_server.seen.calls) == (1, 0)
        assert warnings(caplog) == []
    finally:
        await auto.close()


async def test_a_stream_of_a_request_list_falls_back_whole(
    refused_auto: tuple[AsyncAutoTransport, FakeClock], rest_server: RestServer
) -> None:
    auto, _ = refused_auto
    requests = [canned.stream_request(text) for text in ("一", "二", "三")]
    texts = [
        canned.streamed_text(r)
        async for r in auto.stream(canned.STREAM, requests, timeout=3.0, metadata=())
    ]
    assert texts == ["0: 一", "1: 二", "2: 三"]
    assert rest_server.seen.calls == 1


async def test_a_live_async_stream_stays_on_grpc_even_when_it_cannot_connect(
    refused_auto: tuple[AsyncAutoTransport, FakeClock], rest_server: RestServer
) -> None:
    auto, _ = refused_auto

    async def requests() -> AsyncIterator[Message]:
        for text in ("一", "二"):
            yield canned.stream_request(text)

    with pytest.raises(ConnectionFailure):
        async for _ in auto.stream(canned.STREAM, requests(), timeout=3.0, metadata=()):
            pass
    assert rest_server.seen.calls == 0


async def test_a_stream_over_grpc_stays_on_grpc_and_passes_every_request(
    aio_grpc_server: GrpcServer, rest_server: RestServer
) -> None:
    auto = AsyncAutoTransport(
        AsyncGrpcTransport(aio_grpc_server.target, credentials=None, secure=False),
        AsyncRestTransport(rest_server.base_url, credentials=None),
    )

    async def requests() -> AsyncIterator[Message]:
        for text in "abcd":
            yield canned.stream_request(text)

    try:
        texts = [
            canned.streamed_text(r)
            async for r in auto.stream(canned.STREAM, requests(), timeout=3.0, metadata=())
        ]
        assert texts == ["0: a", "1: b", "2: c", "3: d"]
        assert (aio_grpc_server.seen.calls, rest_server.seen.calls) == (1, 0)
    finally:
        await auto.close()


class AsyncRefusedAfter:
    """`RefusedAfter` for asyncio."""

    def __init__(self, clock: FakeClock, seconds: float) -> None:
        self.clock = clock
        self.seconds = seconds

    async def unary(
        self, method: Method, request: Message, *, timeout: float | None, metadata: Metadata
    ) -> Message:
        self.clock.now += self.seconds
        raise ConnectionFailure("TLS handshake failed")

    async def stream(
        self,
        method: Method,
        requests: Iterable[Message] | AsyncIterable[Message],
        *,
        timeout: float | None,
        metadata: Metadata,
    ) -> AsyncIterator[Message]:
        self.clock.now += self.seconds
        raise ConnectionFailure("TLS handshake failed")
        yield  # an async generator, like the real transport's stream

    async def close(self) -> None:
        pass


class AsyncTimedRest:
    """`TimedRest` for asyncio."""

    def __init__(self) -> None:
        self.timeouts: list[float | None] = []

    async def unary(
        self, method: Method, request: Message, *, timeout: float | None, metadata: Metadata
    ) -> Message:
        self.timeouts.append(timeout)
        return canned.check_response()

    async def stream(
        self,
        method: Method,
        requests: Iterable[Message] | AsyncIterable[Message],
        *,
        timeout: float | None,
        metadata: Metadata,
    ) -> AsyncIterator[Message]:
        self.timeouts.append(timeout)
        yield canned.check_response()

    async def close(self) -> None:
        pass


async def unary_after_grpc_took(seconds: float, rest: AsyncTimedRest) -> None:
    clock = FakeClock()
    auto = AsyncAutoTransport(AsyncRefusedAfter(clock, seconds), rest, clock=clock)
    await auto.unary(canned.CHECK, canned.check_request(), timeout=2.0, metadata=())


async def stream_after_grpc_took(seconds: float, rest: AsyncTimedRest) -> None:
    clock = FakeClock()
    auto = AsyncAutoTransport(AsyncRefusedAfter(clock, seconds), rest, clock=clock)
    async for _ in auto.stream(
        canned.STREAM, [canned.stream_request("one")], timeout=2.0, metadata=()
    ):
        pass


CALLS_WITH_A_TIMEOUT_OF_2_S = [unary_after_grpc_took, stream_after_grpc_took]


@pytest.mark.parametrize("call_after_grpc_took", CALLS_WITH_A_TIMEOUT_OF_2_S)
async def test_rest_gets_only_what_grpc_left_of_the_attempts_timeout(
    call_after_grpc_took: Callable[[float, AsyncTimedRest], Awaitable[None]],
) -> None:
    rest = AsyncTimedRest()
    await call_after_grpc_took(1.5, rest)
    assert rest.timeouts == [pytest.approx(0.5)]


@pytest.mark.parametrize("call_after_grpc_took", CALLS_WITH_A_TIMEOUT_OF_2_S)
async def test_when_grpc_used_up_the_timeout_rest_is_not_tried(
    call_after_grpc_took: Callable[[float, AsyncTimedRest], Awaitable[None]],
) -> None:
    rest = AsyncTimedRest()
    with pytest.raises(DeadlineExceeded):
        await call_after_grpc_took(2.5, rest)
    assert rest.timeouts == []
