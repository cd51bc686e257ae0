"""The REST gateway survives stalled uploads, silent connections and malformed bodies."""

from __future__ import annotations

import contextlib
import gzip
import logging
import socket
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest
from google.protobuf.message import Message

from groundwire.contract.apis import Method
from groundwire.emulator import Emulator, emulator, service
from groundwire.emulator.limits import Limits
from tests.emulator.support import CHECK_BODY, CHECK_PATH, STREAM_PATH, generate_json

pytestmark = pytest.mark.timeout(60)

STALLED_UPLOADS = 40
HANG_BOUND = 10.0
"""Generous: only a hang takes this long."""
ABANDON_BOUND = 2.0
"""A stream the client never reads is let go this soon after the write timeout (0.5 s)."""


def connect(emu: Emulator) -> socket.socket:
    url = urlsplit(emu.http_url)
    assert url.hostname is not None
    assert url.port is not None
    return socket.create_connection((url.hostname, url.port), timeout=HANG_BOUND)


def stalled_upload(emu: Emulator) -> socket.socket:
    """Headers for a 1,000-byte body, then 10 bytes of it, then silence."""
    connection = connect(emu)
    connection.sendall(
        f"POST {CHECK_PATH} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        'Content-Length: 1000\r\n\r\n{"answerCa'.encode()
    )
    return connection


@contextmanager
def opened(count: int, open_one: object) -> Iterator[list[socket.socket]]:
    with ExitStack() as stack:
        sockets = []
        for _ in range(count):
            connection = open_one()  # type: ignore[operator]
            stack.enter_context(connection)
            sockets.append(connection)
        yield sockets


def read_until_closed(connection: socket.socket) -> bytes:
    """Everything the server sends until it closes the connection (bounded by the timeout)."""
    received = b""
    with contextlib.suppress(ConnectionResetError):
        while chunk := connection.recv(65536):
            received += chunk
    return received


def test_stalled_uploads_do_not_block_other_requests() -> None:
    with emulator() as emu, opened(STALLED_UPLOADS, lambda: stalled_upload(emu)) as stalled:
        wait_until_read(*stalled)  # every head, and the body's start
        for _ in range(3):
            response = httpx.post(emu.http_url + CHECK_PATH, json=CHECK_BODY, timeout=HANG_BOUND)
            assert response.status_code == 200


def test_a_stalled_body_times_out_with_a_408_in_googles_error_shape() -> None:
    with emulator(limits=Limits(body_timeout=0.5)) as emu, stalled_upload(emu) as connection:
        answer = read_until_closed(connection).decode()
    assert answer.startswith("HTTP/1.1 408 "), answer
    assert '"status":"DEADLINE_EXCEEDED"' in answer


def test_half_sent_headers_time_out_and_the_connection_closes() -> None:
    with emulator(limits=Limits(header_timeout=0.5)) as emu, connect(emu) as connection:
        connection.sendall(f"POST {CHECK_PATH} HTTP/1.1\r\nHost: emu".encode())
        answer = read_until_closed(connection).decode()
    assert answer.startswith("HTTP/1.1 408 "), answer


def test_a_silent_connection_is_closed_after_the_header_timeout() -> None:
    with emulator(limits=Limits(header_timeout=0.5)) as emu, connect(emu) as connection:
        assert read_until_closed(connection) == b""


def test_busy_connections_beyond_the_cap_are_refused_at_once_and_the_cap_frees_up() -> None:
    limits = Limits(max_connections=10, body_timeout=1.0)
    with emulator(limits=limits) as emu:
        with opened(10, lambda: stalled_upload(emu)) as stalled:
            wait_until_read(*stalled)  # the server is reading all ten bodies: none is idle
            with connect(emu) as extra:
                extra.sendall(f"POST {CHECK_PATH} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
                answer = read_until_closed(extra).decode()
            assert answer.startswith("HTTP/1.1 429 "), answer
            assert '"status":"RESOURCE_EXHAUSTED"' in answer
        deadline = time.monotonic() + HANG_BOUND
        while time.monotonic() < deadline:
            response = httpx.post(emu.http_url + CHECK_PATH, json=CHECK_BODY, timeout=HANG_BOUND)
            if response.status_code == 200:
                break
            time.sleep(0.1)
        assert response.status_code == 200


def test_the_default_limits_are_those_of_a_production_server() -> None:
    limits = Limits()
    assert limits.max_connections >= 1000
    assert 1 <= limits.header_timeout <= 60
    assert 1 <= limits.body_timeout <= 120


@pytest.fixture(scope="module")
def http(emu: Emulator) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=emu.http_url, timeout=HANG_BOUND) as client:
        yield client


