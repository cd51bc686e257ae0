"""Options a call cannot work with are refused where they are given, as typed errors.

A quota project with CR/LF, a timeout of zero or less, and facts=None each failed late and
untyped (or, for the timeout, blamed the server and left gRPC for a minute).
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import pytest

from groundwire import AsyncGroundingClient, ConfigurationError, GroundingClient, InvalidArgument
from groundwire.contract import apis
from groundwire.contract.calls import TransportName
from tests.support.canned import CannedServers

CLIENTS = [GroundingClient, AsyncGroundingClient]


def ok_check(method: apis.Method, request: Any) -> Any:
    response: Any = method.response_class(support_score=1.0)
    response.claims.add(start_pos=0, end_pos=1, claim_text="x")
    return response


@pytest.fixture
def servers() -> Any:
    with CannedServers(ok_check) as running:
        yield running


def blamed(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    """groundwire's warnings and worse: a refused timeout must blame no server.

    grpc's own asyncio poller may log a BlockingIOError on some versions; it is not ours.
    """
    return [
        record
        for record in caplog.records
        if record.levelno >= logging.WARNING and record.name.startswith("groundwire")
    ]


def connected(client_class: Any, servers: CannedServers, **options: Any) -> Any:
    return client_class(
        "p", endpoint=servers.grpc_address, rest_endpoint=servers.http_url, **options
    )


@pytest.mark.parametrize("client_class", CLIENTS)
@pytest.mark.parametrize("transport", ["grpc", "rest"])
@pytest.mark.parametrize(
    ("options", "named"),
    [
        ({"quota_project": "billing\r\nX-Injected: 1"}, "quota_project"),
        ({"quota_project": "billing\nother"}, "quota_project"),
        ({"client_options": {"quota_project_id": "billing\r\nX-Injected: 1"}}, "quota_project_id"),
    ],
)
def test_a_quota_project_with_a_line_break_is_refused_at_construction(
    servers: CannedServers,
    client_class: Any,
    transport: TransportName,
    options: dict[str, Any],
    named: str,
) -> None:
    with pytest.raises(ConfigurationError, match=f"{named} must not hold control characters"):
        connected(client_class, servers, transport=transport, **options)
    assert servers.recorder.grpc_calls + servers.recorder.rest_calls == 0


@pytest.mark.parametrize("client_class", CLIENTS)
@pytest.mark.parametrize("timeout", [0, -1.0, float("nan")])
def test_a_client_timeout_of_zero_or_less_is_refused_at_construction(
    client_class: Any, timeout: float
) -> None:
    with pytest.raises(ConfigurationError, match="timeout must be positive"):
        client_class("p", endpoint="127.0.0.1:1", timeout=timeout)


@pytest.mark.parametrize("transport", ["auto", "grpc", "rest"])
@pytest.mark.parametrize("timeout", [0, -5.0])
def test_a_call_timeout_of_zero_or_less_is_refused_at_the_call_and_blames_no_server(
    servers: CannedServers,
    transport: TransportName,
    timeout: float,
    caplog: pytest.LogCaptureFixture,
) -> None:
    with connected(GroundingClient, servers, transport=transport) as client:
        with pytest.raises(ConfigurationError, match="timeout must be positive"):
            client.check_grounding("a", ["b"], timeout=timeout)
        with pytest.raises(ConfigurationError, match="timeout must be positive"):
            list(client.stream_generate_grounded_content("a", timeout=timeout))
        result = client.check_grounding("a", ["b"])  # and the client still calls over gRPC

    assert not blamed(caplog)
    assert result.claims[0].text == "x"
    if transport != "rest":
        assert (servers.recorder.grpc_calls, servers.recorder.rest_calls) == (1, 0)


async def test_an_async_call_timeout_of_zero_or_less_is_refused_at_the_call(
    servers: CannedServers, caplog: pytest.LogCaptureFixture
) -> None:
    async with connected(AsyncGroundingClient, servers) as client:
        with pytest.raises(ConfigurationError, match="timeout must be positive"):
            await client.check_grounding("a", ["b"], timeout=0)
        with pytest.raises(ConfigurationError, match="timeout must be positive"):
            [piece async for piece in client.stream_generate_grounded_content("a", timeout=-1)]
        await asyncio.wait_for(client.check_grounding("a", ["b"]), 10)

    assert not blamed(caplog)
    assert (servers.recorder.grpc_calls, servers.recorder.rest_calls) == (1, 0)


@pytest.mark.parametrize("facts", [None, 42])
def test_facts_that_are_no_list_are_an_invalid_argument(servers: CannedServers, facts: Any) -> None:
    with connected(GroundingClient, servers) as client:
        with pytest.raises(InvalidArgument, match="facts must be a list of facts"):
            client.check_grounding("a", facts)
        with pytest.raises(InvalidArgument, match="facts must be a list of facts"):
            client.corroborate_content("a", facts)
    assert servers.recorder.grpc_calls + servers.recorder.rest_calls == 0


@pytest.mark.parametrize(
    ("options", "reason"),
    [
        ({"timeout": 0}, "timeout must be positive"),
        ({"timeout": -1.0}, "timeout must be positive"),
        ({"concurrency": 0}, "concurrency must be a whole number"),
        ({"rate": 0.0}, "rate must be a positive number"),
    ],
)
def test_a_batch_of_nonsense_options_is_refused_with_a_configuration_error(
    servers: CannedServers, options: dict[str, Any], reason: str
) -> None:
    items = [{"answer_candidate": "a", "facts": ["b"]}]
    with (
        connected(GroundingClient, servers) as client,
        pytest.raises(ConfigurationError, match=reason),
    ):
        list(client.check_grounding_many(items, **options))
    assert servers.recorder.grpc_calls + servers.recorder.rest_calls == 0


@pytest.mark.parametrize("location", ["dns:127.0.0.1:1?", "dns:evil.example:443?", "Europe"])
@pytest.mark.parametrize("validate", [True, False])
def test_a_client_refuses_a_location_not_shaped_like_one(location: str, validate: bool) -> None:
    with pytest.raises(ConfigurationError, match=r"location .* is not a location"):
        GroundingClient("p", location=location, validate=validate)
