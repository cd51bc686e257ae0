"""Which endpoint, which protocol, which credentials: the pure decisions, one rule per test."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from groundwire.client.endpoints import Endpoints, describes_emulator, resolve_endpoints
from groundwire.contract.addresses import is_loopback_target, is_universe_host, parse_grpc_address
from groundwire.contract.errors import EndpointError

GRPC_ENV = "GROUNDWIRE_EMULATOR_HOST"
REST_ENV = "GROUNDWIRE_EMULATOR_REST"


def resolve(environ: Mapping[str, str] | None = None, **options: Any) -> Endpoints:
    """Discovery Engine's endpoints in `global`, for these options and variables."""
    options.setdefault("endpoint", None)
    options.setdefault("rest_endpoint", None)
    return resolve_endpoints("discoveryengine", "global", environ=environ or {}, **options)


@pytest.mark.parametrize(
    "value",
    [
        "127.0.0.1:50051",
        "localhost:50051",
        "[::1]:50051",
        "dns:///localhost:50051",
        "dns:///127.0.0.1:50051",
        "ipv4:127.0.0.1:50051",
        "ipv4:127.0.0.1:50051,127.0.0.2:50052",
        "ipv6:[::1]:50051",
        "unix:/tmp/emulator.sock",
        "unix:///tmp/emulator.sock",
    ],
)
def test_the_grpc_emulator_variable_accepts_its_documented_forms(value: str) -> None:
    found = resolve({GRPC_ENV: value})
    assert found == Endpoints(value, None, plaintext=True)


@pytest.mark.parametrize(
    "value",
    [
        "https://127.0.0.1:50051",
        "http://127.0.0.1:50051",
        "grpc://127.0.0.1:50051",
        "127.0.0.1",
        "localhost",
        "::1",
        "[::1]",
        "127.0.0.1:0",
        "127.0.0.1:70000",
        "dns://8.8.8.8/localhost:50051",
        "dns:localhost:50051",
        "xds:///emulator",
        "ipv4:localhost:50051",
        "unix:",
        "local host:1",
    ],
)
def test_any_other_grpc_emulator_form_is_refused_naming_the_variable(value: str) -> None:
    with pytest.raises(EndpointError, match=GRPC_ENV) as raised:
        resolve({GRPC_ENV: value})
    assert "127.0.0.1:50051" in str(raised.value)


@pytest.mark.parametrize(
    ("value", "url"),
    [
        ("http://127.0.0.1:8080", "http://127.0.0.1:8080"),
        ("http://localhost:8080/", "http://localhost:8080"),
        ("http://[::1]:8080", "http://[::1]:8080"),
        ("127.0.0.1:8080", "http://127.0.0.1:8080"),
        ("localhost:8080", "http://localhost:8080"),
    ],
)
def test_the_rest_emulator_variable_accepts_http_and_host_port(value: str, url: str) -> None:
    assert resolve({REST_ENV: value}) == Endpoints(None, url, plaintext=True)


@pytest.mark.parametrize(
    "value",
    [
        "https://127.0.0.1:8443",
        "HTTPS://localhost:8443",
        "ftp://127.0.0.1:21",
        "127.0.0.1",
        "http://user:secret@127.0.0.1:8080",
        "http://127.0.0.1:8080/?x=1",
        "http://127.0.0.1:notaport",
    ],
)
def test_any_other_rest_emulator_form_is_refused_naming_the_variable(value: str) -> None:
    with pytest.raises(EndpointError, match=REST_ENV) as raised:
        resolve({REST_ENV: value})
    assert "http://127.0.0.1:8080" in str(raised.value)


@pytest.mark.parametrize(
    "environ",
    [
        {GRPC_ENV: "emulator.internal:50051"},
        {GRPC_ENV: "10.0.0.5:50051"},
        {GRPC_ENV: "dns:///grounding.test:50051"},
        {GRPC_ENV: "ipv4:127.0.0.1:1,10.0.0.5:1"},
        {REST_ENV: "http://emulator.internal:8080"},
        {REST_ENV: "192.168.1.9:8080"},
    ],
)
def test_an_emulator_off_loopback_is_refused_unless_switched_on(environ: dict[str, str]) -> None:
    (variable,) = environ
    with pytest.raises(EndpointError, match=f"{variable}.*not loopback"):
        resolve(environ)
    for allowed in (
        resolve({**environ, "GROUNDWIRE_EMULATOR_ALLOW_REMOTE": "1"}),
        resolve(environ, allow_remote_emulator=True),
    ):
        assert allowed.plaintext
        assert allowed.remote_emulator
        assert not allowed.needs_credentials


