"""Tokens: fetched over httpx, refreshed once for all threads, sent only over TLS.

A token endpoint and TLS servers (with a certificate made for the test) run on loopback.
"""

from __future__ import annotations

import datetime
import json
import ssl
import threading
import time
from collections.abc import Iterator
from concurrent import futures
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import grpc
import pytest
from google.oauth2.credentials import Credentials

from groundwire.core.errors import Unauthenticated
from groundwire.transports.auth import AccessTokens, HttpxRequest
from groundwire.transports.grpc import GrpcTransport
from groundwire.transports.rest import RestTransport
from tests.transports import canned, servers

TOKEN = "ya29.test-access-token"


class TokenServer(ThreadingHTTPServer):
    """An OAuth token endpoint: grants TOKEN to refresh token "good", refuses any other."""

    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _TokenHandler)
        self.grants = 0

    @property
    def token_uri(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/token"


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
            status, body = 200, {"access_token": TOKEN, "expires_in": 3600,
                                 "token_type": "Bearer"}
        else:
            status, body = 400, {"error": "invalid_grant", "error_description": "Bad token"}
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


@pytest.fixture
def token_server() -> Iterator[TokenServer]:
    server = TokenServer()
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05},
                     daemon=True).start()
    yield server
    server.shutdown()
    server.server_close()


def credentials_for(server: TokenServer, refresh_token: str = "good") -> Credentials:
    return Credentials(token=None, refresh_token=refresh_token, token_uri=server.token_uri,
                       client_id="client", client_secret="client-secret")


def test_an_expired_token_is_refreshed_once_for_all_threads(token_server: TokenServer) -> None:
    tokens = AccessTokens(credentials_for(token_server))

    def headers(_: int) -> dict[str, str]:
        applied: dict[str, str] = {}
        tokens.apply(applied, "https://discoveryengine.googleapis.com/v1/x")
        return applied

    try:
        with futures.ThreadPoolExecutor(8) as pool:
            results = list(pool.map(headers, range(8)))
    finally:
        tokens.close()
    assert token_server.grants == 1
    assert all(result["authorization"] == f"Bearer {TOKEN}" for result in results)


def test_a_refused_refresh_is_unauthenticated_and_never_shows_a_secret(
        token_server: TokenServer) -> None:
    tokens = AccessTokens(credentials_for(token_server, refresh_token="revoked"))
    try:
        with pytest.raises(Unauthenticated) as raised:
            tokens.apply({}, "https://discoveryengine.googleapis.com/v1/x")
    finally:
        tokens.close()
    assert "invalid_grant" in raised.value.message
    assert "client-secret" not in raised.value.message


def test_the_httpx_adapter_speaks_google_auths_transport_interface(
        token_server: TokenServer) -> None:
    request = HttpxRequest()
    try:
        response = request(token_server.token_uri, method="POST",
                           body=b"grant_type=refresh_token&refresh_token=good",
                           headers={"content-type": "application/x-www-form-urlencoded"})
    finally:
        request.close()
    assert response.status == 200
    assert json.loads(response.data)["access_token"] == TOKEN
    assert response.headers["content-type"] == "application/json"


# ---- over TLS, end to end ----------------------------------------------------------------


@dataclass
class Certificate:
    pem: bytes
    key_pem: bytes
    cert_file: Path
    key_file: Path


@pytest.fixture(scope="module")
def certificate(tmp_path_factory: pytest.TempPathFactory) -> Certificate:
    """A self-signed certificate for 127.0.0.1 (made with `cryptography`, when installed)."""
    pytest.importorskip("cryptography")
    import ipaddress

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name)
            .public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=5))
            .not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.SubjectAlternativeName(
                [x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), critical=False)
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .sign(key, hashes.SHA256()))
    pem = cert.public_bytes(serialization.Encoding.PEM)
    key_pem = key.private_bytes(serialization.Encoding.PEM,
                                serialization.PrivateFormat.PKCS8,
                                serialization.NoEncryption())
    folder = tmp_path_factory.mktemp("tls")
    (folder / "cert.pem").write_bytes(pem)
    (folder / "key.pem").write_bytes(key_pem)
    return Certificate(pem, key_pem, folder / "cert.pem", folder / "key.pem")


def test_rest_over_tls_sends_a_bearer_token(token_server: TokenServer,
                                            certificate: Certificate) -> None:
    rest_server = servers.RestServer()
    server_tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    server_tls.load_cert_chain(certificate.cert_file, certificate.key_file)
    rest_server.socket = server_tls.wrap_socket(rest_server.socket, server_side=True)
    threading.Thread(target=rest_server.serve_forever, kwargs={"poll_interval": 0.05},
                     daemon=True).start()
    client_tls = ssl.create_default_context(cadata=certificate.pem.decode())
    port = rest_server.server_address[1]
    transport = RestTransport(f"https://127.0.0.1:{port}",
                              credentials=credentials_for(token_server), ssl_context=client_tls)
    try:
        for _ in range(2):
            response = transport.unary(canned.CHECK, canned.check_request(), timeout=3,
                                       metadata=canned.METADATA)
            assert response == canned.check_response()
    finally:
        transport.close()
        rest_server.shutdown()
        rest_server.server_close()
    assert [h["authorization"] for h in rest_server.seen.metadata] == [f"Bearer {TOKEN}"] * 2
    assert rest_server.seen.metadata[-1]["x-goog-api-client"].startswith(canned.METADATA[1][1])
    assert token_server.grants == 1


def test_grpc_over_tls_sends_a_bearer_token(token_server: TokenServer,
                                            certificate: Certificate) -> None:
    seen = servers.Seen()
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
    server.add_generic_rpc_handlers([servers._grpc_handlers(seen)])
    port = server.add_secure_port("127.0.0.1:0", grpc.ssl_server_credentials(
        [(certificate.key_pem, certificate.pem)]))
    server.start()
    transport = GrpcTransport(f"127.0.0.1:{port}", credentials=credentials_for(token_server),
                              secure=True, root_certificates=certificate.pem)
    try:
        response = transport.unary(canned.CHECK, canned.check_request(), timeout=3,
                                   metadata=canned.METADATA)
        assert response == canned.check_response()
    finally:
        transport.close()
        server.stop(grace=None)
    assert seen.metadata[-1]["authorization"] == f"Bearer {TOKEN}"
    # google-auth adds its own x-goog-api-client entry ("cred-type/u"); the client's stays.
    assert canned.METADATA[1][1] in seen.metadata[-1]["x-goog-api-client"]
