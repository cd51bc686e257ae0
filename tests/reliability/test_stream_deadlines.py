"""A REST stream ends at its deadline however fast the server sends, and however small the gzip.

A burst of a million tiny elements arrives before the first is decoded, and 3 KB of gzip inflate
to as many: a reader that looks at the clock only between reads decodes them all, for seconds
past the deadline (or, on asyncio, to the end with no error at all).
"""

from __future__ import annotations

import asyncio
import socket
import threading
import time
import zlib
from typing import Any

import pytest

from groundwire import AsyncGroundingClient, GroundingClient
from groundwire.contract.errors import DeadlineExceeded
from tests.reliability.calls import Outcome, bounded
from tests.reliability.raw_servers import RawServer, _read_request

PROJECT = "deadline-project"
DEADLINE = 1.0
BOUND = 5 * DEADLINE  # a hang guard only: a fixed reader stops about when the deadline passes
BURST = 1_000_000
GZIP_ELEMENTS = 10_000_000  # 30 MB of elements, about 30 KB on the wire
PAUSE = 50e-6  # what the caller does with each piece: a MiB already received is 20 s of it


def array_of_empty_objects(count: int) -> bytes:
    return b"[" + b",".join([b"{}"] * count) + b"]"


def gzipped(data: bytes) -> bytes:
    compressor = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    return compressor.compress(data) + compressor.flush()


def answer_at_once(body: bytes, *, gzip: bool) -> Any:
    """Answers the request with all of `body` in one write, gzip-labelled or not."""
    coding = "Content-Encoding: gzip\r\n" if gzip else ""
    head = (
        f"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n{coding}"
        f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
    ).encode()

    def handle(connection: socket.socket, stop: threading.Event) -> None:
        if _read_request(connection, stop):
            connection.settimeout(30)  # the client may stop reading: it has a deadline
            connection.sendall(head + body)

    return handle


def sync_stream(url: str, pause: float) -> int:
    with GroundingClient(
        PROJECT, transport="rest", rest_endpoint=url, timeout=DEADLINE, retry=None
    ) as client:
        count = 0
        for _ in client.stream_generate_grounded_content("a"):
            time.sleep(pause)
            count += 1
        return count


def async_stream(url: str, pause: float) -> int:
    async def read() -> int:
        async with AsyncGroundingClient(
            PROJECT, transport="rest", rest_endpoint=url, timeout=DEADLINE, retry=None
        ) as client:
            count = 0
            async for _ in client.stream_generate_grounded_content("a"):
                time.sleep(pause)  # the caller's own work on each piece, with no await
                count += 1
            return count

    return asyncio.run(read())


def stream_against(body: bytes, *, gzip: bool, flavour: str, pause: float = 0.0) -> Outcome:
    """Streams `body` from a server that sends it in one write; `pause`: work per piece."""
    call = sync_stream if flavour == "sync" else async_stream
    with RawServer(answer_at_once(body, gzip=gzip)) as server:
        # Run on a thread: an event loop that never yields cannot be cancelled from within.
        return bounded(lambda: call(server.url, pause), BOUND)


@pytest.mark.slow
@pytest.mark.parametrize("flavour", ["sync", "async"])
def test_a_burst_of_a_million_tiny_elements_ends_at_the_deadline(flavour: str) -> None:
    body = array_of_empty_objects(BURST)

    outcome = stream_against(body, gzip=False, flavour=flavour, pause=PAUSE)

    assert not outcome.hung, f"still decoding {BOUND} s into a {DEADLINE} s call"
    assert isinstance(outcome.error, DeadlineExceeded), repr(outcome.error or outcome.result)


@pytest.mark.slow
@pytest.mark.parametrize("flavour", ["sync", "async"])
def test_a_small_gzip_body_of_millions_of_elements_ends_at_the_deadline(flavour: str) -> None:
    body = gzipped(array_of_empty_objects(GZIP_ELEMENTS))
    assert len(body) < 64 * 1024

    outcome = stream_against(body, gzip=True, flavour=flavour)

    assert not outcome.hung, f"still decoding {BOUND} s into a {DEADLINE} s call"
    assert isinstance(outcome.error, DeadlineExceeded), repr(outcome.error or outcome.result)
