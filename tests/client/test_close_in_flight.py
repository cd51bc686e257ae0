"""Closing a client with calls in flight ends each of them in one typed error, never retried."""

from __future__ import annotations

import asyncio
import socket
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from groundwire import AsyncGroundingClient, GroundingClient, RetryPolicy
from groundwire.contract import apis
from groundwire.contract.calls import TransportName
from groundwire.contract.errors import ClientClosed
from tests.reliability.raw_servers import RawServer, silent
from tests.support.canned import CannedServers
from tests.support.held import HOLD_BOUND, Held

RETRY = RetryPolicy(initial=0.01, maximum=0.05)


def check(method: apis.Method, request: Any) -> Any:
    response: Any = method.response_class(support_score=1.0)
    response.claims.add(start_pos=0, end_pos=1, claim_text="a")
    return response


@pytest.fixture
def held() -> Held:
    """The servers' behaviour: each call is held until the test ends."""
    return Held(check)


@pytest.fixture
def slow_servers(held: Held) -> Iterator[CannedServers]:
    with CannedServers(held) as servers:
        try:
            yield servers
        finally:
            held.release()


def calls_seen(servers: CannedServers) -> int:
    return servers.recorder.grpc_calls + servers.recorder.rest_calls


@pytest.mark.parametrize("transport", ["grpc", "rest"])
def test_a_sync_call_in_flight_when_its_client_closes_gets_client_closed_once(
    slow_servers: CannedServers, held: Held, transport: TransportName
) -> None:
    client = GroundingClient(
        "p",
        transport=transport,
        endpoint=slow_servers.grpc_address,
        rest_endpoint=slow_servers.http_url,
        timeout=20,
        retry=RETRY,
    )
    outcome: list[BaseException] = []

    def call() -> None:
        try:
            client.check_grounding("a", ["b"])
        except BaseException as error:  # reported to the test, whatever it is
            outcome.append(error)

    thread = threading.Thread(target=call, daemon=True)
    thread.start()
    held.wait_arrived()
    client.close()
    thread.join(10)

    assert not thread.is_alive()
    assert len(outcome) == 1
    assert isinstance(outcome[0], ClientClosed), repr(outcome[0])
    assert outcome[0].code.name == "CANCELLED"
    assert calls_seen(slow_servers) == 1


@pytest.mark.parametrize("transport", ["grpc", "rest"])
async def test_an_async_call_in_flight_when_its_client_closes_gets_client_closed_once(
    slow_servers: CannedServers, held: Held, transport: TransportName
) -> None:
    client = AsyncGroundingClient(
        "p",
        transport=transport,
        endpoint=slow_servers.grpc_address,
        rest_endpoint=slow_servers.http_url,
        timeout=20,
        retry=RETRY,
    )
    call = asyncio.create_task(client.check_grounding("a", ["b"]))
    await asyncio.to_thread(held.wait_arrived)
    await client.close()

    with pytest.raises(ClientClosed):
        await asyncio.wait_for(call, 10)
    assert calls_seen(slow_servers) == 1


async def test_cancelling_an_async_call_still_raises_cancelled_error(
    slow_servers: CannedServers, held: Held
) -> None:
    async with AsyncGroundingClient(
        "p", transport="grpc", endpoint=slow_servers.grpc_address, timeout=20
    ) as client:
        call = asyncio.create_task(client.check_grounding("a", ["b"]))
        await asyncio.to_thread(held.wait_arrived)
        call.cancel()
        with pytest.raises(asyncio.CancelledError):
            await call


def test_a_call_on_a_closed_client_is_client_closed(slow_servers: CannedServers) -> None:
    client = GroundingClient("p", transport="grpc", endpoint=slow_servers.grpc_address)
    client.close()

    with pytest.raises(ClientClosed):
        client.check_grounding("a", ["b"])


CONNECTING_TIMEOUT = 60.0  # a connect budget of 15 s: closing must not wait for it to run out
CLOSE_BOUND = 3.0  # a hang guard only


class Blackhole(RawServer):
    """A loopback port that accepts TCP and never answers HTTP/2: gRPC stays connecting.

    `reached` is set once a client's TCP connection is accepted: its call is connecting.
    """

    def __init__(self) -> None:
        super().__init__(self._listen)
        self.reached = threading.Event()

    def _listen(self, connection: socket.socket, stop: threading.Event) -> None:
        self.reached.set()
        silent(connection, stop)

    def wait_reached(self) -> None:
        """Returns once a client is connecting (a failed assertion after the bound)."""
        assert self.reached.wait(HOLD_BOUND), f"no client connected in {HOLD_BOUND} s"


@pytest.fixture
def blackhole() -> Iterator[Blackhole]:
    server = Blackhole()
    with server:
        yield server


def sync_grpc_call(client: GroundingClient, kind: str) -> Any:
    if kind == "unary":
        return client.check_grounding("a", ["b"])
    return list(client.stream_generate_grounded_content("a"))


async def async_grpc_call(client: AsyncGroundingClient, kind: str) -> Any:
    if kind == "unary":
        return await client.check_grounding("a", ["b"])
    return [piece async for piece in client.stream_generate_grounded_content("a")]


@pytest.mark.parametrize("kind", ["unary", "stream"])
def test_closing_a_sync_client_while_its_grpc_call_connects_ends_the_call_at_once(
    blackhole: Blackhole, kind: str
) -> None:
    client = GroundingClient(
        "p", transport="grpc", endpoint=blackhole.address, timeout=CONNECTING_TIMEOUT
    )
    outcome: list[BaseException] = []

    def call() -> None:
        try:
            sync_grpc_call(client, kind)
        except BaseException as error:  # reported to the test, whatever it is
            outcome.append(error)

    thread = threading.Thread(target=call, daemon=True)
    thread.start()
    blackhole.wait_reached()
    closing = threading.Thread(target=client.close, daemon=True)
    closing.start()
    closing.join(CLOSE_BOUND)
    thread.join(CLOSE_BOUND)

    assert not closing.is_alive(), f"close() still blocked after {CLOSE_BOUND} s"
    assert not thread.is_alive(), f"the call still waited after {CLOSE_BOUND} s"
    assert len(outcome) == 1
    assert isinstance(outcome[0], ClientClosed), repr(outcome[0])


@pytest.mark.parametrize("kind", ["unary", "stream"])
async def test_closing_an_async_client_while_its_grpc_call_connects_ends_it_with_client_closed(
    blackhole: Blackhole, kind: str
) -> None:
    client = AsyncGroundingClient(
        "p", transport="grpc", endpoint=blackhole.address, timeout=CONNECTING_TIMEOUT
    )
    call = asyncio.create_task(async_grpc_call(client, kind))
    await asyncio.to_thread(blackhole.wait_reached)
    await asyncio.wait_for(client.close(), CLOSE_BOUND)

    with pytest.raises(ClientClosed):
        await asyncio.wait_for(call, CLOSE_BOUND)