def assert_google_error(response: httpx.Response, status: int) -> dict[str, object]:
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/json")
    error: dict[str, object] = response.json()["error"]
    assert error["code"] == status
    return error


def test_a_lone_surrogate_in_a_json_key_is_a_400(http: httpx.Client) -> None:
    response = http.post(
        CHECK_PATH, content=b'{"\\ud800": "a"}', headers={"content-type": "application/json"}
    )
    assert assert_google_error(response, 400)["status"] == "INVALID_ARGUMENT"


def test_a_lone_surrogate_in_a_json_value_is_a_400(http: httpx.Client) -> None:
    response = http.post(
        CHECK_PATH,
        content=b'{"answerCandidate": "a\\udfff"}',
        headers={"content-type": "application/json"},
    )
    assert_google_error(response, 400)


def test_a_gzip_body_is_read_and_a_broken_one_is_a_400(http: httpx.Client) -> None:
    headers = {"content-type": "application/json", "content-encoding": "gzip"}
    good = gzip.compress(httpx.Request("POST", "/", json=CHECK_BODY).read())
    assert http.post(CHECK_PATH, content=good, headers=headers).status_code == 200
    broken = http.post(CHECK_PATH, content=good[:20] + b"garbage" + good[27:], headers=headers)
    assert assert_google_error(broken, 400)["status"] == "INVALID_ARGUMENT"


def test_a_gzip_body_that_inflates_past_the_limit_is_a_413(http: httpx.Client) -> None:
    bomb = gzip.compress(b'{"answerCandidate": "' + b"x" * (40 * 1024 * 1024) + b'"}')
    headers = {"content-type": "application/json", "content-encoding": "gzip"}
    assert_google_error(http.post(CHECK_PATH, content=bomb, headers=headers), 413)


def test_a_protocol_error_is_a_400_in_googles_shape_without_the_path(emu: Emulator) -> None:
    with connect(emu) as connection:
        connection.sendall(
            b"POST /v1/secret-path-abc:check HTTP/1.1\r\nHost: 127.0.0.1\r\nBad Header Line\r\n\r\n"
        )
        answer = read_until_closed(connection).decode()
    assert answer.startswith("HTTP/1.1 400 "), answer
    assert "secret-path-abc" not in answer
    assert '"status":"INVALID_ARGUMENT"' in answer


def test_a_client_leaving_mid_body_logs_no_traceback(
    emu: Emulator, http: httpx.Client, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.DEBUG), stalled_upload(emu) as stalled:
        wait_until_read(stalled)
        client_port = stalled.getsockname()[1]
    wait_until_let_go(emu, [client_port])  # the server has seen the connection close
    assert http.post(CHECK_PATH, json=CHECK_BODY).status_code == 200
    tracebacks = [r for r in caplog.records if r.exc_info or r.levelno >= logging.ERROR]
    assert [r.getMessage() for r in tracebacks] == []


def test_expect_100_continue_is_answered(emu: Emulator) -> None:
    body = httpx.Request("POST", "/", json=CHECK_BODY).read()
    with connect(emu) as connection:
        connection.sendall(
            f"POST {CHECK_PATH} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\nExpect: 100-continue\r\n\r\n".encode()
        )
        assert connection.recv(65536).startswith(b"HTTP/1.1 100 ")
        connection.sendall(body)
        answer = connection.recv(65536)
    assert answer.startswith(b"HTTP/1.1 200 "), answer


def test_bodies_beyond_the_shared_buffer_are_refused_with_503_not_held() -> None:
    limits = Limits(max_body_bytes=1000, max_buffered_body_bytes=1500)
    with emulator(limits=limits) as emu, connect(emu) as first, connect(emu) as second:
        for connection in (first, second):
            connection.sendall(
                f"POST {CHECK_PATH} HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                "Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n".encode()
                + b" " * 900
            )
            wait_until_read(connection)
        answer = read_until_closed(second).decode()
        assert answer.startswith("HTTP/1.1 503 "), answer
        assert '"status":"UNAVAILABLE"' in answer
        first.sendall(b" " * 80 + json_body(CHECK_BODY)[:20])  # still being read


def within(bound: float, condition: Callable[[], bool]) -> bool:
    """Whether `condition` holds, polled until `bound` seconds have passed."""
    deadline = time.monotonic() + bound
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def server_ends(server_port: int) -> dict[int, tuple[bool, int]]:
    """The server's ends of loopback connections, by client port: (held, bytes it has not read).

    An end is held once the server has accepted it, while it is an open socket (has an inode).
    A socket the process has closed lingers in /proc/net/tcp while the kernel flushes it, but
    with inode 0: it no longer belongs to anyone.
    """
    ends = {}
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        local, remote, queues, inode = fields[1], fields[2], fields[4], fields[9]
        client_port = int(remote.split(":")[1], 16)
        if int(local.split(":")[1], 16) == server_port and client_port:
            ends[client_port] = (inode != "0", int(queues.split(":")[1], 16))
    return ends