def test_the_remote_switch_takes_only_yes_or_no() -> None:
    assert not resolve({"GROUNDWIRE_EMULATOR_ALLOW_REMOTE": "0"}).plaintext
    with pytest.raises(EndpointError, match="GROUNDWIRE_EMULATOR_ALLOW_REMOTE=1"):
        resolve({"GROUNDWIRE_EMULATOR_ALLOW_REMOTE": "maybe"})


def test_an_emulator_variable_sends_neither_protocol_to_google() -> None:
    assert resolve({GRPC_ENV: "127.0.0.1:1"}).rest_base_url is None
    assert resolve({REST_ENV: "127.0.0.1:1"}).grpc_target is None


def test_an_emulator_variable_takes_no_credentials_even_explicit_ones() -> None:
    found = resolve({GRPC_ENV: "127.0.0.1:1"}, explicit_credentials=True, tls_requested=True)
    assert found.plaintext
    assert not found.needs_credentials


def test_an_emulator_variable_refuses_any_tls_endpoint_beside_it() -> None:
    for options in (
        {"endpoint": "discoveryengine.googleapis.com"},
        {"rest_endpoint": "https://discoveryengine.googleapis.com"},
        {"endpoint": "127.0.0.1:8443", "explicit_credentials": True},
    ):
        with pytest.raises(EndpointError, match=f"{REST_ENV} is set"):
            resolve({REST_ENV: "127.0.0.1:8080"}, **options)


def test_the_constructors_emulator_endpoints_win_over_the_variables() -> None:
    found = resolve({GRPC_ENV: "127.0.0.1:1"}, endpoint="127.0.0.1:2")
    assert found.grpc_target == "127.0.0.1:2"


def test_a_loopback_endpoint_is_an_emulator_unless_tls_is_asked_for() -> None:
    assert resolve(endpoint="127.0.0.1:50051").plaintext
    with_credentials = resolve(endpoint="127.0.0.1:8443", explicit_credentials=True)
    assert (with_credentials.plaintext, with_credentials.grpc_credentials) == (False, True)
    with_roots = resolve(endpoint="localhost:8443", tls_requested=True)
    assert (with_roots.plaintext, with_roots.grpc_credentials) == (False, False)
    rest = resolve(rest_endpoint="127.0.0.1:8443", tls_requested=True)
    assert rest.rest_base_url == "https://127.0.0.1:8443"


def test_plaintext_and_tls_endpoints_are_not_mixed() -> None:
    with pytest.raises(EndpointError, match="emulator"):
        resolve(endpoint="127.0.0.1:50051", rest_endpoint="https://example.com")


def test_rest_is_derived_only_from_a_google_host() -> None:
    assert resolve(endpoint="dns:///localhost:50051").rest_base_url is None
    assert resolve(endpoint="grounding.example.com:443").rest_base_url is None
    assert resolve(endpoint="10.0.0.5:443").rest_base_url is None
    assert resolve(endpoint="googleapis.com.example.com").rest_base_url is None
    google = resolve(endpoint="dns:///eu-discoveryengine.googleapis.com:443")
    assert google.rest_base_url == "https://eu-discoveryengine.googleapis.com"


def test_grpc_is_derived_only_from_a_google_host() -> None:
    assert resolve(rest_endpoint="https://gateway.example.com").grpc_target is None
    google = resolve(rest_endpoint="https://us-discoveryengine.googleapis.com")
    assert google.grpc_target == "us-discoveryengine.googleapis.com:443"


def test_default_credentials_go_only_to_the_universes_hosts() -> None:
    assert resolve().grpc_credentials
    assert resolve().rest_credentials
    custom = resolve(endpoint="grounding.example.com", rest_endpoint="https://example.com")
    assert not custom.needs_credentials
    mixed = resolve(endpoint="discoveryengine.googleapis.com", rest_endpoint="https://x.example")
    assert (mixed.grpc_credentials, mixed.rest_credentials) == (True, False)


def test_explicit_credentials_go_to_any_tls_endpoint() -> None:
    found = resolve(endpoint="grounding.example.com", explicit_credentials=True)
    assert found.grpc_credentials


def test_the_universe_domain_moves_the_default_hosts_and_the_credentials() -> None:
    environ = {"GOOGLE_CLOUD_UNIVERSE_DOMAIN": "example-universe.com"}
    found = resolve(environ)
    assert found.grpc_target == "discoveryengine.example-universe.com:443"
    assert found.universe == "example-universe.com"
    assert not resolve(environ, endpoint="discoveryengine.googleapis.com").grpc_credentials
    assert resolve(credentials_universe="example-universe.com").universe == "example-universe.com"
    with pytest.raises(EndpointError, match="universe"):
        resolve(environ, credentials_universe="googleapis.com")
    with pytest.raises(EndpointError, match="GOOGLE_CLOUD_UNIVERSE_DOMAIN"):
        resolve({"GOOGLE_CLOUD_UNIVERSE_DOMAIN": "not a domain"})


