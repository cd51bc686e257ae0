"""Mutual TLS as Google's clients do it: GOOGLE_API_USE_CLIENT_CERTIFICATE, the mTLS endpoints.

The certificate google-auth finds comes from a workload certificate configuration written in
the test's home folder; the servers are on loopback and refuse a client
that presents no certificate. Where a client would reach Google, a recorder stands in.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Iterator
from concurrent import futures
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import google.auth
import grpc
import pytest
from google.oauth2.credentials import Credentials

from groundwire import AsyncGroundingClient, EndpointError, GroundingClient, Unavailable
from groundwire.client import factory as base_module
from groundwire.contract import apis
from tests.support.canned import CannedServers
from tests.transports import servers as transport_servers
from tests.transports.tls import Certificate, make_certificate, start_tls_rest_server

_CLEARED = (
    "GROUNDWIRE_EMULATOR_HOST",
    "GROUNDWIRE_EMULATOR_REST",
    "GOOGLE_CLOUD_UNIVERSE_DOMAIN",
    "GOOGLE_API_USE_CLIENT_CERTIFICATE",
    "GOOGLE_API_USE_MTLS_ENDPOINT",
    "GOOGLE_API_CERTIFICATE_CONFIG",
    "CLOUDSDK_CONTEXT_AWARE_CERTIFICATE_CONFIG_FILE_PATH",
)


@pytest.fixture(autouse=True)
def no_machine_settings(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No variables from the machine, no gcloud configuration, ADC that never leaves it."""
    for name in _CLEARED:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))  # no ~/.config/gcloud certificate config
    monkeypatch.setattr(google.auth, "default", lambda **_: (Credentials(token="adc"), "p"))


@pytest.fixture(scope="module")
def certificate(tmp_path_factory: pytest.TempPathFactory) -> Certificate:
    return make_certificate(tmp_path_factory.mktemp("mtls"))


def use_workload_certificate(
    monkeypatch: pytest.MonkeyPatch, certificate: Certificate, tmp_path: Path
) -> None:
    """Configures google-auth's default client certificate source with `certificate`.

    The workload configuration goes where gcloud puts it, under the (test's) home folder:
    every google-auth from the floor (2.43) on looks there.
    """
    config = tmp_path / ".config" / "gcloud" / "certificate_config.json"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(
        json.dumps(
            {
                "cert_configs": {
                    "workload": {
                        "cert_path": str(certificate.cert_file),
                        "key_path": str(certificate.key_file),
                    }
                }
            }
        )
    )
    monkeypatch.setenv("GOOGLE_API_USE_CLIENT_CERTIFICATE", "true")


@dataclass
class MutualTls:
    """A gRPC and a REST server on loopback that accept only clients presenting the cert."""

    grpc_port: int
    rest: transport_servers.RestServer
    grpc_seen: transport_servers.Seen

    @property
    def calls(self) -> int:
        return self.grpc_seen.calls + self.rest.seen.calls


@pytest.fixture
def mutual_tls(certificate: Certificate) -> Iterator[MutualTls]:
    seen = transport_servers.Seen()
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
    server.add_generic_rpc_handlers([transport_servers._grpc_handlers(seen)])
    port = server.add_secure_port(
        "127.0.0.1:0",
        grpc.ssl_server_credentials(
            [(certificate.key_pem, certificate.pem)],
            root_certificates=certificate.pem,
            require_client_auth=True,
        ),
    )
    server.start()
    rest = start_tls_rest_server(certificate, require_client_certificate=True)
    yield MutualTls(port, rest, seen)
    server.stop(grace=None)
    rest.shutdown()
    rest.server_close()


def clients(servers: MutualTls, certificate: Certificate, **options: Any) -> list[Any]:
    common = {"root_certificates": certificate.pem, "timeout": 10, "retry": None, **options}
    return [
        GroundingClient("p", transport="grpc", endpoint=f"127.0.0.1:{servers.grpc_port}", **common),
        GroundingClient(
            "p",
            transport="rest",
            rest_endpoint=f"https://127.0.0.1:{servers.rest.server_address[1]}",
            **common,
        ),
    ]


def test_the_default_client_certificate_is_presented_when_google_auth_says_so(
    monkeypatch: pytest.MonkeyPatch,
    certificate: Certificate,
    mutual_tls: MutualTls,
    tmp_path: Path,
) -> None:
    use_workload_certificate(monkeypatch, certificate, tmp_path)
    for client in clients(mutual_tls, certificate):
        with client:
            client.check_grounding("x", ["y"])
    assert mutual_tls.grpc_seen.calls == 1
    assert mutual_tls.rest.seen.calls == 1
    assert "authorization" not in mutual_tls.grpc_seen.metadata[0]


def test_without_google_auths_word_no_certificate_is_presented(
    monkeypatch: pytest.MonkeyPatch,
    certificate: Certificate,
    mutual_tls: MutualTls,
    tmp_path: Path,
) -> None:
    use_workload_certificate(monkeypatch, certificate, tmp_path)
    monkeypatch.setenv("GOOGLE_API_USE_CLIENT_CERTIFICATE", "false")
    for client in clients(mutual_tls, certificate):
        with client, pytest.raises(Unavailable):
            client.check_grounding("x", ["y"])
    assert mutual_tls.calls == 0