def server_holds_socket(server_port: int, client_port: int) -> bool:
    """Whether the server's end of a loopback connection is still an open socket."""
    return server_ends(server_port).get(client_port, (False, 0))[0]


def server_has_read(connections: list[socket.socket], or_closed: bool) -> bool:
    """Whether the server has accepted each of `connections` and read all that each has sent.

    With `or_closed`, a connection the server has closed counts as read.
    """
    ends = server_ends(connections[0].getpeername()[1])
    for connection in connections:
        held, unread = ends.get(connection.getsockname()[1], (False, 0))
        if unread or not (held or or_closed):
            return False
    return True


def wait_until_read(*connections: socket.socket, or_closed: bool = False) -> None:
    """Returns once the server has accepted `connections` and read all they sent."""
    assert within(HANG_BOUND, lambda: server_has_read(list(connections), or_closed)), "unread"


def wait_until_let_go(emu: Emulator, client_ports: list[int]) -> None:
    """Returns once the server has read and closed its end of each connection from `client_ports`.

    (A connection still waiting to be accepted has bytes unread, or is not held: never both.)
    """
    port = urlsplit(emu.http_url).port
    assert port is not None

    def let_go() -> bool:
        ends = server_ends(port)
        return not any(any(ends.get(client, (False, 0))) for client in client_ports)

    assert within(HANG_BOUND, let_go), "the server still holds a connection"


def json_body(document: object) -> bytes:
    return httpx.Request("POST", "/", json=document).read()


def test_a_keep_alive_connection_idle_past_its_timeout_is_closed() -> None:
    body = json_body(CHECK_BODY)
    with emulator(limits=Limits(idle_timeout=0.5)) as emu, connect(emu) as connection:
        connection.sendall(
            f"POST {CHECK_PATH} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\n\r\n".encode()
            + body
        )
        answer = read_until_closed(connection)
    assert answer.startswith(b"HTTP/1.1 200 ")


def test_a_stream_the_client_never_reads_is_abandoned_after_the_write_timeout(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def endless(method: Method, *unused: object) -> Iterator[Message]:
        response: Any = method.response_class()
        response.candidates.add(index=0).content.parts.add(text="x" * 100_000)
        for _ in range(1000):  # 100 MB: more than any socket buffers
            yield response

    monkeypatch.setattr(service, "handle_stream", endless)
    body = json_body(generate_json())
    with emulator(limits=Limits(write_timeout=0.5)) as emu, connect(emu) as connection:
        connection.sendall(
            f"POST {STREAM_PATH} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\n\r\n".encode()
            + body
        )
        server_port, client_port = connection.getpeername()[1], connection.getsockname()[1]
        assert within(HANG_BOUND, lambda: server_holds_socket(server_port, client_port))
        assert within(  # the server fills the socket's buffers, then gives up on the client
            ABANDON_BOUND, lambda: not server_holds_socket(server_port, client_port)
        ), "left to flush for ever"
        assert connection.recv(16).startswith(b"HTTP/1.1 200 ")
        monkeypatch.undo()
        response = httpx.post(emu.http_url + CHECK_PATH, json=CHECK_BODY, timeout=HANG_BOUND)
    assert response.status_code == 200


def test_stopping_with_idle_connections_open_closes_them_and_logs_nothing(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with caplog.at_level(logging.DEBUG), ExitStack() as stack:
        with emulator() as emu:
            sockets = [stack.enter_context(connect(emu)) for _ in range(20)]
            wait_until_read(*sockets)  # the server has accepted them all
        assert all(read_until_closed(connection) == b"" for connection in sockets)
    problems = [r for r in caplog.records if r.exc_info or r.levelno >= logging.ERROR]
    assert [r.getMessage() for r in problems] == []


def test_pipelined_requests_are_all_answered_in_order(emu: Emulator) -> None:
    body = json_body(CHECK_BODY)
    request = (
        f"POST {CHECK_PATH} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\n\r\n".encode()
        + body
    )
    closing = f"GET {CHECK_PATH} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
    with connect(emu) as connection:
        connection.sendall(request * 2 + closing.encode())
        answers = read_until_closed(connection)
    assert answers.count(b"HTTP/1.1 200 ") == 2
    assert answers.rfind(b"HTTP/1.1 405 ") > answers.rfind(b"HTTP/1.1 200 ")
