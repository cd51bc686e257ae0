"""The asyncio auto transport: the same switching rules as the blocking one."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator

import pytest
from google.protobuf.message import Message

from groundwire.core.errors import Unavailable
from groundwire.transports.auto import AsyncAutoTransport
from groundwire.transports.base import ConnectionFailure
from groundwire.transports.grpc_aio import AsyncGrpcTransport
from groundwire.transports.rest_aio import AsyncRestTransport
from tests.transports import canned
from tests.transports.servers import GrpcServer, RestServer
from tests.transports.test_auto import COOLDOWN, FakeClock, warnings


async def call(transport: AsyncAutoTransport, answer: str = canned.OK) -> Message:
    return await transport.unary(canned.CHECK, canned.check_request(answer), timeout=3.0,
                                 metadata=canned.METADATA)


@pytest.fixture
async def refused_auto(refused_port: int, rest_server: RestServer
                       ) -> AsyncIterator[tuple[AsyncAutoTransport, FakeClock]]:
    clock = FakeClock()
    auto = AsyncAutoTransport(
        AsyncGrpcTransport(f"127.0.0.1:{refused_port}", credentials=None, secure=False),
        AsyncRestTransport(rest_server.base_url, credentials=None),
        cooldown=COOLDOWN, clock=clock)
    yield auto, clock
    await auto.close()


async def test_when_grpc_cannot_connect_calls_go_over_rest_for_the_cooldown(
        refused_auto: tuple[AsyncAutoTransport, FakeClock], rest_server: RestServer,
        caplog: pytest.LogCaptureFixture) -> None:
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
        aio_grpc_server: GrpcServer, rest_server: RestServer,
        caplog: pytest.LogCaptureFixture) -> None:
    auto = AsyncAutoTransport(
        AsyncGrpcTransport(aio_grpc_server.target, credentials=None, secure=False),
        AsyncRestTransport(rest_server.base_url, credentials=None))
    try:
        with caplog.at_level(logging.WARNING, logger="groundwire"):
            with pytest.raises(Unavailable) as raised:
                await call(auto, canned.UNAVAILABLE)
            assert not isinstance(raised.value, ConnectionFailure)
        assert (aio_grpc_server.seen.calls, rest_server.seen.calls) == (1, 0)
        assert warnings(caplog) == []
    finally:
        await auto.close()


async def test_a_stream_falls_back_with_every_request_of_an_async_generator(
        refused_auto: tuple[AsyncAutoTransport, FakeClock], rest_server: RestServer) -> None:
    auto, _ = refused_auto

    async def requests() -> AsyncIterator[Message]:
        for text in ("一", "二", "三"):
            yield canned.stream_request(text)

    texts = [r.candidates[0].content.parts[0].text
             async for r in auto.stream(canned.STREAM, requests(), timeout=3.0, metadata=())]
    assert texts == ["0: 一", "1: 二", "2: 三"]
    assert rest_server.seen.calls == 1


async def test_a_stream_over_grpc_stays_on_grpc_and_passes_every_request(
        aio_grpc_server: GrpcServer, rest_server: RestServer) -> None:
    auto = AsyncAutoTransport(
        AsyncGrpcTransport(aio_grpc_server.target, credentials=None, secure=False),
        AsyncRestTransport(rest_server.base_url, credentials=None))

    async def requests() -> AsyncIterator[Message]:
        for text in "abcd":
            yield canned.stream_request(text)

    try:
        texts = [r.candidates[0].content.parts[0].text
                 async for r in auto.stream(canned.STREAM, requests(), timeout=3.0,
                                            metadata=())]
        assert texts == ["0: a", "1: b", "2: c", "3: d"]
        assert (aio_grpc_server.seen.calls, rest_server.seen.calls) == (1, 0)
    finally:
        await auto.close()
