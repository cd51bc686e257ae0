"""Tokens: fetched with the standard library, refreshed once for all threads, sent only over TLS.

A token endpoint and TLS servers (with a certificate made for the test) run on loopback.
"""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Iterator
from concurrent import futures

import grpc
import pytest
from google.oauth2.credentials import Credentials

from groundwire.contract.errors import DeadlineExceeded, Unauthenticated
from groundwire.transports.auth import AccessTokens, TokenRequest
from groundwire.transports.grpc import GrpcTransport
from groundwire.transports.rest import RestTransport
from tests.transports import canned, servers
from tests.transports.kinds import Transports
from tests.transports.tls import Certificate, start_tls_rest_server
from tests.transports.tokens import TOKEN, TokenServer, credentials_for


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
    token_server: TokenServer,
) -> None:
    tokens = AccessTokens(credentials_for(token_server, refresh_token="revoked"))
    try:
        with pytest.raises(Unauthenticated) as raised:
            tokens.apply({}, "https://discoveryengine.googleapis.com/v1/x")
    finally:
        tokens.close()
    assert "invalid_grant" in raised.value.message
    assert "client-secret" not in raised.value.message


def test_the_token_adapter_speaks_google_auths_transport_interface(
    token_server: TokenServer,
) -> None:
    request = TokenRequest()
    try:
        response = request(
            token_server.token_uri,
            method="POST",
            body=b"grant_type=refresh_token&refresh_token=good",
            headers={"content-type": "application/x-www-form-urlencoded"},
        )
    finally:
        request.close()
    assert response.status == 200
    assert json.loads(response.data)["access_token"] == TOKEN
    assert response.headers["content-type"] == "application/json"


@pytest.fixture
def silent_token_uri() -> Iterator[str]:
    """A token endpoint that takes the connection and the request, and never answers."""
    listener = socket.create_server(("127.0.0.1", 0))
    yield f"http://127.0.0.1:{listener.getsockname()[1]}/token"
    listener.close()


def credentials_refreshing_at(token_uri: str) -> Credentials:
    return Credentials(
        token=None,
        refresh_token="good",
        token_uri=token_uri,
        client_id="client",
        client_secret="client-secret",
    )


def test_a_token_endpoint_that_never_answers_ends_the_call_within_its_timeout(
    kinds: Transports, silent_token_uri: str
) -> None:
    transport = kinds.rest(
        "https://127.0.0.1:1", credentials=credentials_refreshing_at(silent_token_uri)
    )
    started = time.monotonic()
    with pytest.raises(DeadlineExceeded):
        kinds.unary(transport, canned.check_request(), timeout=1.0, metadata=())
    assert time.monotonic() - started < 3.0


# ---- over TLS, end to end ----------------------------------------------------------------


def test_rest_over_tls_sends_a_bearer_token(
    token_server: TokenServer, certificate: Certificate
) -> None:
    rest_server = start_tls_rest_server(certificate)
    port = rest_server.server_address[1]
    transport = RestTransport(
        f"https://127.0.0.1:{port}",
        credentials=credentials_for(token_server),
        ssl_context=certificate.client_context(),
    )
    try:
        for _ in range(2):
            response = transport.unary(
                canned.CHECK, canned.check_request(), timeout=30, metadata=canned.METADATA
            )
            assert response == canned.check_response()
    finally:
        transport.close()
        rest_server.shutdown()
        rest_server.server_close()
    assert [h["authorization"] for h in rest_server.seen.metadata] == [f"Bearer {TOKEN}"] * 2
    assert rest_server.seen.metadata[-1]["x-goog-api-client"].startswith(canned.METADATA[1][1])
    assert token_server.grants == 1


def test_grpc_over_tls_sends_a_bearer_token(
    token_server: TokenServer, certificate: Certificate
) -> None:
    seen = servers.Seen()
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
    server.add_generic_rpc_handlers([servers._grpc_handlers(seen)])
    port = server.add_secure_port(
        "127.0.0.1:0", grpc.ssl_server_credentials([(certificate.key_pem, certificate.pem)])
    )
    server.start()
    transport = GrpcTransport(
        f"127.0.0.1:{port}",
        credentials=credentials_for(token_server),
        secure=True,
        root_certificates=certificate.pem,
    )
    try:
        response = transport.unary(
            canned.CHECK, canned.check_request(), timeout=30, metadata=canned.METADATA
        )
        assert response == canned.check_response()
    finally:
        transport.close()
        server.stop(grace=None)
    assert seen.metadata[-1]["authorization"] == f"Bearer {TOKEN}"
    # google-auth adds its own x-goog-api-client entry ("cred-type/u"); the client's stays.
    assert canned.METADATA[1][1] in seen.metadata[-1]["x-goog-api-client"]


@pytest.mark.parametrize("url", ["http://127.0.0.1:8080/v1/x", "ftp://example.com/x", "/v1/x"])
def test_tokens_are_never_attached_to_a_url_that_is_not_https(url: str) -> None:
    tokens = AccessTokens(Credentials(token=TOKEN))
    headers: dict[str, str] = {}
    with pytest.raises(ValueError, match="only over TLS"):
        tokens.apply(headers, url)
    assert headers == {}
