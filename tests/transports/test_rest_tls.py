"""Both REST transports over TLS: the caller's roots, a client certificate, refused certificates."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from groundwire.contract.errors import GroundwireError
from groundwire.transports.base import ConnectionFailure
from groundwire.transports.tls import client_ssl_context
from tests.transports import canned
from tests.transports.kinds import KINDS, Kind, rest_calls
from tests.transports.servers import RestServer
from tests.transports.tls import Certificate, start_tls_rest_server


@pytest.fixture
def mutual_tls_server(certificate: Certificate) -> Iterator[RestServer]:
    server = start_tls_rest_server(certificate, require_client_certificate=True)
    yield server
    server.shutdown()
    server.server_close()


def url_of(server: RestServer, host: str = "127.0.0.1") -> str:
    return f"https://{host}:{server.server_address[1]}"


@pytest.mark.parametrize("kind", KINDS)
def test_the_callers_roots_are_trusted_and_one_tls_connection_carries_every_call(
    kind: Kind, tls_server: RestServer, certificate: Certificate
) -> None:
    responses = rest_calls(kind, url_of(tls_server), 3, ssl_context=certificate.client_context())

    assert responses == [canned.check_response()] * 3
    assert len(set(tls_server.seen.peers)) == 1


@pytest.mark.parametrize("kind", KINDS)
def test_a_certificate_the_system_does_not_trust_is_a_connection_failure(
    kind: Kind, tls_server: RestServer
) -> None:
    with pytest.raises(ConnectionFailure, match="CERTIFICATE_VERIFY_FAILED"):
        rest_calls(kind, url_of(tls_server))
    assert tls_server.seen.calls == 0


@pytest.mark.parametrize("kind", KINDS)
def test_a_host_name_the_certificate_does_not_name_is_a_connection_failure(
    kind: Kind, tls_server: RestServer, certificate: Certificate
) -> None:
    with pytest.raises(ConnectionFailure, match="match"):
        rest_calls(kind, url_of(tls_server, "localhost"), ssl_context=certificate.client_context())
    assert tls_server.seen.calls == 0


@pytest.mark.parametrize("kind", KINDS)
def test_a_client_certificate_is_presented_to_a_server_that_asks_for_one(
    kind: Kind, mutual_tls_server: RestServer, certificate: Certificate
) -> None:
    mutual = client_ssl_context(certificate.pem, (certificate.pem, certificate.key_pem))

    assert (
        rest_calls(kind, url_of(mutual_tls_server), 2, ssl_context=mutual)
        == [canned.check_response()] * 2
    )
    with pytest.raises(GroundwireError):
        rest_calls(kind, url_of(mutual_tls_server), ssl_context=certificate.client_context())
    assert mutual_tls_server.seen.calls == 2
