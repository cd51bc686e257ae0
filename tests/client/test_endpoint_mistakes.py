"""Common endpoint mistakes get errors that say what to do instead."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from groundwire import AsyncGroundingClient, EndpointError, GroundingClient, InvalidArgument
from groundwire.contract import apis, errors
from groundwire.contract.calls import TransportName
from tests.support.canned import CannedServers

# What Discovery Engine answers when a regional data store is reached through the global host.
WRONG_ENDPOINT = (
    'Incorrect API endpoint used. The current endpoint can only serve traffic from "global" '
    'region, but got "us" region from the API request. Please follow '
    "https://cloud.google.com/generative-ai-app-builder/docs/locations to use the correct "
    "regional API endpoint."
)


def wrong_endpoint(method: apis.Method, request: Any) -> Any:
    raise errors.InvalidArgument(WRONG_ENDPOINT)


@pytest.mark.parametrize("scheme", ["https", "http"])
def test_a_url_as_the_grpc_endpoint_says_to_drop_the_scheme_or_use_rest_endpoint(
    scheme: str,
) -> None:
    client = GroundingClient("p", endpoint=f"{scheme}://eu-discoveryengine.googleapis.com")
    with pytest.raises(EndpointError) as raised:
        client.check_grounding("x", ["y"])
    message = str(raised.value)
    assert f"drop {scheme}://" in message
    assert "eu-discoveryengine.googleapis.com:443" in message
    assert "rest_endpoint=" in message


@pytest.mark.parametrize("transport", ["grpc", "rest"])
def test_incorrect_api_endpoint_names_the_regional_host(
    servers: CannedServers, transport: TransportName
) -> None:
    servers.behaviour = wrong_endpoint
    client = GroundingClient(
        "p",
        transport=transport,
        endpoint=servers.grpc_address,
        rest_endpoint=servers.http_url,
        timeout=10,
    )
    with client, pytest.raises(InvalidArgument) as raised:
        client.check_grounding("x", ["y"])
    message = raised.value.message
    assert message.startswith("Incorrect API endpoint used.")
    assert "us-discoveryengine.googleapis.com" in message
    assert "location='us'" in message
    assert raised.value.http_status == 400


def test_the_region_is_read_from_the_request_when_the_server_does_not_name_it(
    servers: CannedServers,
) -> None:
    def terse(method: apis.Method, request: Any) -> Any:
        raise errors.InvalidArgument("Incorrect API endpoint used.")

    servers.behaviour = terse
    serving_config = (
        "projects/p/locations/eu/collections/default_collection/engines/e/servingConfigs/s"
    )
    client = GroundingClient("p", transport="grpc", endpoint=servers.grpc_address)
    with client, pytest.raises(InvalidArgument, match=r"eu-discoveryengine\.googleapis\.com"):
        client.generate_grounded_content("x", serving_config=serving_config)


def test_a_stream_and_the_async_client_explain_it_too(servers: CannedServers) -> None:
    servers.behaviour = wrong_endpoint

    async def run() -> None:
        async with AsyncGroundingClient(
            "p", transport="rest", rest_endpoint=servers.http_url, timeout=10
        ) as client:
            with pytest.raises(InvalidArgument, match="us-discoveryengine"):
                await client.check_grounding("x", ["y"])
            with pytest.raises(InvalidArgument, match="us-discoveryengine"):
                async for _ in client.stream_generate_grounded_content("x"):
                    pass

    asyncio.run(run())
    client = GroundingClient("p", transport="grpc", endpoint=servers.grpc_address)
    with client, pytest.raises(InvalidArgument, match="us-discoveryengine"):
        list(client.stream_generate_grounded_content("x"))


def test_other_invalid_arguments_are_left_as_they_are(servers: CannedServers) -> None:
    def invalid(method: apis.Method, request: Any) -> Any:
        raise errors.InvalidArgument("facts[0] is too long")

    servers.behaviour = invalid
    client = GroundingClient("p", transport="grpc", endpoint=servers.grpc_address)
    with client, pytest.raises(InvalidArgument) as raised:
        client.check_grounding("x", ["y"])
    assert raised.value.message == "facts[0] is too long"
