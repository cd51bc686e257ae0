"""A forward proxy on loopback, as corporate networks have: CONNECT tunnels and absolute URLs.

It sends every host name to 127.0.0.1, so `https://grounding.test:PORT` is reachable only
through it: the client itself cannot resolve that name.
"""

from __future__ import annotations

import base64
import select
import socket
import socketserver
import threading
from dataclasses import dataclass, field
from urllib.parse import urlsplit


@dataclass
class Seen:
    """The requests the proxy received: (method, target, headers by lower-case name)."""

    requests: list[tuple[str, str, dict[str, str]]] = field(default_factory=list)


class ProxyServer(socketserver.ThreadingTCPServer):
    """The proxy; with `user_info` ("user:password") it wants Basic Proxy-Authorization.

    `refuse` makes it answer every request with that status instead.
    """

    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, user_info: str | None = None, refuse: int | None = None) -> None:
        super().__init__(("127.0.0.1", 0), _ProxyHandler)
        self.required = (
            None if user_info is None else "Basic " + base64.b64encode(user_info.encode()).decode()
        )
        self.refuse = refuse
        self.seen = Seen()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


class _ProxyHandler(socketserver.StreamRequestHandler):
    rbufsize = 0  # unbuffered: bytes after the head must reach the relay, not a buffer
    server: ProxyServer

    def handle(self) -> None:
        request_line = self.rfile.readline(65537).decode("latin-1").rstrip("\r\n")
        if not request_line:
            return
        method, target, version = request_line.split(" ", 2)
        head: list[bytes] = []
        headers: dict[str, str] = {}
        while (line := self.rfile.readline(65537)) not in (b"\r\n", b"\n", b""):
            head.append(line)
            name, _, value = line.decode("latin-1").partition(":")
            headers[name.strip().lower()] = value.strip()
        self.server.seen.requests.append((method, target, headers))
        refused = self.server.refuse or (
            407 if self.server.required not in (None, headers.get("proxy-authorization")) else None
        )
        if refused:
            self.wfile.write(
                f"HTTP/1.1 {refused} Refused by the test proxy\r\n"
                "content-length: 0\r\nconnection: close\r\n\r\n".encode()
            )
            return
        if method == "CONNECT":
            upstream = socket.create_connection(("127.0.0.1", int(target.rpartition(":")[2])))
            self.wfile.write(b"HTTP/1.1 200 Connection established\r\n\r\n")
        else:
            url = urlsplit(target)
            upstream = socket.create_connection(("127.0.0.1", url.port or 80))
            path = url.path + (f"?{url.query}" if url.query else "")
            kept = [line for line in head if not line.lower().startswith(b"proxy-")]
            upstream.sendall(f"{method} {path} {version}\r\n".encode() + b"".join(kept) + b"\r\n")
        with upstream:
            self._relay(upstream)

    def _relay(self, upstream: socket.socket) -> None:
        client = self.connection
        while True:
            readable, _, _ = select.select([client, upstream], [], [], 5.0)
            if not readable:
                return
            for source in readable:
                data = source.recv(65536)
                if not data:
                    return
                (upstream if source is client else client).sendall(data)


def start_proxy(user_info: str | None = None, refuse: int | None = None) -> ProxyServer:
    """A ProxyServer serving from a background thread."""
    proxy = ProxyServer(user_info, refuse)
    threading.Thread(
        target=proxy.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
    ).start()
    return proxy
