"""The constructor's transport settings reach the transports: channel options, TLS, pool limits."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterator
from concurrent import futures
from typing import Any

import pytest

from groundwire import (
    AsyncGroundingClient,
    ConfigurationError,
    GroundingClient,
    MessageTooLarge,
    PoolLimits,
    Unavailable,
)
from groundwire.contract import apis
from tests.support.canned import CannedServers
from tests.support.held import Held
from tests.transports import servers as transport_servers
from tests.transports.tls import Certificate, make_certificate, start_tls_rest_server


def ok_check(method: apis.Method, request: Any) -> Any:
    response: Any = method.response_class(support_score=1.0)
    response.claims.add(start_pos=0, end_pos=1, claim_text="a claim long enough to count")
    return response


class Overlap:
    """A behaviour that counts how many calls the server held at once.

    Each call is held until `until` calls are held at once (bounded by a generous guard, in
    case a pool never lets them in), then 0.2 s more, time for a call past a pool's bound to
    arrive: on a loaded machine, where threads start late, the overlap still happens.
    """

    def __init__(self, until: int = 1) -> None:
        self.now = self.most = 0
        self.until = until
        self.changed = threading.Condition()

    def __call__(self, method: apis.Method, request: Any) -> Any:
        with self.changed:
            self.now += 1
            self.most = max(self.most, self.now)
            self.changed.notify_all()
            self.changed.wait_for(lambda: self.most >= self.until, timeout=10)
        time.sleep(0.2)
        with self.changed:
            self.now -= 1
        return ok_check(method, request)


def test_grpc_options_reach_the_channel(servers: CannedServers) -> None:
    servers.behaviour = ok_check
    tiny = [("grpc.max_receive_message_length", 8)]
    with (
        GroundingClient(
            "p", transport="grpc", endpoint=servers.grpc_address, grpc_options=tiny, timeout=10
        ) as client,
        pytest.raises(MessageTooLarge),
    ):
        client.check_grounding("x", ["y"])
    with GroundingClient("p", transport="grpc", endpoint=servers.grpc_address) as client:
        assert client.check_grounding("x", ["y"]).support_score == 1.0


@pytest.mark.parametrize("options", [[("grpc.x", 1.5)], [("grpc.x",)], ["grpc.x=1"]])
def test_grpc_options_must_be_name_value_pairs(options: Any) -> None:
    with pytest.raises(ConfigurationError, match="grpc_options"):
        GroundingClient("p", grpc_options=options)


@pytest.fixture(scope="module")
def certificate(tmp_path_factory: pytest.TempPathFactory) -> Certificate:
    return make_certificate(tmp_path_factory.mktemp("tls"))


@pytest.fixture
def tls_rest(certificate: Certificate) -> Iterator[transport_servers.RestServer]:
    server = start_tls_rest_server(certificate)
    yield server
    server.shutdown()
    server.server_close()


def test_an_ssl_context_is_what_rest_calls_use(
    certificate: Certificate, tls_rest: transport_servers.RestServer
) -> None:
    url = f"https://127.0.0.1:{tls_rest.server_address[1]}"
    untrusting = GroundingClient("p", transport="rest", rest_endpoint=url, retry=None)
    with untrusting, pytest.raises(Unavailable):  # the system's roots do not trust it
        untrusting.check_grounding("x", ["y"])
    context = certificate.client_context()
    with GroundingClient(
        "p", transport="rest", rest_endpoint=url, ssl_context=context, timeout=10
    ) as client:
        client.check_grounding("x", ["y"])
    assert tls_rest.seen.calls == 1
    assert "authorization" not in tls_rest.seen.metadata[0]


def test_the_async_client_uses_the_ssl_context_too(
    certificate: Certificate, tls_rest: transport_servers.RestServer
) -> None:
    url = f"https://127.0.0.1:{tls_rest.server_address[1]}"

    async def run() -> None:
        async with AsyncGroundingClient(
            "p",
            transport="rest",
            rest_endpoint=url,
            ssl_context=certificate.client_context(),
            timeout=10,
        ) as client:
            await client.check_grounding("x", ["y"])

    asyncio.run(run())
    assert tls_rest.seen.calls == 1


def test_an_ssl_context_must_be_one() -> None:
    with pytest.raises(ConfigurationError, match=r"ssl\.SSLContext"):
        GroundingClient("p", ssl_context="/etc/ssl/cert.pem")  # type: ignore[arg-type]


def calls_at_once(client: GroundingClient, count: int) -> None:
    with futures.ThreadPoolExecutor(count) as pool:
        for result in [pool.submit(client.check_grounding, "x", ["y"]) for _ in range(count)]:
            result.result(timeout=30)


def test_max_connections_bounds_the_sync_rest_pool(servers: CannedServers) -> None:
    servers.behaviour = overlap = Overlap()
    with GroundingClient(
        "p",
        transport="rest",
        rest_endpoint=servers.http_url,
        pool_limits=PoolLimits(max_connections=1),
        timeout=20,
    ) as client:
        calls_at_once(client, 4)
    assert overlap.most == 1
    servers.behaviour = overlap = Overlap(until=2)
    with GroundingClient("p", transport="rest", rest_endpoint=servers.http_url) as client:
        calls_at_once(client, 4)
    assert overlap.most > 1


def test_max_connections_bounds_the_async_rest_pool(servers: CannedServers) -> None:
    async def run(limits: PoolLimits | None) -> None:
        async with AsyncGroundingClient(
            "p", transport="rest", rest_endpoint=servers.http_url, pool_limits=limits, timeout=20
        ) as client:
            await asyncio.gather(*(client.check_grounding("x", ["y"]) for _ in range(4)))

    servers.behaviour = overlap = Overlap(until=2)
    asyncio.run(run(PoolLimits(max_connections=2)))
    assert overlap.most == 2
    servers.behaviour = overlap = Overlap(until=3)
    asyncio.run(run(None))
    assert overlap.most > 2


def test_a_call_waiting_for_a_busy_pool_keeps_its_timeout(servers: CannedServers) -> None:
    from groundwire import DeadlineExceeded

    servers.behaviour = busy = Held(ok_check)
    with (
        GroundingClient(
            "p",
            transport="rest",
            rest_endpoint=servers.http_url,
            pool_limits=PoolLimits(max_connections=1),
            retry=None,
            timeout=20,
        ) as client,
        futures.ThreadPoolExecutor(1) as pool,
    ):
        first = pool.submit(client.check_grounding, "x", ["y"])
        busy.wait_arrived()  # the pool's one connection carries the first call
        try:
            with pytest.raises(DeadlineExceeded):
                client.check_grounding("x", ["y"], timeout=0.3)
        finally:
            busy.release()
        first.result(timeout=10)


@pytest.mark.parametrize("limits", [{"max_connections": 0}, {"max_idle": -1}])
def test_pool_limits_are_checked(limits: dict[str, int]) -> None:
    with pytest.raises(ValueError, match="PoolLimits"):
        PoolLimits(**limits)


def test_pool_limits_must_be_groundwires_type() -> None:
    with pytest.raises(ConfigurationError, match="PoolLimits"):
        GroundingClient("p", pool_limits={"max_connections": 1})  # type: ignore[arg-type]


@pytest.fixture
def rest_server() -> Iterator[transport_servers.RestServer]:
    server = transport_servers.start_rest_server()
    yield server
    server.shutdown()
    server.server_close()


def test_max_idle_zero_keeps_no_connection_between_calls(
    rest_server: transport_servers.RestServer,
) -> None:
    for limits in (PoolLimits(max_idle=0), PoolLimits()):
        with GroundingClient(
            "p", transport="rest", rest_endpoint=rest_server.base_url, pool_limits=limits
        ) as client:
            client.check_grounding("x", ["y"])
            client.check_grounding("x", ["y"])
    fresh, reused = rest_server.seen.peers[:2], rest_server.seen.peers[2:]
    assert fresh[0] != fresh[1]  # max_idle=0: a new connection for each call
    assert reused[0] == reused[1]  # the default keeps it for the next call


def test_the_async_pool_honours_max_idle_too(rest_server: transport_servers.RestServer) -> None:
    async def two_calls(limits: PoolLimits) -> None:
        async with AsyncGroundingClient(
            "p", transport="rest", rest_endpoint=rest_server.base_url, pool_limits=limits
        ) as client:
            await client.check_grounding("x", ["y"])
            await client.check_grounding("x", ["y"])

    asyncio.run(two_calls(PoolLimits(max_idle=0)))
    asyncio.run(two_calls(PoolLimits()))
    fresh, reused = rest_server.seen.peers[:2], rest_server.seen.peers[2:]
    assert fresh[0] != fresh[1]
    assert reused[0] == reused[1]
