"""Credentials go only where they belong: the rules, shown on loopback servers and recorders.

A recorder stands in for the transports wherever the code before these rules would have
opened a connection off the machine, so no test ever sends traffic beyond loopback.
Application Default Credentials are always a stand-in that counts how often it is loaded.
"""

from __future__ import annotations

import asyncio
import ssl
import threading
from collections.abc import Callable, Iterator
from concurrent import futures
from dataclasses import dataclass, field
from typing import Any

import google.auth
import grpc
import pytest
from google.oauth2.credentials import Credentials

from groundwire import AsyncGroundingClient, GroundingClient
from groundwire.client import factory as base_module
from groundwire.contract import apis
from tests.support.canned import CannedServers
from tests.transports import servers as transport_servers
from tests.transports.tls import Certificate, make_certificate, start_tls_rest_server

ADC_TOKEN = "ya29.application-default-token"
USER_TOKEN = "ya29.explicit-user-token"
_CLEARED = (
    "GROUNDWIRE_EMULATOR_HOST",
    "GROUNDWIRE_EMULATOR_REST",
    "GROUNDWIRE_EMULATOR_ALLOW_REMOTE",
    "GOOGLE_CLOUD_UNIVERSE_DOMAIN",
    "http_proxy",
    "https_proxy",
    "grpc_proxy",
    "all_proxy",
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "GRPC_PROXY",
    "ALL_PROXY",
)


@dataclass
class DefaultCredentials:
    """A stand-in for google.auth.default: hands out a token and counts the loads."""

    loads: int = 0

    def __call__(self, *args: Any, **kwargs: Any) -> tuple[Credentials, str]:
        self.loads += 1
        return Credentials(token=ADC_TOKEN), "adc-project"


@pytest.fixture(autouse=True)
def adc(monkeypatch: pytest.MonkeyPatch) -> DefaultCredentials:
    """No emulator variables, no proxies, and ADC that never leaves the machine."""
    for name in _CLEARED:
        monkeypatch.delenv(name, raising=False)
    stand_in = DefaultCredentials()
    monkeypatch.setattr(google.auth, "default", stand_in)
    return stand_in


def user_credentials() -> Credentials:
    """Credentials the user passes explicitly, with a token that needs no refresh."""
    return Credentials(token=USER_TOKEN)


@dataclass
class Built:
    """One transport the client built: its protocol, address and keyword arguments."""

    protocol: str
    address: str
    options: dict[str, Any]


@dataclass
class Recorder:
    """Builds nothing: records the transports the client asks for."""

    built: list[Built] = field(default_factory=list)

    def transport_class(self, name: str) -> Callable[..., Any]:
        protocol = name.split(".")[0].removesuffix("_aio")

        def build(*args: Any, **kwargs: Any) -> Any:
            if protocol == "auto":
                return args
            self.built.append(Built(protocol, args[0], kwargs))
            return self.built[-1]

        return build

    def by_protocol(self) -> dict[str, Built]:
        return {built.protocol: built for built in self.built}


@pytest.fixture
def recorder(monkeypatch: pytest.MonkeyPatch) -> Recorder:
    recording = Recorder()
    monkeypatch.setattr(base_module, "_transport_class", recording.transport_class)
    return recording


def built_for(recorder: Recorder, **arguments: Any) -> dict[str, Built]:
    """Builds a client's Discovery Engine transports, returning what was recorded."""
    GroundingClient("p", **arguments)._transport("discoveryengine")
    return recorder.by_protocol()


def ok_check(method: apis.Method, request: Any) -> Any:
    response: Any = method.response_class(support_score=1.0)
    response.claims.add(start_pos=0, end_pos=1, claim_text="x")
    return response


# ---- the six breaks ----------------------------------------------------------------------


