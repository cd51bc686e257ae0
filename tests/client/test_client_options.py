"""`client_options=` and `universe_domain=` work as in Google's official clients.

Where the client would connect beyond loopback, a recorder stands in for the transports, so
no test sends traffic off the machine; Application Default Credentials are a stand-in.
"""

from __future__ import annotations

import json
import subprocess
import sys
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import google.auth
import pytest
from google.oauth2.credentials import Credentials

from groundwire import ConfigurationError, EndpointError, GroundingClient
from groundwire.client import factory as base_module
from groundwire.contract import apis
from tests.support.canned import CannedServers

_CLEARED = (
    "GROUNDWIRE_EMULATOR_HOST",
    "GROUNDWIRE_EMULATOR_REST",
    "GOOGLE_CLOUD_UNIVERSE_DOMAIN",
    "GOOGLE_API_USE_CLIENT_CERTIFICATE",
    "GOOGLE_API_USE_MTLS_ENDPOINT",
)


class AudienceCredentials(Credentials):
    """Credentials of Google Distributed Cloud Hosted, which take an audience."""

    audiences: ClassVar[list[str]] = []

    def with_gdch_audience(self, audience: str) -> AudienceCredentials:
        AudienceCredentials.audiences.append(audience)
        return self


@dataclass
class DefaultCredentials:
    """A stand-in for google.auth.default that records what it was asked for."""

    calls: list[dict[str, Any]] = field(default_factory=list)
    make: Callable[[], Credentials] = lambda: Credentials(token="adc")

    def __call__(self, *args: Any, **kwargs: Any) -> tuple[Credentials, str]:
        self.calls.append(kwargs)
        return self.make(), "adc-project"


@pytest.fixture(autouse=True)
def adc(monkeypatch: pytest.MonkeyPatch) -> DefaultCredentials:
    for name in _CLEARED:
        monkeypatch.delenv(name, raising=False)
    stand_in = DefaultCredentials()
    monkeypatch.setattr(google.auth, "default", stand_in)
    return stand_in


@dataclass
class Recorder:
    """Builds nothing: records the transports the client asks for, by protocol."""

    built: dict[str, tuple[str, dict[str, Any]]] = field(default_factory=dict)

    def transport_class(self, name: str) -> Callable[..., Any]:
        protocol = name.split(".")[0].removesuffix("_aio")

        def build(*args: Any, **kwargs: Any) -> Any:
            if protocol != "auto":
                self.built[protocol] = (args[0], kwargs)
            return args

        return build


@pytest.fixture
def recorder(monkeypatch: pytest.MonkeyPatch) -> Recorder:
    recording = Recorder()
    monkeypatch.setattr(base_module, "_transport_class", recording.transport_class)
    return recording


def ok_check(method: apis.Method, request: Any) -> Any:
    response: Any = method.response_class(support_score=1.0)
    response.claims.add(start_pos=0, end_pos=1, claim_text="x")
    return response


def api_core_options(**fields: Any) -> Any:
    client_options = pytest.importorskip("google.api_core.client_options")
    return client_options.ClientOptions(**fields)


# ---- the fields ----------------------------------------------------------------------------


@pytest.mark.parametrize("form", ["dict", "ClientOptions"])
def test_api_endpoint_is_where_calls_go(servers: CannedServers, form: str) -> None:
    servers.behaviour = ok_check
    fields = {"api_endpoint": servers.grpc_address}
    options = fields if form == "dict" else api_core_options(**fields)
    with GroundingClient("p", client_options=options, timeout=10) as client:
        assert client.check_grounding("x", ["y"]).support_score == 1.0
    assert servers.recorder.grpc_calls == 1


def test_an_api_endpoint_url_or_a_rest_transport_makes_it_the_rest_endpoint(
    servers: CannedServers,
) -> None:
    servers.behaviour = ok_check
    for options, transport in (
        ({"api_endpoint": servers.http_url}, "auto"),
        ({"api_endpoint": f"127.0.0.1:{servers.http_port}"}, "rest"),
    ):
        client = GroundingClient("p", transport=transport, client_options=options, timeout=10)  # type: ignore[arg-type]
        with client:
            client.check_grounding("x", ["y"])
    assert servers.recorder.rest_calls == 2
    assert servers.recorder.grpc_calls == 0


def test_quota_project_id_is_sent_as_the_user_project(servers: CannedServers) -> None:
    servers.behaviour = ok_check
    options = {"api_endpoint": servers.grpc_address, "quota_project_id": "billing"}
    with GroundingClient("p", client_options=options, timeout=10) as client:
        client.check_grounding("x", ["y"])
    assert servers.recorder.metadata[0]["x-goog-user-project"] == "billing"


def test_scopes_are_asked_of_application_default_credentials(
    recorder: Recorder, adc: DefaultCredentials
) -> None:
    scopes = ["https://www.googleapis.com/auth/discoveryengine.readwrite"]
    GroundingClient("p", client_options={"scopes": scopes})._transport("discoveryengine")
    assert adc.calls[0]["scopes"] == scopes
    GroundingClient("p")._transport("discoveryengine")
    assert adc.calls[1]["scopes"] == ["https://www.googleapis.com/auth/cloud-platform"]


def test_api_audience_is_given_to_credentials_that_take_one(
    recorder: Recorder, adc: DefaultCredentials
) -> None:
    adc.make = lambda: AudienceCredentials(token="gdch")
    AudienceCredentials.audiences.clear()
    options = {"api_audience": "https://discoveryengine.example"}
    GroundingClient("p", client_options=options)._transport("discoveryengine")
    GroundingClient("p")._transport("discoveryengine")
    assert AudienceCredentials.audiences == [
        "https://discoveryengine.example",
        "discoveryengine.googleapis.com",
    ]


