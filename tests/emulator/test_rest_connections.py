"""REST connections: one peer cannot take every slot, framing is strict, refusals log quietly."""

from __future__ import annotations

import logging
import socket
from urllib.parse import urlsplit

import httpx
import pytest

from groundwire.emulator import Emulator, emulator
from groundwire.emulator.http_server import MAX_HEAD_BYTES
from groundwire.emulator.limits import Limits
from tests.emulator.support import CHECK_BODY, CHECK_PATH
from tests.emulator.test_rest_hostile_clients import (
    HANG_BOUND,
    connect,
    json_body,
    opened,
    read_until_closed,
    stalled_upload,
    wait_until_let_go,
    wait_until_read,
)

pytestmark = pytest.mark.timeout(60)

TLS_CLIENT_HELLO = bytes.fromhex("16030100c8010000c40303") + bytes(32) + b"\x00\x00\x02\x13\x01"
"""The start of a TLS handshake, as a client that mistook the emulator for HTTPS sends it."""


def send_and_hang_up(emu: Emulator, data: bytes) -> int:
    """Sends `data` and closes at once, reading nothing: the server's answer meets a reset.

    Returns the connection's client port.
    """
    with connect(emu) as connection:
        connection.sendall(data)
        return int(connection.getsockname()[1])


@pytest.mark.parametrize("junk", [TLS_CLIENT_HELLO, b"\x00\xff junk \r\n\r\n"], ids=["tls", "junk"])
def test_clients_that_send_junk_and_hang_up_leave_no_traceback_in_the_log(
    emu: Emulator, caplog: pytest.LogCaptureFixture, junk: bytes
) -> None:
    with caplog.at_level(logging.DEBUG):
        client_ports = [send_and_hang_up(emu, junk) for _ in range(8)]
        wait_until_let_go(emu, client_ports)  # the server has answered, or tried to, every one
        response = httpx.post(emu.http_url + CHECK_PATH, json=CHECK_BODY, timeout=10.0)
    assert response.status_code == 200
    problems = [r for r in caplog.records if r.exc_info or r.levelno >= logging.ERROR]
    assert [r.getMessage() for r in problems] == []


def check_request_with_head_of(size: int) -> bytes:
    """A valid check request whose head (request line and headers) is exactly `size` bytes."""
    body = json_body(CHECK_BODY)
    head = (
        f"POST {CHECK_PATH} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\nX-Padding: \r\n\r\n"
    ).encode()
    padding = size - len(head)
    assert padding > 0
    return head.replace(b"X-Padding: ", b"X-Padding: " + b"p" * padding) + body


def answer_to(emu: Emulator, request: bytes, parts: int = 1) -> bytes:
    """The server's answer to `request`, sent in `parts` writes, each read before the next."""
    step = -(-len(request) // parts)
    with connect(emu) as connection:
        for start in range(0, len(request), step):
            connection.sendall(request[start : start + step])
            wait_until_read(connection, or_closed=True)  # a refusal closes it
        connection.shutdown(socket.SHUT_WR)
        return read_until_closed(connection)


@pytest.mark.parametrize("parts", [1, 3], ids=["in-one-read", "over-several-reads"])
def test_a_request_head_over_64_kib_is_a_431_however_it_arrives(emu: Emulator, parts: int) -> None:
    over = answer_to(emu, check_request_with_head_of(70_187), parts)
    assert over.startswith(b"HTTP/1.1 431 "), over[:200]
    at_the_limit = answer_to(emu, check_request_with_head_of(MAX_HEAD_BYTES), parts)
    assert at_the_limit.startswith(b"HTTP/1.1 200 "), at_the_limit[:200]
    pipelined = answer_to(emu, check_request_with_head_of(1_000) * 99, parts)
    assert pipelined.count(b"HTTP/1.1 200 ") == 99  # each head is its own, not the pipeline's


def test_a_request_framed_by_both_length_and_chunks_is_answered_and_the_connection_closed(
    emu: Emulator,
) -> None:
    body = json_body(CHECK_BODY)
    smuggling = (
        f"POST {CHECK_PATH} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body) + 7}\r\nTransfer-Encoding: chunked\r\n\r\n"
        f"{len(body):x}\r\n".encode()
        + body
        + b"\r\n0\r\n\r\n"
    )
    second = f"GET {CHECK_PATH} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode()
    with connect(emu) as connection:
        connection.sendall(smuggling + second)
        answers = read_until_closed(connection)
    assert answers.startswith(b"HTTP/1.1 200 "), answers[:200]
    assert answers.count(b"HTTP/1.1 ") == 1, answers
    assert b"\r\nconnection: close\r\n" in answers.lower()


IDLE_HOLD = 1_100
PROBES = 19


def connect_from(emu: Emulator, address: str) -> socket.socket:
    """A connection to the emulator's REST port from `address` (loopback has 127/8)."""
    url = urlsplit(emu.http_url)
    assert url.hostname is not None
    assert url.port is not None
    return socket.create_connection(
        (url.hostname, url.port), timeout=HANG_BOUND, source_address=(address, 0)
    )


def post_check(emu: Emulator) -> int:
    return httpx.post(emu.http_url + CHECK_PATH, json=CHECK_BODY, timeout=HANG_BOUND).status_code


def test_at_the_cap_the_oldest_idle_connection_makes_room_for_a_new_one() -> None:
    with (
        emulator(limits=Limits(max_connections=10)) as emu,
        opened(10, lambda: connect(emu)) as idle,
    ):
        wait_until_read(*idle)  # the server has accepted all ten; none has sent a request
        assert post_check(emu) == 200
        assert read_until_closed(idle[0]) == b""  # the oldest was closed for it
        idle[-1].sendall(f"GET {CHECK_PATH} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
        assert idle[-1].recv(65536).startswith(b"HTTP/1.1 405 ")  # the newest still serves


def test_one_peer_cannot_take_every_connection_from_the_others() -> None:
    limits = Limits(max_connections=100, max_connections_per_peer=4, body_timeout=HANG_BOUND)
    with emulator(limits=limits) as emu, opened(4, lambda: stalled_upload(emu)) as busy:
        wait_until_read(*busy)  # four busy connections from 127.0.0.1, its share
        with connect(emu) as fifth:
            fifth.sendall(f"POST {CHECK_PATH} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
            assert read_until_closed(fifth).startswith(b"HTTP/1.1 429 ")
        with connect_from(emu, "127.0.0.2") as other:
            other.sendall(f"GET {CHECK_PATH} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
            assert other.recv(65536).startswith(b"HTTP/1.1 405 ")


@pytest.mark.slow
def test_a_client_holding_1100_idle_connections_does_not_stop_others_being_answered() -> None:
    with emulator() as emu, opened(IDLE_HOLD, lambda: connect(emu)):
        activity = emu.activity
        assert activity is not None
        assert activity.wait_until(  # the server has accepted every one it will
            lambda now: now.connections_accepted >= IDLE_HOLD, timeout=HANG_BOUND
        )
        answered = sum(post_check(emu) == 200 for _ in range(PROBES))
    assert answered == PROBES
