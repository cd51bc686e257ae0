"""The HTTP/1.1 pool under the blocking REST transport: reuse, gzip, timeouts, closing."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from concurrent import futures

import pytest

from groundwire.core.errors import Internal
from groundwire.transports import http1, routes
from tests.transports.pool_server import BODY, PoolServer, running_server


@pytest.fixture
def server() -> Iterator[PoolServer]:
    yield from running_server()


@pytest.fixture
def pool(server: PoolServer) -> Iterator[http1.ConnectionPool]:
    opened = http1.ConnectionPool("http", "127.0.0.1", server.server_address[1])
    yield opened
    opened.close()


def post(pool: http1.ConnectionPool, path: str, timeout: float = 3.0) -> http1.Response:
    return pool.request("POST", path, b"{}", {"content-type": "application/json"}, timeout)


def test_a_connection_is_reused_once_its_response_is_read(
    pool: http1.ConnectionPool, server: PoolServer
) -> None:
    for _ in range(3):
        assert post(pool, "/plain").read() == BODY
    assert len(set(server.peers)) == 1


def test_threads_share_the_pool_each_on_a_connection_of_its_own(
    pool: http1.ConnectionPool, server: PoolServer
) -> None:
    def calls(_: int) -> list[bytes]:
        return [post(pool, "/plain").read() for _ in range(10)]

    with futures.ThreadPoolExecutor(16) as threads:
        bodies = [body for batch in threads.map(calls, range(16)) for body in batch]
    assert bodies == [BODY] * 160
    assert len(set(server.peers)) <= 16


def test_gzip_bodies_are_decompressed_whole_or_in_chunks(pool: http1.ConnectionPool) -> None:
    assert post(pool, "/gzip").read() == BODY
    assert b"".join(post(pool, "/gzip-chunked").chunks()) == BODY


def test_a_broken_gzip_body_is_an_internal_error(pool: http1.ConnectionPool) -> None:
    with pytest.raises(Internal):
        post(pool, "/broken-gzip").read()


def test_headers_are_found_in_any_case(pool: http1.ConnectionPool) -> None:
    response = post(pool, "/plain")
    response.read()
    assert response.headers["X-MIXED-CASE"] == response.headers["x-mixed-case"] == "yes"


def test_a_connection_the_server_closes_is_not_reused(
    pool: http1.ConnectionPool, server: PoolServer
) -> None:
    assert post(pool, "/close").read() == BODY
    assert post(pool, "/plain").read() == BODY
    assert len(set(server.peers)) == 2


def test_a_connection_closed_while_idle_is_replaced_before_it_fails_a_call(
    pool: http1.ConnectionPool, server: PoolServer
) -> None:
    assert post(pool, "/hang-up").read() == BODY
    assert server.hung_up.wait(timeout=5.0)  # on loopback, its close has then reached us
    assert post(pool, "/plain").read() == BODY
    assert len(set(server.peers)) == 2


def test_connections_idle_too_long_are_replaced(
    pool: http1.ConnectionPool, server: PoolServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(http1, "IDLE_SECONDS", 0.0)
    for _ in range(2):
        assert post(pool, "/plain").read() == BODY
    assert len(set(server.peers)) == 2


def test_an_abandoned_response_closes_its_connection(
    pool: http1.ConnectionPool, server: PoolServer
) -> None:
    chunks = post(pool, "/gzip-chunked").chunks()
    next(chunks)
    chunks.close()
    assert post(pool, "/plain").read() == BODY
    assert len(set(server.peers)) == 2


def test_a_read_past_the_timeout_raises_timeout_error(pool: http1.ConnectionPool) -> None:
    started = time.monotonic()
    with pytest.raises(TimeoutError):
        post(pool, "/slow", timeout=0.2)
    assert time.monotonic() - started < 1.5


def test_closing_the_pool_fails_the_calls_in_flight_and_refuses_new_ones(
    pool: http1.ConnectionPool, server: PoolServer
) -> None:
    failures: list[BaseException] = []

    def slow_call() -> None:
        try:
            post(pool, "/slow", timeout=10.0).read()
        except BaseException as error:
            failures.append(error)

    caller = threading.Thread(target=slow_call)
    caller.start()
    assert server.slow_started.wait(timeout=5.0)  # the slow call is in flight
    started = time.monotonic()
    pool.close()
    caller.join(5.0)
    assert time.monotonic() - started < 1.5
    assert len(failures) == 1
    assert isinstance(failures[0], http1.WIRE_ERRORS)
    with pytest.raises(RuntimeError):
        post(pool, "/plain")


def test_a_refused_connection_is_a_connect_error(refused_port: int) -> None:
    pool = http1.ConnectionPool("http", "127.0.0.1", refused_port)
    with pytest.raises(routes.ConnectError, match="ConnectionRefusedError"):
        post(pool, "/plain")
    pool.close()


def test_a_proxy_url_without_http_is_not_supported() -> None:
    with pytest.raises(routes.ProxyNotSupported):
        routes.parse_proxy("https://proxy.internal:3128")
    assert routes.parse_proxy("proxy.internal").port == 80
