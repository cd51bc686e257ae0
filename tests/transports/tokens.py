"""An OAuth token endpoint on loopback, and credentials that refresh against it."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from google.oauth2.credentials import Credentials

TOKEN = "ya29.test-access-token"


class TokenServer(ThreadingHTTPServer):
    """An OAuth token endpoint: grants TOKEN to refresh token "good", refuses any other."""

    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _TokenHandler)
        self.grants = 0

    @property
    def port(self) -> int:
        return int(self.server_address[1])

    @property
    def token_uri(self) -> str:
        return f"http://127.0.0.1:{self.port}/token"


class _TokenHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: TokenServer

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        form = self.rfile.read(int(self.headers["content-length"])).decode()
        time.sleep(0.05)  # long enough for concurrent callers to pile up
        if "refresh_token=good" in form:
            self.server.grants += 1
            status, body = 200, {"access_token": TOKEN, "expires_in": 3600, "token_type": "Bearer"}
        else:
            status, body = 400, {"error": "invalid_grant", "error_description": "Bad token"}
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


def credentials_for(
    server: TokenServer, refresh_token: str = "good", *, host: str = "127.0.0.1"
) -> Credentials:
    """User credentials whose refresh goes to `server`'s token endpoint, named by `host`."""
    return Credentials(
        token=None,
        refresh_token=refresh_token,
        token_uri=f"http://{host}:{server.port}/token",
        client_id="client",
        client_secret="client-secret",
    )


def start_token_server() -> TokenServer:
    """A TokenServer serving from a background thread."""
    server = TokenServer()
    threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
    ).start()
    return server
