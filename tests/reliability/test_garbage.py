"""Garbage from a server (noise, broken or foreign HTTP): a clear GroundwireError, never a hang."""

from __future__ import annotations

import asyncio

import pytest

from groundwire import AsyncGroundingClient, RetryPolicy
from groundwire.contract.calls import TransportName
from groundwire.contract.errors import GroundwireError
from tests.reliability.calls import ANSWER, FACTS, PROJECT, Outcome, bounded, client_for
from tests.reliability.raw_servers import (
    Handler,
    RawServer,
    http_reply,
    http_response,
    noise,
)

TIMEOUT = 3.0
BOUND = 10 * TIMEOUT
PROXY_PAGE = (
    b"<html><head><title>502 Bad Gateway</title></head><body><center>"
    b"<h1>502 Bad Gateway</h1></center><hr><center>nginx</center></body></html>"
)

NOT_THE_MESSAGE = {
    "truncated JSON": http_response(
        "200 OK", "application/json", b'{"supportScore": 0.5, "claims": [{"claimText": "Tok'
    ),
    "body shorter than its Content-Length": http_response(
        "200 OK", "application/json", b'{"supportScore": 0.5, "cla', content_length=400
    ),
    "an empty body": http_response("200 OK", "application/json", b""),
    "a JSON array": http_response("200 OK", "application/json", b"[1, 2, 3]"),
    "a JSON string": http_response("200 OK", "application/json", b'"all good"'),
    "a field of the wrong type": http_response(
        "200 OK", "application/json", b'{"claims": 7, "supportScore": "high"}'
    ),
    "plain text": http_response("200 OK", "text/plain", b"OK"),
    "an HTML page": http_response("200 OK", "text/html", b"<html><body>Welcome!</body></html>"),
    "invalid UTF-8": http_response("200 OK", "application/json", b'{"claims": "\xff\xfe"}'),
}


def _call(handler: Handler, transport: TransportName, retry: RetryPolicy | None = None) -> Outcome:
    """One bounded check_grounding call against a raw server running `handler`."""
    with (
        RawServer(handler) as server,
        client_for(transport, server.address, server.url, timeout=TIMEOUT, retry=retry) as client,
    ):
        return bounded(lambda: client.check_grounding(ANSWER, FACTS), BOUND)


def _assert_clear_error(outcome_error: BaseException | None) -> GroundwireError:
    assert isinstance(outcome_error, GroundwireError), repr(outcome_error)
    assert outcome_error.message, "the error should say what went wrong"
    return outcome_error


@pytest.mark.parametrize(
    "retry", [None, RetryPolicy(initial=0.05, maximum=0.5, timeout=2.0)], ids=["no-retry", "retry"]
)
def test_random_bytes_on_the_grpc_port_give_a_groundwire_error(retry: RetryPolicy | None) -> None:
    outcome = _call(noise(seed=7), "grpc", retry)

    assert not outcome.hung
    _assert_clear_error(outcome.error)


def test_random_bytes_on_the_http_port_give_a_groundwire_error() -> None:
    outcome = _call(noise(seed=11), "rest")

    assert not outcome.hung
    _assert_clear_error(outcome.error)


def test_a_proxys_html_502_page_is_a_retryable_unavailable_error() -> None:
    outcome = _call(http_reply(http_response("502 Bad Gateway", "text/html", PROXY_PAGE)), "rest")

    error = _assert_clear_error(outcome.error)
    assert error.code.name == "UNAVAILABLE"
    assert error.retryable
    assert error.http_status == 502


@pytest.mark.parametrize("raw_response", NOT_THE_MESSAGE.values(), ids=NOT_THE_MESSAGE.keys())
def test_a_success_whose_body_is_not_the_response_message_is_an_error(raw_response: bytes) -> None:
    outcome = _call(http_reply(raw_response), "rest")

    assert not outcome.hung
    _assert_clear_error(outcome.error)


@pytest.mark.parametrize("name", ["truncated JSON", "an HTML page"])
async def test_the_async_client_reports_a_body_that_is_not_the_message(name: str) -> None:
    with RawServer(http_reply(NOT_THE_MESSAGE[name])) as server:
        async with AsyncGroundingClient(
            PROJECT, transport="rest", rest_endpoint=server.url, timeout=TIMEOUT, retry=None
        ) as client:
            with pytest.raises(GroundwireError) as raised:
                await asyncio.wait_for(client.check_grounding(ANSWER, FACTS), BOUND)

    assert raised.value.message