def test_a_credentials_file_warns_as_google_does_and_its_credentials_are_used(
    recorder: Recorder, adc: DefaultCredentials, tmp_path: Path
) -> None:
    path = tmp_path / "user.json"
    path.write_text(
        json.dumps(
            {
                "type": "authorized_user",
                "client_id": "id",
                "client_secret": "secret",
                "refresh_token": "refresh-from-file",
            }
        )
    )
    with pytest.warns(DeprecationWarning, match="credentials_file is deprecated"):
        client = GroundingClient("p", client_options={"credentials_file": str(path)})
    with warnings.catch_warnings():  # google-auth warns again as it loads the file (>= 2.44)
        warnings.simplefilter("ignore", DeprecationWarning)
        client._transport("discoveryengine")
    credentials = recorder.built["grpc"][1]["credentials"]
    assert credentials.refresh_token == "refresh-from-file"
    assert adc.calls == []


def test_a_credentials_file_beside_credentials_is_refused(tmp_path: Path) -> None:
    with (
        pytest.warns(DeprecationWarning, match="credentials_file"),
        pytest.raises(ConfigurationError, match="mutually exclusive"),
    ):
        GroundingClient(
            "p",
            credentials=Credentials(token="t"),
            client_options={"credentials_file": str(tmp_path / "x.json")},
        )


@pytest.mark.parametrize(
    ("arguments", "words"),
    [
        (
            {"endpoint": "a.example:443", "client_options": {"api_endpoint": "b.example:443"}},
            "api_endpoint",
        ),
        ({"quota_project": "a", "client_options": {"quota_project_id": "b"}}, "quota_project"),
        (
            {"universe_domain": "a.example", "client_options": {"universe_domain": "b.example"}},
            "universe_domain",
        ),
        ({"client_options": {"endpoint": "x"}}, "no field 'endpoint'"),
        ({"client_options": {"api_key": "k"}}, "api_key is not supported"),
        ({"client_options": {"scopes": "one-scope"}}, "list of scope"),
        ({"client_options": {"client_cert_source": b"pem"}}, "callable"),
    ],
)
def test_conflicting_or_unknown_options_are_configuration_errors(
    arguments: dict[str, Any], words: str
) -> None:
    with pytest.raises(ConfigurationError, match=words) as raised:
        GroundingClient("p", **arguments)
    assert isinstance(raised.value, ValueError)


def test_client_options_are_read_without_google_api_core(servers: CannedServers) -> None:
    script = (
        "import sys\n"
        "sys.modules['google.api_core'] = None  # importing it fails from here on\n"
        "from groundwire import GroundingClient\n"
        f"options = {{'api_endpoint': '{servers.grpc_address}', 'quota_project_id': 'b'}}\n"
        "with GroundingClient('p', client_options=options, timeout=10) as client:\n"
        "    print(client.check_grounding('x', ['y']).support_score)\n"
    )
    servers.behaviour = ok_check
    ran = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=False
    )
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.strip() == "1.0"


# ---- the universe --------------------------------------------------------------------------


@pytest.mark.parametrize("given", ["argument", "client_options", "variable"])
def test_the_universe_moves_every_default_host(
    recorder: Recorder, monkeypatch: pytest.MonkeyPatch, given: str
) -> None:
    universe = "example-universe.test"
    credentials = Credentials(token="t", universe_domain=universe)
    arguments: dict[str, Any] = {"credentials": credentials}
    if given == "argument":
        arguments["universe_domain"] = universe
    elif given == "client_options":
        arguments["client_options"] = {"universe_domain": universe}
    else:
        monkeypatch.setenv("GOOGLE_CLOUD_UNIVERSE_DOMAIN", universe)
    GroundingClient("p", **arguments)._transport("discoveryengine")
    assert recorder.built["grpc"][0] == f"discoveryengine.{universe}:443"
    assert recorder.built["rest"][0] == f"https://discoveryengine.{universe}"
    assert recorder.built["grpc"][1]["credentials"] is credentials
    GroundingClient("p", "us-central1", **arguments)._transport("aiplatform")
    assert recorder.built["grpc"][0] == f"us-central1-aiplatform.{universe}:443"


def test_the_argument_beats_the_variable(
    recorder: Recorder, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GOOGLE_CLOUD_UNIVERSE_DOMAIN", "other.test")
    credentials = Credentials(token="t", universe_domain="mine.test")
    GroundingClient("p", universe_domain="mine.test", credentials=credentials)._transport(
        "discoveryengine"
    )
    assert recorder.built["grpc"][0] == "discoveryengine.mine.test:443"


def test_credentials_of_another_universe_are_refused(
    recorder: Recorder, adc: DefaultCredentials
) -> None:
    googleapis = Credentials(token="t")  # of googleapis.com
    with pytest.raises(EndpointError, match=r"universe_domain='mine\.test'"):
        GroundingClient("p", universe_domain="mine.test", credentials=googleapis)._transport(
            "discoveryengine"
        )
    with pytest.raises(EndpointError, match="Application Default Credentials"):
        GroundingClient("p", universe_domain="mine.test")._transport("discoveryengine")
    assert recorder.built == {}


def test_a_universe_domain_must_be_a_domain() -> None:
    with pytest.raises(EndpointError, match="not a domain"):
        GroundingClient("p", universe_domain="https://mine.test/")


@pytest.mark.parametrize("version", ["v1", "v1beta", "v1alpha"])
def test_a_client_says_which_api_version_it_calls(version: str) -> None:
    """Integrations (the LangChain runnable) read it instead of the client's private config."""
    with GroundingClient("p", endpoint="127.0.0.1:1", api_version=version) as client:
        assert client.api_version == version
