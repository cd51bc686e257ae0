"""Sync and async, gRPC and REST: the same canned answers give the same results."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from google.protobuf.message import Message

from groundwire.core.errors import GroundwireError
from groundwire.transports.grpc import GrpcTransport
from groundwire.transports.grpc_aio import AsyncGrpcTransport
from groundwire.transports.rest import RestTransport
from groundwire.transports.rest_aio import AsyncRestTransport
from tests.transports import canned, servers
from tests.transports.servers import GrpcServer, RestServer

BOTH_PROTOCOLS = [canned.OK, canned.INVALID, canned.UNAVAILABLE]
REST_ONLY = [servers.HTML, servers.GARBAGE, servers.TRUNCATED, servers.DROP]


def outcome_of(call: Callable[[], Message]) -> tuple[Any, ...]:
    try:
        return ("response", call().SerializeToString(deterministic=True))
    except GroundwireError as error:
        return describe(error)


async def async_outcome_of(call: Callable[[], Awaitable[Message]]) -> tuple[Any, ...]:
    try:
        return ("response", (await call()).SerializeToString(deterministic=True))
    except GroundwireError as error:
        return describe(error)


def describe(error: GroundwireError) -> tuple[Any, ...]:
    return (
        type(error).__name__,
        error.code,
        error.message,
        error.retryable,
        [detail.SerializeToString(deterministic=True) for detail in error.details],
    )


async def grpc_outcomes(server: GrpcServer, answer: str) -> tuple[tuple[Any, ...], ...]:
    sync = GrpcTransport(server.target, credentials=None, secure=False)
    aio = AsyncGrpcTransport(server.target, credentials=None, secure=False)
    request = canned.check_request(answer)
    try:
        return (
            outcome_of(lambda: sync.unary(canned.CHECK, request, timeout=3, metadata=())),
            await async_outcome_of(
                lambda: aio.unary(canned.CHECK, request, timeout=3, metadata=())
            ),
        )
    finally:
        sync.close()
        await aio.close()


async def rest_outcomes(server: RestServer, answer: str) -> tuple[tuple[Any, ...], ...]:
    sync = RestTransport(server.base_url, credentials=None)
    aio = AsyncRestTransport(server.base_url, credentials=None)
    request = canned.check_request(answer)
    try:
        return (
            outcome_of(lambda: sync.unary(canned.CHECK, request, timeout=3, metadata=())),
            await async_outcome_of(
                lambda: aio.unary(canned.CHECK, request, timeout=3, metadata=())
            ),
        )
    finally:
        sync.close()
        await aio.close()


@pytest.mark.parametrize("answer", BOTH_PROTOCOLS)
async def test_grpc_and_rest_sync_and_async_give_the_same_result(
    grpc_server: GrpcServer, rest_server: RestServer, answer: str
) -> None:
    grpc_sync, grpc_async = await grpc_outcomes(grpc_server, answer)
    rest_sync, rest_async = await rest_outcomes(rest_server, answer)
    assert grpc_sync == grpc_async == rest_sync == rest_async


def in_our_words(outcome: tuple[Any, ...]) -> tuple[Any, ...]:
    """An outcome without the HTTP library's own words (http.client's or httpx's)."""
    name, code, message, *rest = outcome
    return (name, code, message.split(": ")[0], *rest)


@pytest.mark.parametrize("answer", REST_ONLY)
async def test_rest_sync_and_async_give_the_same_failure(
    rest_server: RestServer, answer: str
) -> None:
    rest_sync, rest_async = await rest_outcomes(rest_server, answer)
    assert rest_sync[0] != "response"
    assert in_our_words(rest_sync) == in_our_words(rest_async)


async def test_streams_give_the_same_responses_over_every_transport(
    grpc_server: GrpcServer, rest_server: RestServer
) -> None:
    requests = [canned.stream_request(text) for text in ("一", canned.TEXT, "🎉")]
    expected = list(canned.stream_responses(requests))
    sync_grpc = GrpcTransport(grpc_server.target, credentials=None, secure=False)
    sync_rest = RestTransport(rest_server.base_url, credentials=None)
    aio_grpc = AsyncGrpcTransport(grpc_server.target, credentials=None, secure=False)
    aio_rest = AsyncRestTransport(rest_server.base_url, credentials=None)
    try:
        for sync in (sync_grpc, sync_rest):
            assert list(sync.stream(canned.STREAM, requests, timeout=3, metadata=())) == expected
        for aio in (aio_grpc, aio_rest):
            assert [
                r async for r in aio.stream(canned.STREAM, requests, timeout=3, metadata=())
            ] == expected
    finally:
        sync_grpc.close()
        sync_rest.close()
        await aio_grpc.close()
        await aio_rest.close()