def test_an_emulator_variable_naming_another_host_is_refused_before_anything_is_sent(
    recorder: Recorder, adc: DefaultCredentials, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GROUNDWIRE_EMULATOR_HOST", "some-host:1")
    with pytest.raises(ValueError, match="GROUNDWIRE_EMULATOR_HOST") as raised:
        built_for(recorder)
    assert "GROUNDWIRE_EMULATOR_ALLOW_REMOTE=1" in str(raised.value)
    assert recorder.built == []
    assert adc.loads == 0


def test_an_https_rest_emulator_variable_is_refused_and_nothing_goes_to_google(
    recorder: Recorder, adc: DefaultCredentials, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GROUNDWIRE_EMULATOR_REST", "https://127.0.0.1:8443")
    with pytest.raises(ValueError, match=r"GROUNDWIRE_EMULATOR_REST.*http://127\.0\.0\.1:8080"):
        built_for(recorder)
    assert recorder.built == []
    assert adc.loads == 0


def test_a_rest_emulator_variable_without_a_scheme_means_http_and_no_grpc(
    recorder: Recorder, adc: DefaultCredentials, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GROUNDWIRE_EMULATOR_REST", "127.0.0.1:8080")
    built = built_for(recorder)
    assert list(built) == ["rest"]
    assert built["rest"].address == "http://127.0.0.1:8080"
    assert built["rest"].options["credentials"] is None
    assert adc.loads == 0


def test_a_rest_emulator_variable_without_a_scheme_serves_calls(
    adc: DefaultCredentials, monkeypatch: pytest.MonkeyPatch
) -> None:
    with CannedServers(ok_check) as running:
        monkeypatch.setenv("GROUNDWIRE_EMULATOR_REST", f"127.0.0.1:{running.http_port}")
        with GroundingClient("p", transport="rest", timeout=10) as client:
            assert client.check_grounding("x", ["y"]).claims[0].text == "x"
    assert running.recorder.rest_calls == 1
    assert "authorization" not in running.recorder.metadata[0]
    assert adc.loads == 0


def test_a_url_in_the_grpc_emulator_variable_is_refused_with_an_example(
    recorder: Recorder, adc: DefaultCredentials, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GROUNDWIRE_EMULATOR_HOST", "http://127.0.0.1:50051")
    with pytest.raises(ValueError, match=r"GROUNDWIRE_EMULATOR_HOST.*127\.0\.0\.1:50051"):
        built_for(recorder)
    assert recorder.built == []
    assert adc.loads == 0


def test_a_dns_target_on_loopback_is_an_emulator_with_no_rest_fallback(
    recorder: Recorder, adc: DefaultCredentials
) -> None:
    built = built_for(recorder, endpoint="dns:///localhost:50051")
    assert list(built) == ["grpc"]
    assert built["grpc"].address == "dns:///localhost:50051"
    assert built["grpc"].options["secure"] is False
    assert built["grpc"].options["credentials"] is None
    assert adc.loads == 0


@pytest.mark.parametrize("scheme", ["dns:///localhost", "ipv4:127.0.0.1"])
def test_grpc_scheme_targets_reach_a_loopback_emulator(
    scheme: str, adc: DefaultCredentials
) -> None:
    with CannedServers(ok_check) as running:
        endpoint = f"{scheme}:{running.grpc_port}"
        with GroundingClient("p", transport="grpc", endpoint=endpoint, timeout=10) as client:
            assert client.check_grounding("x", ["y"]).claims[0].text == "x"
    assert running.recorder.grpc_calls == 1
    assert "authorization" not in running.recorder.metadata[0]
    assert adc.loads == 0


# ---- once an emulator is set, nothing goes to Google and nothing carries credentials ---


def test_an_emulator_variable_drops_even_explicit_credentials(
    adc: DefaultCredentials, monkeypatch: pytest.MonkeyPatch
) -> None:
    with CannedServers(ok_check) as running:
        monkeypatch.setenv("GROUNDWIRE_EMULATOR_HOST", running.grpc_address)
        monkeypatch.setenv("GROUNDWIRE_EMULATOR_REST", running.http_url)
        for transport in ("grpc", "rest"):
            with GroundingClient(
                "p", transport=transport, credentials=user_credentials(), timeout=10
            ) as client:
                client.check_grounding("x", ["y"])
    assert (running.recorder.grpc_calls, running.recorder.rest_calls) == (1, 1)
    assert all("authorization" not in headers for headers in running.recorder.metadata)
    assert adc.loads == 0


def test_an_emulator_variable_refuses_a_google_endpoint_beside_it(
    recorder: Recorder, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GROUNDWIRE_EMULATOR_REST", "http://127.0.0.1:8080")
    with pytest.raises(ValueError, match="GROUNDWIRE_EMULATOR_REST is set"):
        built_for(recorder, endpoint="discoveryengine.googleapis.com:443")
    assert recorder.built == []


def test_a_grpc_emulator_variable_alone_sends_no_rest_anywhere(
    recorder: Recorder, adc: DefaultCredentials, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GROUNDWIRE_EMULATOR_HOST", "[::1]:50051")
    built = built_for(recorder)
    assert list(built) == ["grpc"]
    assert (built["grpc"].options["secure"], built["grpc"].options["credentials"]) == (
        False,
        None,
    )
    assert adc.loads == 0


def test_a_remote_emulator_is_allowed_by_the_switch_and_still_gets_no_credentials(
    recorder: Recorder, adc: DefaultCredentials, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GROUNDWIRE_EMULATOR_HOST", "emulator.internal:50051")
    monkeypatch.setenv("GROUNDWIRE_EMULATOR_ALLOW_REMOTE", "1")
    built = built_for(recorder, credentials=user_credentials())
    assert built["grpc"].options["secure"] is False
    assert built["grpc"].options["credentials"] is None
    assert built["grpc"].options["allow_remote_plaintext"] is True
    assert adc.loads == 0


def test_the_constructor_switch_allows_a_remote_emulator_too(
    recorder: Recorder, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GROUNDWIRE_EMULATOR_REST", "http://emulator.internal:8080")
    built = built_for(recorder, allow_remote_emulator=True)
    assert built["rest"].address == "http://emulator.internal:8080"
    assert built["rest"].options["credentials"] is None
    assert built["rest"].options["allow_remote_plaintext"] is True


def test_the_async_client_follows_the_same_rules(
    adc: DefaultCredentials, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def check(running: CannedServers) -> None:
        async with AsyncGroundingClient(
            "p", transport="rest", credentials=user_credentials(), timeout=10
        ) as client:
            await client.check_grounding("x", ["y"])

    with CannedServers(ok_check) as running:
        monkeypatch.setenv("GROUNDWIRE_EMULATOR_REST", f"localhost:{running.http_port}")
        asyncio.run(check(running))
    assert "authorization" not in running.recorder.metadata[0]
    monkeypatch.setenv("GROUNDWIRE_EMULATOR_HOST", "10.1.2.3:50051")
    with pytest.raises(ValueError, match="GROUNDWIRE_EMULATOR_HOST"):
        AsyncGroundingClient("p")._make_transport("discoveryengine", asynchronous=True)


# ---- where credentials go ---------------------------------------------------------------


def test_google_endpoints_carry_application_default_credentials(
    recorder: Recorder, adc: DefaultCredentials
) -> None:
    built = built_for(recorder)
    assert built["grpc"].address == "discoveryengine.googleapis.com:443"
    assert built["rest"].address == "https://discoveryengine.googleapis.com"
    assert built["grpc"].options["credentials"].token == ADC_TOKEN
    assert built["rest"].options["credentials"].token == ADC_TOKEN
    assert adc.loads == 1


def test_a_custom_endpoint_gets_no_default_credentials_and_no_derived_rest(
    recorder: Recorder, adc: DefaultCredentials
) -> None:
    built = built_for(recorder, endpoint="grounding.example.com:443")
    assert list(built) == ["grpc"]
    assert built["grpc"].options["secure"] is True
    assert built["grpc"].options["credentials"] is None
    assert adc.loads == 0


def test_a_custom_endpoint_gets_the_credentials_passed_with_it(recorder: Recorder) -> None:
    built = built_for(recorder, endpoint="grounding.example.com", credentials=user_credentials())
    assert built["grpc"].address == "grounding.example.com:443"
    assert built["grpc"].options["credentials"].token == USER_TOKEN


def test_a_google_endpoint_beside_a_custom_one_alone_gets_default_credentials(
    recorder: Recorder, adc: DefaultCredentials
) -> None:
    built = built_for(
        recorder,
        endpoint="eu-discoveryengine.googleapis.com",
        rest_endpoint="https://gateway.example.com/grounding",
    )
    assert built["grpc"].options["credentials"].token == ADC_TOKEN
    assert built["rest"].address == "https://gateway.example.com/grounding"
    assert built["rest"].options["credentials"] is None


def test_credentials_never_go_over_plain_http(recorder: Recorder) -> None:
    with pytest.raises(ValueError, match="plain HTTP"):
        built_for(recorder, rest_endpoint="http://127.0.0.1:8080", credentials=user_credentials())
    assert recorder.built == []


def test_another_universe_moves_the_default_hosts_and_keeps_adc_off_googleapis(
    recorder: Recorder, adc: DefaultCredentials, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GOOGLE_CLOUD_UNIVERSE_DOMAIN", "example-universe.com")
    with pytest.raises(ValueError, match="universe"):
        built_for(recorder)  # ADC of googleapis.com must not go to another universe
    built = built_for(recorder, endpoint="discoveryengine.googleapis.com")
    assert built["grpc"].options["credentials"] is None


# ---- TLS to loopback, for local test servers ---------------------------------------------


@pytest.fixture(scope="module")
def certificate(tmp_path_factory: pytest.TempPathFactory) -> Certificate:
    pytest.importorskip("cryptography")
    return make_certificate(tmp_path_factory.mktemp("tls"))


@pytest.fixture
def tls_grpc(certificate: Certificate) -> Iterator[tuple[int, transport_servers.Seen]]:
    seen = transport_servers.Seen()
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
    server.add_generic_rpc_handlers([transport_servers._grpc_handlers(seen)])
    port = server.add_secure_port(
        "127.0.0.1:0", grpc.ssl_server_credentials([(certificate.key_pem, certificate.pem)])
    )
    server.start()
    yield port, seen
    server.stop(grace=None)


@pytest.fixture
def tls_rest(certificate: Certificate) -> Iterator[transport_servers.RestServer]:
    server = start_tls_rest_server(certificate)
    yield server
    server.shutdown()
    server.server_close()


def test_a_loopback_endpoint_with_credentials_is_tls_and_gets_them(
    certificate: Certificate,
    tls_grpc: tuple[int, transport_servers.Seen],
    tls_rest: transport_servers.RestServer,
    adc: DefaultCredentials,
) -> None:
    port, seen = tls_grpc
    rest_port = tls_rest.server_address[1]
    with GroundingClient(
        "p",
        endpoint=f"127.0.0.1:{port}",
        rest_endpoint=f"127.0.0.1:{rest_port}",
        credentials=user_credentials(),
        root_certificates=certificate.pem,
        timeout=10,
    ) as client:
        client.check_grounding("x", ["y"])
    with GroundingClient(
        "p",
        transport="rest",
        rest_endpoint=f"127.0.0.1:{rest_port}",
        credentials=user_credentials(),
        root_certificates=certificate.pem,
        timeout=10,
    ) as client:
        client.check_grounding("x", ["y"])
    assert seen.metadata[0]["authorization"] == f"Bearer {USER_TOKEN}"
    assert tls_rest.seen.metadata[0]["authorization"] == f"Bearer {USER_TOKEN}"
    assert adc.loads == 0


def test_a_loopback_endpoint_with_root_certificates_is_tls_without_credentials(
    certificate: Certificate,
    tls_grpc: tuple[int, transport_servers.Seen],
    tls_rest: transport_servers.RestServer,
    adc: DefaultCredentials,
) -> None:
    port, seen = tls_grpc
    clients = (
        GroundingClient(
            "p",
            transport="grpc",
            endpoint=f"127.0.0.1:{port}",
            root_certificates=certificate.pem,
            timeout=10,
        ),
        GroundingClient(
            "p",
            transport="rest",
            rest_endpoint=f"127.0.0.1:{tls_rest.server_address[1]}",
            root_certificates=certificate.pem,
            timeout=10,
        ),
    )
    for client in clients:
        with client:
            client.check_grounding("x", ["y"])
    assert "authorization" not in seen.metadata[0]
    assert "authorization" not in tls_rest.seen.metadata[0]
    assert adc.loads == 0


def test_a_client_certificate_makes_a_loopback_endpoint_tls(recorder: Recorder) -> None:
    pair = (b"chain", b"key")
    built = built_for(recorder, endpoint="127.0.0.1:8443", client_certificate=pair)
    assert built["grpc"].options["secure"] is True
    assert built["grpc"].options["client_certificate"] == pair
    assert built["grpc"].options["credentials"] is None


@pytest.fixture
def mutual_tls_servers(
    certificate: Certificate,
) -> Iterator[tuple[int, transport_servers.RestServer, transport_servers.Seen]]:
    """A gRPC and a REST server on loopback that accept only clients presenting `certificate`."""
    seen = transport_servers.Seen()
    grpc_server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
    grpc_server.add_generic_rpc_handlers([transport_servers._grpc_handlers(seen)])
    grpc_port = grpc_server.add_secure_port(
        "127.0.0.1:0",
        grpc.ssl_server_credentials(
            [(certificate.key_pem, certificate.pem)],
            root_certificates=certificate.pem,
            require_client_auth=True,
        ),
    )
    grpc_server.start()
    rest_server = transport_servers.RestServer()
    server_tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    server_tls.load_cert_chain(certificate.cert_file, certificate.key_file)
    server_tls.verify_mode = ssl.CERT_REQUIRED
    server_tls.load_verify_locations(cadata=certificate.pem.decode())
    rest_server.socket = server_tls.wrap_socket(rest_server.socket, server_side=True)
    threading.Thread(
        target=rest_server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
    ).start()
    yield grpc_port, rest_server, seen
    grpc_server.stop(grace=None)
    rest_server.shutdown()
    rest_server.server_close()


def test_a_client_certificate_is_presented_over_mutual_tls_without_credentials(
    certificate: Certificate,
    mutual_tls_servers: tuple[int, transport_servers.RestServer, transport_servers.Seen],
    adc: DefaultCredentials,
) -> None:
    grpc_port, rest_server, seen = mutual_tls_servers
    roots, pair = certificate.pem, (certificate.pem, certificate.key_pem)
    rest_endpoint = f"127.0.0.1:{rest_server.server_address[1]}"
    clients = (
        GroundingClient(
            "p",
            transport="grpc",
            endpoint=f"127.0.0.1:{grpc_port}",
            root_certificates=roots,
            client_certificate=pair,
            timeout=10,
        ),
        GroundingClient(
            "p",
            transport="rest",
            rest_endpoint=rest_endpoint,
            root_certificates=roots,
            client_certificate=pair,
            timeout=10,
        ),
    )
    for client in clients:
        with client:
            client.check_grounding("x", ["y"])
    assert "authorization" not in seen.metadata[0]
    assert "authorization" not in rest_server.seen.metadata[0]
    assert adc.loads == 0


def test_the_async_client_sends_explicit_credentials_to_a_loopback_tls_server(
    certificate: Certificate,
    tls_grpc: tuple[int, transport_servers.Seen],
    tls_rest: transport_servers.RestServer,
) -> None:
    port, seen = tls_grpc

    async def call_both() -> None:
        clients = (
            AsyncGroundingClient(
                "p",
                transport="grpc",
                endpoint=f"127.0.0.1:{port}",
                credentials=user_credentials(),
                root_certificates=certificate.pem,
                timeout=10,
            ),
            AsyncGroundingClient(
                "p",
                transport="rest",
                rest_endpoint=f"127.0.0.1:{tls_rest.server_address[1]}",
                credentials=user_credentials(),
                root_certificates=certificate.pem,
                timeout=10,
            ),
        )
        for client in clients:
            async with client:
                await client.check_grounding("x", ["y"])

    asyncio.run(call_both())
    assert seen.metadata[0]["authorization"] == f"Bearer {USER_TOKEN}"
    assert tls_rest.seen.metadata[0]["authorization"] == f"Bearer {USER_TOKEN}"
