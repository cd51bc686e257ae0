"""Sync and async, gRPC and REST: the same canned answers give the same results."""

from __future__ import annotations

from typing import Any

import pytest

from groundwire.contract.errors import GroundwireError
from tests.transports import canned, servers
from tests.transports.kinds import KINDS, Transports
from tests.transports.servers import GrpcServer, RestServer

BOTH_PROTOCOLS = [canned.OK, canned.INVALID, canned.UNAVAILABLE]
REST_ONLY = [servers.HTML, servers.GARBAGE, servers.TRUNCATED, servers.DROP]


def describe(error: GroundwireError) -> tuple[Any, ...]:
    return (
        type(error).__name__,
        error.code,
        error.message,
        error.retryable,
        [detail.SerializeToString(deterministic=True) for detail in error.details],
    )


def outcomes(
    answer: str, grpc_server: GrpcServer | None, rest_server: RestServer
) -> list[tuple[Any, ...]]:
    """What each transport, sync then async (gRPC, when a server is given, then REST), gives."""
    found = []
    for kind in KINDS:
        kinds = Transports(kind)
        try:
            transports = [kinds.rest(rest_server.base_url, credentials=None)]
            if grpc_server is not None:
                transports.insert(0, kinds.grpc(grpc_server.target, credentials=None, secure=False))
            for transport in transports:
                try:
                    response = kinds.check(transport, answer)
                    found.append(("response", response.SerializeToString(deterministic=True)))
                except GroundwireError as error:
                    found.append(describe(error))
        finally:
            kinds.close()
    return found


@pytest.mark.parametrize("answer", BOTH_PROTOCOLS)
def test_grpc_and_rest_sync_and_async_give_the_same_result(
    grpc_server: GrpcServer, rest_server: RestServer, answer: str
) -> None:
    grpc_sync, rest_sync, grpc_async, rest_async = outcomes(answer, grpc_server, rest_server)
    assert grpc_sync == grpc_async == rest_sync == rest_async


def in_our_words(outcome: tuple[Any, ...]) -> tuple[Any, ...]:
    """An outcome without the HTTP library's own words (http.client's or httpx's)."""
    name, code, message, *rest = outcome
    return (name, code, message.split(": ")[0], *rest)


@pytest.mark.parametrize("answer", REST_ONLY)
def test_rest_sync_and_async_give_the_same_failure(rest_server: RestServer, answer: str) -> None:
    rest_sync, rest_async = outcomes(answer, None, rest_server)
    assert rest_sync[0] != "response"
    assert in_our_words(rest_sync) == in_our_words(rest_async)


def test_streams_give_the_same_responses_over_every_transport(
    kinds: Transports, grpc_server: GrpcServer, rest_server: RestServer
) -> None:
    requests = [canned.stream_request(text) for text in ("一", canned.TEXT, "🎉")]
    expected = list(canned.stream_responses(requests))
    for transport in (
        kinds.grpc(grpc_server.target, credentials=None, secure=False),
        kinds.rest(rest_server.base_url, credentials=None),
    ):
        assert kinds.stream(transport, requests) == expected
