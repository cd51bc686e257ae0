"""Every call takes extra `metadata=` and a `retry=` override, the same in both clients."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest

from groundwire import AsyncGroundingClient, GroundingClient, InvalidArgument, RetryPolicy
from groundwire.contract import apis, errors
from groundwire.contract.calls import TransportName
from groundwire.wire import error_codecs
from tests.support.canned import CannedServers

FAST_RETRY = RetryPolicy(initial=0.01, maximum=0.05, timeout=10.0)


def ok_check(method: apis.Method, request: Any) -> Any:
    response: Any = method.response_class(support_score=1.0)
    response.claims.add(start_pos=0, end_pos=1, claim_text="x")
    return response


def ok_generate(method: apis.Method, request: Any) -> Any:
    response: Any = method.response_class()
    response.candidates.add(index=0).content.parts.add(text="ok")
    return [response] if method.client_streaming else response


def ok_any(method: apis.Method, request: Any) -> Any:
    if method.name == "CheckGrounding":
        return ok_check(method, request)
    if method.name == "CorroborateContent":
        return method.response_class(corroboration_score=0.5)
    return ok_generate(method, request)


def failing(times: int) -> Callable[[apis.Method, Any], Any]:
    state = {"calls": 0}

    def behaviour(method: apis.Method, request: Any) -> Any:
        state["calls"] += 1
        if state["calls"] <= times:
            raise error_codecs.error_from_status(14, "busy")
        return ok_check(method, request)

    return behaviour


def client_for(servers: CannedServers, transport: TransportName, **options: Any) -> Any:
    return GroundingClient(
        "p",
        transport=transport,
        endpoint=servers.grpc_address,
        rest_endpoint=servers.http_url,
        timeout=10,
        **options,
    )


def every_call(client: GroundingClient, **per_call: Any) -> None:
    """Makes one call of each public method with the same per-call options."""
    client.check_grounding("x", ["y"], **per_call)
    client.corroborate_content("x", ["y"], **per_call)
    client.generate_grounded_content("x", **per_call)
    list(client.stream_generate_grounded_content("x", **per_call))


@pytest.mark.parametrize("transport", ["grpc", "rest"])
def test_extra_metadata_reaches_the_server_on_every_method(
    servers: CannedServers, transport: TransportName
) -> None:
    servers.behaviour = ok_any
    with client_for(servers, transport) as client:
        every_call(client, metadata={"x-tenant": "blue"})
        every_call(client, metadata=[("x-tenant", "green")])
    seen = servers.recorder.metadata
    assert [headers["x-tenant"] for headers in seen] == ["blue"] * 4 + ["green"] * 4
    assert all(
        headers["x-goog-request-params"].startswith(
            ("name=", "parent=", "grounding_config=", "location=")
        )
        for headers in seen
    )


def test_the_async_client_sends_extra_metadata_on_every_method(servers: CannedServers) -> None:
    servers.behaviour = ok_any

    async def run() -> None:
        async with AsyncGroundingClient(
            "p", transport="grpc", endpoint=servers.grpc_address, timeout=10
        ) as client:
            metadata = {"x-tenant": "blue"}
            await client.check_grounding("x", ["y"], metadata=metadata)
            await client.corroborate_content("x", ["y"], metadata=metadata)
            await client.generate_grounded_content("x", metadata=metadata)
            async for _ in client.stream_generate_grounded_content("x", metadata=metadata):
                pass

    asyncio.run(run())
    assert [headers["x-tenant"] for headers in servers.recorder.metadata] == ["blue"] * 4


def test_a_per_call_quota_project_replaces_the_clients(servers: CannedServers) -> None:
    servers.behaviour = ok_check
    with client_for(servers, "rest", quota_project="billing") as client:
        client.check_grounding("x", ["y"], metadata={"x-goog-user-project": "other"})
    headers = servers.recorder.metadata[0]
    assert headers["x-goog-user-project"] == "other"


@pytest.mark.parametrize(
    ("metadata", "words"),
    [
        ({"X-Tenant": "blue"}, "lower-case"),
        ({"x-goog-request-params": "name=other"}, "set by the client"),
        ({"authorization": "Bearer stolen"}, "set by the client"),
        ({"x-tenant": "blue\r\nx-injected: yes"}, "printable ASCII"),
        ({"trace-bin": "AAEC"}, "binary"),
    ],
)
def test_bad_metadata_is_refused_before_anything_is_sent(
    servers: CannedServers, metadata: dict[str, str], words: str
) -> None:
    servers.behaviour = ok_check
    with client_for(servers, "auto") as client, pytest.raises(InvalidArgument, match=words):
        client.check_grounding("x", ["y"], metadata=metadata)
    assert servers.recorder.metadata == []


@pytest.mark.parametrize("transport", ["grpc", "rest"])
def test_retry_none_on_a_call_stops_the_clients_retries(
    servers: CannedServers, transport: TransportName
) -> None:
    servers.behaviour = failing(1)
    with client_for(servers, transport, retry=FAST_RETRY) as client:
        with pytest.raises(errors.Unavailable):
            client.check_grounding("x", ["y"], retry=None)
        assert client.check_grounding("x", ["y"]).claims[0].text == "x"  # the client's policy
    assert servers.recorder.grpc_calls + servers.recorder.rest_calls == 2


def test_a_per_call_policy_retries_on_a_client_that_does_not(servers: CannedServers) -> None:
    servers.behaviour = failing(2)
    with client_for(servers, "grpc", retry=None) as client:
        assert client.check_grounding("x", ["y"], retry=FAST_RETRY).claims[0].text == "x"
    assert servers.recorder.grpc_calls == 3


def test_a_per_call_policy_bounds_a_stream_too(servers: CannedServers) -> None:
    state = {"calls": 0}

    def flaky_stream(method: apis.Method, request: Any) -> Any:
        state["calls"] += 1
        if state["calls"] == 1:
            raise error_codecs.error_from_status(14, "busy")
        return ok_generate(method, request)

    servers.behaviour = flaky_stream
    with client_for(servers, "grpc", retry=None) as client:
        pieces = list(client.stream_generate_grounded_content("x", retry=FAST_RETRY))
    assert [piece.text for piece in pieces] == ["ok"]
    assert state["calls"] == 2


def test_the_async_client_takes_a_per_call_policy(servers: CannedServers) -> None:
    servers.behaviour = failing(1)

    async def run() -> str:
        async with AsyncGroundingClient(
            "p", transport="rest", rest_endpoint=servers.http_url, retry=None, timeout=10
        ) as client:
            with pytest.raises(errors.Unavailable):
                await client.check_grounding("x", ["y"])
            servers.behaviour = failing(1)
            result = await client.check_grounding("x", ["y"], retry=FAST_RETRY)
            return result.claims[0].text

    assert asyncio.run(run()) == "x"
    assert servers.recorder.rest_calls == 3
