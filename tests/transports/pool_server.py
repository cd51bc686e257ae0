"""An HTTP/1.1 server on loopback that answers by path, for the tests of both connection pools."""

from __future__ import annotations

import gzip
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

BODY = "東京タワー 🗼 «ok»".encode() * 50
LARGE = bytes(range(256)) * 32 * 1024  # 8 MiB: far more than a client holds unread
STALL_SECONDS = 60.0
"""How long /slow holds its answer, unless the test releases it first: only a hang waits it out."""


class PoolServer(ThreadingHTTPServer):
    daemon_threads = True
    # socketserver's default backlog of 5 overflows when 16 threads connect at once, and the
    # kernel then resets some of them: the tests are about the pool, not about that.
    request_queue_size = 64

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.peers: list[object] = []
        self.slow_started = threading.Event()
        """Set once a /slow request is being answered."""
        self.slow_released = threading.Event()
        """Set to let /slow answer (the server sets it when it stops)."""
        self.hung_up = threading.Event()
        """Set once the server has closed a connection."""

    def shutdown_request(self, request: Any) -> None:
        """Closes a connection, then says so."""
        super().shutdown_request(request)
        self.hung_up.set()

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that gave up is part of the tests: stay quiet."""


class _Handler(BaseHTTPRequestHandler):
    """Answers by path: /plain, /gzip, /gzip-chunked, /broken-gzip, /close, /hang-up, /slow.

    Also /large, with the LARGE body.
    """

    protocol_version = "HTTP/1.1"
    server: PoolServer

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("content-length", "0")))
        self.server.peers.append(self.client_address)
        path = self.path
        if path == "/slow":
            self.server.slow_started.set()
            self.server.slow_released.wait(STALL_SECONDS)
        if path == "/gzip-chunked":
            self._chunked(gzip.compress(BODY))
            return
        body = {
            "/gzip": gzip.compress(BODY),
            "/broken-gzip": b"\x1f\x8b not gzip",
            "/large": LARGE,
        }.get(path, BODY)
        self.send_response(200)
        if path in ("/gzip", "/broken-gzip"):
            self.send_header("content-encoding", "gzip")
        if path == "/close":
            self.send_header("connection", "close")
        self.send_header("x-Mixed-Case", "yes")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
        if path == "/hang-up":  # keep-alive promised, then the connection closes while idle
            self.wfile.flush()
            self.close_connection = True

    def _chunked(self, body: bytes) -> None:
        self.send_response(200)
        self.send_header("content-encoding", "gzip")
        self.send_header("transfer-encoding", "chunked")
        self.end_headers()
        for start in range(0, len(body), 50):
            piece = body[start : start + 50]
            self.wfile.write(f"{len(piece):x}\r\n".encode() + piece + b"\r\n")
        self.wfile.write(b"0\r\n\r\n")


def running_server() -> Iterator[PoolServer]:
    """A PoolServer serving from a background thread until the generator is closed."""
    running = PoolServer()
    threading.Thread(
        target=running.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
    ).start()
    yield running
    running.slow_released.set()
    running.shutdown()
    running.server_close()
