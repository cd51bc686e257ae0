"""Both REST transports over TLS: the caller's roots, a client certificate, refused certificates."""

from __future__ import annotations

import asyncio
import ssl
import threading
from collections.abc import Iterator
from typing import Literal

import pytest
from google.protobuf.message import Message

from groundwire.core.errors import GroundwireError
from groundwire.transports.base import ConnectionFailure
from groundwire.transports.rest import RestTransport
from groundwire.transports.rest_aio import AsyncRestTransport
from groundwire.transports.tls import client_ssl_context
from tests.transports import canned
from tests.transports.servers import RestServer
from tests.transports.tls import Certificate, start_tls_rest_server

Kind = Literal["sync", "async"]
KINDS: list[Kind] = ["sync", "async"]


def calls(kind: Kind, base_url: str, context: ssl.SSLContext | None, count: int) -> list[Message]:
    """`count` calls in turn on one transport of `kind`."""
    request = canned.check_request()
    if kind == "sync":
        transport = RestTransport(base_url, credentials=None, ssl_context=context)
        try:
            return [
                transport.unary(canned.CHECK, request, timeout=5, metadata=()) for _ in range(count)
            ]
        finally:
            transport.close()

    async def run() -> list[Message]:
        aio = AsyncRestTransport(base_url, credentials=None, ssl_context=context)
        try:
            return [
                await aio.unary(canned.CHECK, request, timeout=5, metadata=()) for _ in range(count)
            ]
        finally:
            await aio.close()

    return asyncio.run(run())


@pytest.fixture
def tls_server(certificate: Certificate) -> Iterator[RestServer]:
    server = start_tls_rest_server(certificate)
    yield server
    server.shutdown()
    server.server_close()


@pytest.fixture
def mutual_tls_server(certificate: Certificate) -> Iterator[RestServer]:
    """A TLS server that accepts only clients presenting `certificate`."""
    server = RestServer()
    server_tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    server_tls.load_cert_chain(certificate.cert_file, certificate.key_file)
    server_tls.verify_mode = ssl.CERT_REQUIRED
    server_tls.load_verify_locations(cadata=certificate.pem.decode())
    server.socket = server_tls.wrap_socket(server.socket, server_side=True)
    threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
    ).start()
    yield server
    server.shutdown()
    server.server_close()


def url_of(server: RestServer, host: str = "127.0.0.1") -> str:
    return f"https://{host}:{server.server_address[1]}"


@pytest.mark.parametrize("kind", KINDS)
def test_the_callers_roots_are_trusted_and_one_tls_connection_carries_every_call(
    kind: Kind, tls_server: RestServer, certificate: Certificate
) -> None:
    responses = calls(kind, url_of(tls_server), certificate.client_context(), 3)

    assert responses == [canned.check_response()] * 3
    assert len(set(tls_server.seen.peers)) == 1


@pytest.mark.parametrize("kind", KINDS)
def test_a_certificate_the_system_does_not_trust_is_a_connection_failure(
    kind: Kind, tls_server: RestServer
) -> None:
    with pytest.raises(ConnectionFailure, match="CERTIFICATE_VERIFY_FAILED"):
        calls(kind, url_of(tls_server), None, 1)
    assert tls_server.seen.calls == 0


@pytest.mark.parametrize("kind", KINDS)
def test_a_host_name_the_certificate_does_not_name_is_a_connection_failure(
    kind: Kind, tls_server: RestServer, certificate: Certificate
) -> None:
    with pytest.raises(ConnectionFailure, match="match"):
        calls(kind, url_of(tls_server, "localhost"), certificate.client_context(), 1)
    assert tls_server.seen.calls == 0


@pytest.mark.parametrize("kind", KINDS)
def test_a_client_certificate_is_presented_to_a_server_that_asks_for_one(
    kind: Kind, mutual_tls_server: RestServer, certificate: Certificate
) -> None:
    context = client_ssl_context(certificate.pem, (certificate.pem, certificate.key_pem))

    assert calls(kind, url_of(mutual_tls_server), context, 2) == [canned.check_response()] * 2
    with pytest.raises(GroundwireError):
        calls(kind, url_of(mutual_tls_server), certificate.client_context(), 1)
    assert mutual_tls_server.seen.calls == 2