@pytest.mark.parametrize(
    ("host", "universe", "expected"),
    [
        ("discoveryengine.googleapis.com", "googleapis.com", True),
        ("googleapis.com", "googleapis.com", True),
        ("DISCOVERYENGINE.GOOGLEAPIS.COM.", "googleapis.com", True),
        ("evilgoogleapis.com", "googleapis.com", False),
        ("googleapis.com.evil.example", "googleapis.com", False),
        ("localhost", "googleapis.com", False),
    ],
)
def test_universe_hosts_are_the_domain_and_names_under_it(
    host: str, universe: str, expected: bool
) -> None:
    assert is_universe_host(host, universe) is expected


@pytest.mark.parametrize(
    ("endpoint", "message"),
    [
        ("https://discoveryengine.googleapis.com", "not a URL"),
        ("discoveryengine.googleapis.com:https", "not a gRPC address"),
    ],
)
def test_a_malformed_endpoint_is_refused_naming_the_argument(endpoint: str, message: str) -> None:
    with pytest.raises(EndpointError, match=f"endpoint=.*{message}"):
        resolve(endpoint=endpoint)


def test_loopback_targets_are_known_without_resolving_them() -> None:
    assert is_loopback_target("[::1]:50051")
    assert is_loopback_target("ipv4:127.0.0.1:1,127.0.0.9:2")
    assert not is_loopback_target("ipv4:127.0.0.1:1,10.0.0.1:2")
    assert not is_loopback_target("grounding.test:443")
    assert not is_loopback_target("not a target")
    assert parse_grpc_address("[::1]", source="x", default_port="443").target == "[::1]:443"


def test_describes_emulator_tells_emulators_from_services() -> None:
    assert describes_emulator(None, None, {REST_ENV: "127.0.0.1:8080"})
    assert describes_emulator("localhost:50051", None, {})
    assert not describes_emulator(None, None, {})
    assert not describes_emulator("discoveryengine.googleapis.com", None, {})


def test_a_refused_endpoint_is_a_groundwire_error_and_a_value_error() -> None:
    from groundwire.contract.errors import GroundwireError, StatusCode

    with pytest.raises(GroundwireError, match="GROUNDWIRE_EMULATOR_HOST") as caught:
        resolve_endpoints(
            "discoveryengine",
            "global",
            endpoint=None,
            rest_endpoint=None,
            environ={"GROUNDWIRE_EMULATOR_HOST": "some-host:1"},
        )
    assert caught.value.code == StatusCode.INVALID_ARGUMENT
    assert not caught.value.retryable
    assert isinstance(caught.value, ValueError)


@pytest.mark.parametrize(
    "location",
    [
        "dns:127.0.0.1:18943?",
        "dns:evil.example:443?",
        "evil.example/x",
        "US",
        "eu ",
        "",
        "a" * 64,
        "eu?x",
        "us-central1.evil.example",
    ],
)
def test_no_host_is_built_from_a_location_not_shaped_like_one(location: str) -> None:
    with pytest.raises(EndpointError, match=r"location .* is not a location"):
        resolve_endpoints("aiplatform", location, endpoint=None, rest_endpoint=None, environ={})
    with pytest.raises(EndpointError, match=r"location .* is not a location"):
        resolve_endpoints(
            "aiplatform",
            location,
            endpoint=None,
            rest_endpoint=None,
            environ={},
            explicit_credentials=True,
        )


@pytest.mark.parametrize("location", ["global", "us", "eu", "us-central1", "europe-west4"])
def test_googles_locations_build_google_hosts_that_carry_credentials(location: str) -> None:
    found = resolve_endpoints("aiplatform", location, endpoint=None, rest_endpoint=None, environ={})
    assert found.grpc_target is not None
    assert found.grpc_target.endswith(".googleapis.com:443")
    assert found.grpc_credentials
    assert found.rest_credentials


@pytest.mark.parametrize(
    "host",
    [
        "dns:127.0.0.1:18943?-aiplatform.googleapis.com",
        "127.0.0.1:1?-aiplatform.googleapis.com",
        "evil.example/-aiplatform.googleapis.com",
        "evil.example#.googleapis.com",
    ],
)
def test_a_host_that_is_not_a_plain_dns_name_is_never_the_universes(host: str) -> None:
    assert not is_universe_host(host, "googleapis.com")


def test_explicit_credentials_still_go_to_an_explicit_ip_endpoint() -> None:
    # A Private Service Connect address: the user named it, together with credentials.
    found = resolve(endpoint="10.128.0.7:443", explicit_credentials=True)
    assert found.grpc_target == "10.128.0.7:443"
    assert found.grpc_credentials
    assert not found.plaintext
    assert found.rest_base_url is None
