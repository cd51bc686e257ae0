"""Loopback traffic never goes through a proxy from the environment, whatever it names."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest

from groundwire import AsyncGroundingClient, GroundingClient
from groundwire.contract import apis
from groundwire.contract.calls import TransportName
from tests.support.canned import CannedServers
from tests.transports.proxy import ProxyServer

PROXY_VARIABLES = ("http_proxy", "https_proxy", "grpc_proxy", "all_proxy")


def ok_check(method: apis.Method, request: Any) -> Any:
    response: Any = method.response_class(support_score=1.0)
    response.claims.add(start_pos=0, end_pos=1, claim_text="a")
    return response


@pytest.fixture
def recording_proxy(monkeypatch: pytest.MonkeyPatch) -> Iterator[ProxyServer]:
    """A working forward proxy on loopback, named by every proxy variable there is."""
    proxy = ProxyServer()
    import threading

    thread = threading.Thread(target=proxy.serve_forever, daemon=True)
    thread.start()
    for name in PROXY_VARIABLES:
        monkeypatch.setenv(name, proxy.url)
        monkeypatch.setenv(name.upper(), proxy.url)
    monkeypatch.delenv("no_proxy", raising=False)
    monkeypatch.delenv("NO_PROXY", raising=False)
    try:
        yield proxy
    finally:
        proxy.shutdown()
        proxy.server_close()
        thread.join(5)


@pytest.fixture
def servers() -> Iterator[CannedServers]:
    with CannedServers(ok_check) as running:
        yield running


@pytest.mark.parametrize("transport", ["grpc", "rest"])
def test_sync_calls_to_loopback_bypass_the_environment_proxies(
    recording_proxy: ProxyServer, servers: CannedServers, transport: TransportName
) -> None:
    with GroundingClient(
        "p", transport=transport, endpoint=servers.grpc_address, rest_endpoint=servers.http_url
    ) as client:
        assert client.check_grounding("a", ["b"]).claims[0].text == "a"

    assert recording_proxy.seen.requests == []
    assert servers.recorder.grpc_calls + servers.recorder.rest_calls == 1


@pytest.mark.parametrize("transport", ["grpc", "rest"])
async def test_async_calls_to_loopback_bypass_the_environment_proxies(
    recording_proxy: ProxyServer, servers: CannedServers, transport: TransportName
) -> None:
    async with AsyncGroundingClient(
        "p", transport=transport, endpoint=servers.grpc_address, rest_endpoint=servers.http_url
    ) as client:
        result = await asyncio.wait_for(client.check_grounding("a", ["b"]), 10)

    assert result.claims[0].text == "a"
    assert recording_proxy.seen.requests == []
