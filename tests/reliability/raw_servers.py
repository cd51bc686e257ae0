"""Misbehaving servers on loopback sockets: silent ones, ones that send noise or broken HTTP.

Each connection is handled by a plain function on its own thread, so a test states in one line
what the "server" does with the bytes. Every thread stops when the server closes.
"""

from __future__ import annotations

import random
import socket
import threading
from collections.abc import Callable

Handler = Callable[[socket.socket, threading.Event], None]
_POLL = 0.1


class RawServer:
    """A TCP listener on 127.0.0.1 that hands every accepted connection to `handler`."""

    def __init__(self, handler: Handler) -> None:
        self._handler = handler
        self._stop = threading.Event()
        self._listener = socket.create_server(("127.0.0.1", 0))
        self._listener.settimeout(_POLL)
        self.port = int(self._listener.getsockname()[1])
        self._threads: list[threading.Thread] = []
        self._connections: list[socket.socket] = []
        self._acceptor = threading.Thread(target=self._accept, daemon=True)

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def _accept(self) -> None:
        while not self._stop.is_set():
            try:
                connection, _ = self._listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            connection.settimeout(_POLL)
            self._connections.append(connection)
            thread = threading.Thread(target=self._serve, args=(connection,), daemon=True)
            self._threads.append(thread)
            thread.start()

    def _serve(self, connection: socket.socket) -> None:
        try:
            self._handler(connection, self._stop)
        except OSError:
            pass  # the client hung up: that is its right
        finally:
            connection.close()

    def __enter__(self) -> RawServer:
        self._acceptor.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._stop.set()
        self._listener.close()
        self._acceptor.join(5)
        for connection in self._connections:
            connection.close()
        for thread in self._threads:
            thread.join(5)


def _drain(connection: socket.socket, stop: threading.Event) -> None:
    """Reads and drops whatever arrives until the peer hangs up or the server stops."""
    while not stop.is_set():
        try:
            if not connection.recv(65536):
                return
        except TimeoutError:
            continue


def silent(connection: socket.socket, stop: threading.Event) -> None:
    """Accepts and reads, never answers."""
    _drain(connection, stop)


def noise(seed: int, size: int = 4096) -> Handler:
    """Writes `size` random bytes at once, then reads and never says anything sensible."""
    payload = random.Random(seed).randbytes(size)

    def handle(connection: socket.socket, stop: threading.Event) -> None:
        connection.sendall(payload)
        _drain(connection, stop)

    return handle


def _read_request(connection: socket.socket, stop: threading.Event) -> bool:
    """Reads one HTTP request (headers and a Content-Length body); False if the peer left."""
    received = b""
    while b"\r\n\r\n" not in received:
        if stop.is_set():
            return False
        try:
            chunk = connection.recv(65536)
        except TimeoutError:
            continue
        if not chunk:
            return False
        received += chunk
    head, _, body = received.partition(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value)
    while len(body) < length and not stop.is_set():
        try:
            chunk = connection.recv(65536)
        except TimeoutError:
            continue
        if not chunk:
            return False
        body += chunk
    return True


def http_reply(raw_response: bytes) -> Handler:
    """Answers the first request with `raw_response` (status line, headers, body) and hangs up."""

    def handle(connection: socket.socket, stop: threading.Event) -> None:
        if _read_request(connection, stop):
            connection.sendall(raw_response)

    return handle


def http_response(
    status: str, content_type: str, body: bytes, content_length: int | None = None
) -> bytes:
    """A raw HTTP/1.1 response; `content_length` may lie about the body (a truncated reply)."""
    length = len(body) if content_length is None else content_length
    head = (
        f"HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\n"
        f"Content-Length: {length}\r\nConnection: close\r\n\r\n"
    )
    return head.encode() + body
