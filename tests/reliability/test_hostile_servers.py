"""A hostile server cannot exhaust the client: bombs, floods, trickled headers, blackholes."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
import threading
import time
import zlib
from collections.abc import Callable, Iterator
from concurrent import futures
from pathlib import Path
from typing import Any

import grpc
import pytest

from groundwire import AsyncGroundingClient, GroundingClient, RetryPolicy
from groundwire.contract import apis
from groundwire.contract.calls import TransportName
from groundwire.contract.errors import GroundwireError, Internal, MessageTooLarge
from tests.reliability.calls import bounded
from tests.reliability.raw_servers import RawServer, _read_request, silent
from tests.support.canned import CannedServers

PROJECT = "hostile-project"
ROOT = Path(__file__).resolve().parents[2]
MIB = 1024 * 1024
CAP_MIB = 64
FLOOD_MIB = 512  # far past the cap; a client without one holds all of it


# A JSON array whose first element holds a string that never ends: a stream reads it as fast
# as a body, so only the size cap can stop either.
ENDLESS_START = b'[{"claimText": "'


def gzip_bomb(decoded_mib: int) -> bytes:
    """`decoded_mib` MiB of an endless JSON string, gzip-compressed (about 1,000 times smaller)."""
    compressor = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    filler = b"x" * MIB
    parts = [compressor.compress(ENDLESS_START)]
    parts += [compressor.compress(filler) for _ in range(decoded_mib)]
    return b"".join(parts) + compressor.flush()


def serve_bomb(bomb: bytes) -> Callable[[socket.socket, threading.Event], None]:
    def handle(connection: socket.socket, stop: threading.Event) -> None:
        while _read_request(connection, stop):
            head = (
                "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                f"Content-Encoding: gzip\r\nContent-Length: {len(bomb)}\r\n\r\n"
            )
            connection.sendall(head.encode() + bomb)

    return handle


def flood(connection: socket.socket, stop: threading.Event) -> None:
    """A chunked body that goes on far past any cap, then waits, open, for the client to leave."""
    while _read_request(connection, stop):
        connection.settimeout(10)  # the client reads as fast as it can; give it time
        connection.sendall(
            b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
            b"Transfer-Encoding: chunked\r\n\r\n"
            + b"%x\r\n" % len(ENDLESS_START)
            + ENDLESS_START
            + b"\r\n"
        )
        piece = b"%x\r\n" % MIB + b"x" * MIB + b"\r\n"
        for _ in range(FLOOD_MIB):
            if stop.is_set():
                return
            connection.sendall(piece)
        stop.wait()


def probe(url: str) -> dict[str, Any]:
    """Runs the memory probe against `url` in a fresh process; returns its report."""
    finished = subprocess.run(
        [sys.executable, "-m", "tests.reliability.memory_probe", url],
        cwd=ROOT,
        capture_output=True,
        timeout=120,
        check=False,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
    )
    assert finished.returncode == 0, finished.stderr.decode()[-2000:]
    report: dict[str, Any] = json.loads(finished.stdout.decode().strip().splitlines()[-1])
    return report


def test_a_gzip_bomb_is_refused_within_a_small_multiple_of_the_cap() -> None:
    with RawServer(serve_bomb(gzip_bomb(FLOOD_MIB))) as server:
        report = probe(server.url)

    assert report["outcomes"] == ["MessageTooLarge"] * 4, report
    assert report["growth_mib"] < 4 * CAP_MIB, report


def test_an_endless_body_is_refused_within_a_small_multiple_of_the_cap() -> None:
    with RawServer(flood) as server:
        report = probe(server.url)

    assert report["outcomes"] == ["MessageTooLarge"] * 4, report
    assert report["growth_mib"] < 4 * CAP_MIB, report


def huge_check(method: apis.Method, request: Any) -> Any:
    response: Any = method.response_class(support_score=1.0)
    response.claims.add(claim_text="a" * (70 * MIB))
    return response


@pytest.mark.parametrize("transport", ["grpc", "rest"])
def test_a_response_over_the_size_limit_is_downloaded_once_and_not_retried(
    transport: TransportName,
) -> None:
    with CannedServers(huge_check) as servers:
        retry = RetryPolicy(initial=0.01, maximum=0.05)
        with GroundingClient(
            PROJECT,
            transport=transport,
            endpoint=servers.grpc_address,
            rest_endpoint=servers.http_url,
            timeout=15,
            retry=retry,
        ) as client:
            outcome = bounded(lambda: client.check_grounding("a", ["b"]), 30)
        calls = servers.recorder.grpc_calls + servers.recorder.rest_calls

    assert not outcome.hung
    assert isinstance(outcome.error, MessageTooLarge), repr(outcome.error)
    assert not outcome.error.retryable
    assert calls == 1


HEADER_PAUSE = 0.3
DEADLINE = 2.0
BOUND = 10.0
SLACK = 4.0  # generous: the trickle would hold a call for 30 s


def trickle(connection: socket.socket, stop: threading.Event) -> None:
    """Starts a 200 answer, then sends one header line every 0.3 s for 30 s, never the body."""
    if not _read_request(connection, stop):
        return
    connection.sendall(b"HTTP/1.1 200 OK\r\n")
    for line in range(100):
        if stop.wait(HEADER_PAUSE):
            return
        connection.sendall(b"X-Slow-%d: 1\r\n" % line)


def sync_call(client: GroundingClient, kind: str) -> Any:
    if kind == "unary":
        return client.check_grounding("a", ["b"])
    return list(client.stream_generate_grounded_content("a"))


async def async_call(client: AsyncGroundingClient, kind: str) -> Any:
    if kind == "unary":
        return await client.check_grounding("a", ["b"])
    return [piece async for piece in client.stream_generate_grounded_content("a")]


@pytest.mark.parametrize("kind", ["unary", "stream"])
@pytest.mark.parametrize("transport", ["grpc", "rest"])
def test_one_deadline_bounds_a_sync_call_while_headers_trickle_in(
    transport: TransportName, kind: str
) -> None:
    with (
        RawServer(trickle) as server,
        GroundingClient(
            PROJECT,
            transport=transport,
            endpoint=server.address,
            rest_endpoint=server.url,
            timeout=DEADLINE,
            retry=None,
        ) as client,
    ):
        outcome = bounded(lambda: sync_call(client, kind), BOUND)

    assert not outcome.hung, f"still waiting after {BOUND} s"
    assert isinstance(outcome.error, GroundwireError), repr(outcome.error)
    assert outcome.seconds < DEADLINE + SLACK


@pytest.mark.parametrize("kind", ["unary", "stream"])
@pytest.mark.parametrize("transport", ["grpc", "rest"])
async def test_one_deadline_bounds_an_async_call_while_headers_trickle_in(
    transport: TransportName, kind: str
) -> None:
    with RawServer(trickle) as server:
        async with AsyncGroundingClient(
            PROJECT,
            transport=transport,
            endpoint=server.address,
            rest_endpoint=server.url,
            timeout=DEADLINE,
            retry=None,
        ) as client:
            started = time.monotonic()
            with pytest.raises(GroundwireError):
                await asyncio.wait_for(async_call(client, kind), BOUND)
            seconds = time.monotonic() - started

    assert seconds < DEADLINE + SLACK


def ok_check(method: apis.Method, request: Any) -> Any:
    response: Any = method.response_class(support_score=1.0)
    response.claims.add(start_pos=0, end_pos=1, claim_text="a")
    return response


@pytest.fixture
def rest_behind_a_blackhole() -> Iterator[tuple[RawServer, CannedServers]]:
    """A gRPC port where TCP connects and nothing answers, and a REST server that works."""
    with RawServer(silent) as blackhole, CannedServers(ok_check) as servers:
        yield blackhole, servers


BLACKHOLE_TIMEOUT = 4.0


def test_auto_falls_back_to_rest_when_the_grpc_port_is_a_blackhole(
    rest_behind_a_blackhole: tuple[RawServer, CannedServers],
) -> None:
    blackhole, servers = rest_behind_a_blackhole
    with GroundingClient(
        PROJECT,
        endpoint=blackhole.address,
        rest_endpoint=servers.http_url,
        timeout=BLACKHOLE_TIMEOUT,
    ) as client:
        outcome = bounded(lambda: client.check_grounding("a", ["b"]), 3 * BLACKHOLE_TIMEOUT)

    assert outcome.error is None, repr(outcome.error)
    assert outcome.result.claims[0].text == "a"
    assert servers.recorder.rest_calls == 1


def test_an_auto_stream_falls_back_to_rest_when_the_grpc_port_is_a_blackhole(
    rest_behind_a_blackhole: tuple[RawServer, CannedServers],
) -> None:
    blackhole, servers = rest_behind_a_blackhole
    servers.behaviour = lambda method, request: [method.response_class()]
    with GroundingClient(
        PROJECT,
        endpoint=blackhole.address,
        rest_endpoint=servers.http_url,
        timeout=BLACKHOLE_TIMEOUT,
    ) as client:
        outcome = bounded(
            lambda: list(client.stream_generate_grounded_content("a")), 3 * BLACKHOLE_TIMEOUT
        )

    assert outcome.error is None, repr(outcome.error)
    assert len(outcome.result) == 1
    assert servers.recorder.rest_calls == 1


async def test_async_auto_falls_back_to_rest_when_the_grpc_port_is_a_blackhole(
    rest_behind_a_blackhole: tuple[RawServer, CannedServers],
) -> None:
    blackhole, servers = rest_behind_a_blackhole
    async with AsyncGroundingClient(
        PROJECT,
        endpoint=blackhole.address,
        rest_endpoint=servers.http_url,
        timeout=BLACKHOLE_TIMEOUT,
    ) as client:
        result = await asyncio.wait_for(client.check_grounding("a", ["b"]), 3 * BLACKHOLE_TIMEOUT)

    assert result.claims[0].text == "a"
    assert servers.recorder.rest_calls == 1


@pytest.fixture
def garbage_grpc_server() -> Iterator[str]:
    """A gRPC server whose CheckGrounding answers with bytes that are no protobuf message."""
    method = apis.method("discoveryengine", "v1", "CheckGrounding")
    service, name = method.grpc_path[1:].split("/")
    handler = grpc.method_handlers_generic_handler(
        service, {name: grpc.unary_unary_rpc_method_handler(lambda request, context: b"\xff" * 8)}
    )
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
    server.add_generic_rpc_handlers((handler,))
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    try:
        yield f"127.0.0.1:{port}"
    finally:
        server.stop(None)


async def test_async_grpc_response_bytes_that_do_not_parse_are_an_internal_error(
    garbage_grpc_server: str,
) -> None:
    async with AsyncGroundingClient(
        PROJECT, transport="grpc", endpoint=garbage_grpc_server, timeout=5, retry=None
    ) as client:
        with pytest.raises(Internal):
            await client.check_grounding("a", ["b"])


def test_sync_grpc_response_bytes_that_do_not_parse_are_an_internal_error(
    garbage_grpc_server: str,
) -> None:
    with (
        GroundingClient(
            PROJECT, transport="grpc", endpoint=garbage_grpc_server, timeout=5, retry=None
        ) as client,
        pytest.raises(Internal),
    ):
        client.check_grounding("a", ["b"])


def kilobyte_check(method: apis.Method, request: Any) -> Any:
    response: Any = method.response_class(support_score=1.0)
    response.claims.add(claim_text="a" * 2000)
    return response


@pytest.mark.parametrize("transport", ["grpc", "rest"])
async def test_the_size_limit_is_an_option_of_both_clients(transport: TransportName) -> None:
    with CannedServers(kilobyte_check) as servers:
        options: dict[str, Any] = {
            "transport": transport,
            "endpoint": servers.grpc_address,
            "rest_endpoint": servers.http_url,
            "max_response_bytes": 1000,
        }
        with GroundingClient(PROJECT, **options) as client, pytest.raises(MessageTooLarge):
            client.check_grounding("a", ["b"])
        async with AsyncGroundingClient(PROJECT, **options) as async_client:
            with pytest.raises(MessageTooLarge):
                await async_client.check_grounding("a", ["b"])
        with GroundingClient(PROJECT, **{**options, "max_response_bytes": 4000}) as client:
            assert len(client.check_grounding("a", ["b"]).claims[0].text) == 2000