def test_client_cert_source_is_used_when_client_certificates_are_on(
    monkeypatch: pytest.MonkeyPatch, certificate: Certificate, mutual_tls: MutualTls
) -> None:
    asked: list[str] = []

    def source() -> tuple[bytes, bytes]:
        asked.append("asked")
        return certificate.pem, certificate.key_pem

    options = {"client_cert_source": source}
    monkeypatch.setenv("GOOGLE_API_USE_CLIENT_CERTIFICATE", "false")
    for client in clients(mutual_tls, certificate, client_options=options):
        with client, pytest.raises(Unavailable):
            client.check_grounding("x", ["y"])
    assert asked == []
    monkeypatch.setenv("GOOGLE_API_USE_CLIENT_CERTIFICATE", "true")
    for client in clients(mutual_tls, certificate, client_options=options):
        with client:
            client.check_grounding("x", ["y"])
    assert mutual_tls.calls == 2
    assert asked == ["asked", "asked"]


def test_the_async_client_presents_the_default_certificate_too(
    monkeypatch: pytest.MonkeyPatch,
    certificate: Certificate,
    mutual_tls: MutualTls,
    tmp_path: Path,
) -> None:
    use_workload_certificate(monkeypatch, certificate, tmp_path)
    common: dict[str, Any] = {"root_certificates": certificate.pem, "timeout": 10}

    async def run() -> None:
        for client in (
            AsyncGroundingClient(
                "p", transport="grpc", endpoint=f"127.0.0.1:{mutual_tls.grpc_port}", **common
            ),
            AsyncGroundingClient(
                "p",
                transport="rest",
                rest_endpoint=f"https://127.0.0.1:{mutual_tls.rest.server_address[1]}",
                **common,
            ),
        ):
            async with client:
                await client.check_grounding("x", ["y"])

    asyncio.run(run())
    assert mutual_tls.calls == 2


def test_a_local_emulator_stays_an_emulator_on_a_machine_with_a_workload_certificate(
    monkeypatch: pytest.MonkeyPatch, certificate: Certificate, tmp_path: Path
) -> None:
    use_workload_certificate(monkeypatch, certificate, tmp_path)

    def ok_check(method: apis.Method, request: Any) -> Any:
        return method.response_class(support_score=1.0)

    with (
        CannedServers(ok_check) as emulator,
        GroundingClient("p", endpoint=emulator.grpc_address, timeout=10) as client,
    ):
        assert client.check_grounding("x", ["y"]).support_score == 1.0
    assert emulator.recorder.grpc_calls == 1


# ---- which host: GOOGLE_API_USE_MTLS_ENDPOINT ----------------------------------------------


@dataclass
class Recorder:
    """Builds nothing: records the addresses the client would connect to, by protocol."""

    built: dict[str, tuple[str, dict[str, Any]]] = field(default_factory=dict)

    def transport_class(self, name: str) -> Callable[..., Any]:
        protocol = name.split(".")[0].removesuffix("_aio")

        def build(*args: Any, **kwargs: Any) -> Any:
            if protocol != "auto":
                self.built[protocol] = (args[0], kwargs)
            return args

        return build

    def addresses(self) -> tuple[str, str]:
        return self.built["grpc"][0], self.built["rest"][0]


@pytest.fixture
def recorder(monkeypatch: pytest.MonkeyPatch) -> Recorder:
    recording = Recorder()
    monkeypatch.setattr(base_module, "_transport_class", recording.transport_class)
    return recording


MTLS = ("discoveryengine.mtls.googleapis.com:443", "https://discoveryengine.mtls.googleapis.com")
PLAIN = ("discoveryengine.googleapis.com:443", "https://discoveryengine.googleapis.com")


@pytest.mark.parametrize(
    ("mode", "with_certificate", "expected"),
    [
        ("always", False, MTLS),
        ("auto", True, MTLS),
        ("", True, MTLS),
        ("auto", False, PLAIN),
        ("never", True, PLAIN),
    ],
)
def test_the_mtls_endpoint_follows_the_variable_and_the_certificate(
    recorder: Recorder,
    monkeypatch: pytest.MonkeyPatch,
    certificate: Certificate,
    mode: str,
    with_certificate: bool,
    expected: tuple[str, str],
) -> None:
    monkeypatch.setenv("GOOGLE_API_USE_MTLS_ENDPOINT", mode)
    pair = (certificate.pem, certificate.key_pem) if with_certificate else None
    GroundingClient("p", client_certificate=pair)._transport("discoveryengine")
    assert recorder.addresses() == expected
    assert recorder.built["grpc"][1]["credentials"] is not None  # ADC go to Google's hosts


def test_regional_hosts_have_mtls_twins(
    recorder: Recorder, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GOOGLE_API_USE_MTLS_ENDPOINT", "always")
    GroundingClient("p", "us")._transport("discoveryengine")
    assert recorder.addresses()[0] == "us-discoveryengine.mtls.googleapis.com:443"
    GroundingClient("p", "europe-west4")._transport("aiplatform")
    assert recorder.addresses()[0] == "europe-west4-aiplatform.mtls.googleapis.com:443"


def test_an_explicit_endpoint_is_kept_whatever_the_variable(
    recorder: Recorder, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GOOGLE_API_USE_MTLS_ENDPOINT", "always")
    GroundingClient("p", endpoint="eu-discoveryengine.googleapis.com")._transport("discoveryengine")
    assert recorder.addresses()[0] == "eu-discoveryengine.googleapis.com:443"


def test_a_bad_mtls_variable_or_another_universe_is_an_endpoint_error(
    recorder: Recorder, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GOOGLE_API_USE_MTLS_ENDPOINT", "sometimes")
    with pytest.raises(EndpointError, match="auto, never or always"):
        GroundingClient("p")._transport("discoveryengine")
    monkeypatch.setenv("GOOGLE_API_USE_MTLS_ENDPOINT", "always")
    credentials = Credentials(token="t", universe_domain="other.test")
    with pytest.raises(EndpointError, match=r"only in the googleapis\.com universe"):
        GroundingClient("p", credentials=credentials)._transport("discoveryengine")
    assert recorder.built == {}
