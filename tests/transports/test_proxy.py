"""REST calls and token requests go through the proxy the environment names, unless exempt.

REST is the way out of networks whose proxies block gRPC, so it must pass them as curl and
Google's own clients do: HTTPS in a CONNECT tunnel, credentials from the proxy URL.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from groundwire.contract.errors import FailedPrecondition
from groundwire.transports import routes
from groundwire.transports.auth import AccessTokens
from groundwire.transports.base import ConnectionFailure
from tests.transports import canned
from tests.transports.kinds import KINDS, Kind, rest_calls
from tests.transports.proxy import ProxyServer, start_proxy
from tests.transports.servers import RestServer
from tests.transports.tls import HOST_NAME, Certificate
from tests.transports.tokens import TOKEN, TokenServer, credentials_for

PROXY_VARIABLES = (
    "https_proxy",
    "HTTPS_PROXY",
    "http_proxy",
    "HTTP_PROXY",
    "all_proxy",
    "ALL_PROXY",
    "no_proxy",
    "NO_PROXY",
)


@pytest.fixture(autouse=True)
def no_proxy_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test starts from an environment that names no proxy."""
    for name in PROXY_VARIABLES:
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def proxy() -> Iterator[ProxyServer]:
    server = start_proxy()
    yield server
    server.shutdown()
    server.server_close()


def through_proxy(kind: Kind, server: RestServer, certificate: Certificate, count: int = 1) -> Any:
    """Calls to the TLS server by a name that only the proxy can resolve."""
    url = f"https://{HOST_NAME}:{server.server_address[1]}"
    return rest_calls(kind, url, count, ssl_context=certificate.client_context())


@pytest.mark.parametrize("kind", KINDS)
def test_https_travels_in_one_kept_alive_connect_tunnel_through_https_proxy(
    monkeypatch: pytest.MonkeyPatch,
    proxy: ProxyServer,
    tls_server: RestServer,
    certificate: Certificate,
    kind: Kind,
) -> None:
    monkeypatch.setenv("HTTPS_PROXY", proxy.url)

    assert through_proxy(kind, tls_server, certificate, 2) == [canned.check_response()] * 2
    port = tls_server.server_address[1]
    assert [(m, t) for m, t, _ in proxy.seen.requests] == [("CONNECT", f"{HOST_NAME}:{port}")]
    assert tls_server.seen.calls == 2


@pytest.mark.parametrize("kind", KINDS)
def test_the_proxy_urls_credentials_go_to_the_proxy_and_no_further(
    monkeypatch: pytest.MonkeyPatch, tls_server: RestServer, certificate: Certificate, kind: Kind
) -> None:
    proxy = start_proxy(user_info="alice:s3cret@!")
    monkeypatch.setenv("https_proxy", proxy.url.replace("//", "//alice:s3cret%40%21@"))
    try:
        assert through_proxy(kind, tls_server, certificate) == [canned.check_response()]
    finally:
        proxy.shutdown()
        proxy.server_close()
    assert proxy.seen.requests[0][2]["proxy-authorization"] == proxy.required
    assert "proxy-authorization" not in tls_server.seen.metadata[-1]


@pytest.mark.parametrize("kind", KINDS)
def test_all_proxy_serves_when_https_proxy_is_not_set(
    monkeypatch: pytest.MonkeyPatch,
    proxy: ProxyServer,
    tls_server: RestServer,
    certificate: Certificate,
    kind: Kind,
) -> None:
    monkeypatch.setenv("ALL_PROXY", proxy.url.removeprefix("http://"))  # scheme left out

    assert through_proxy(kind, tls_server, certificate) == [canned.check_response()]
    assert proxy.seen.requests[0][0] == "CONNECT"


@pytest.mark.parametrize("kind", KINDS)
def test_a_proxy_refusing_the_tunnel_is_a_connection_failure_that_names_it(
    monkeypatch: pytest.MonkeyPatch, tls_server: RestServer, certificate: Certificate, kind: Kind
) -> None:
    proxy = start_proxy(refuse=403)
    monkeypatch.setenv("HTTPS_PROXY", proxy.url)
    try:
        with pytest.raises(ConnectionFailure) as raised:
            through_proxy(kind, tls_server, certificate)
    finally:
        proxy.shutdown()
        proxy.server_close()
    assert "403" in raised.value.message
    assert f"through the proxy 127.0.0.1:{proxy.server_address[1]}" in raised.value.message
    assert tls_server.seen.calls == 0


def test_no_proxy_exempts_hosts_and_domains(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HTTPS_PROXY", "http://proxy.internal:3128")
    monkeypatch.setenv("NO_PROXY", "metadata.google.internal, .corp.example,10.0.0.7:443")
    assert routes.environment_proxy("https", "api.corp.example", 443) is None
    assert routes.environment_proxy("https", "metadata.google.internal", 443) is None
    assert routes.environment_proxy("https", "10.0.0.7", 443) is None
    assert routes.environment_proxy("https", "10.0.0.7", 8443) is not None
    assert routes.environment_proxy("https", "discoveryengine.googleapis.com", 443) == routes.Proxy(
        "proxy.internal", 3128
    )
    monkeypatch.setenv("no_proxy", "*")
    assert routes.environment_proxy("https", "discoveryengine.googleapis.com", 443) is None


@pytest.mark.parametrize("kind", KINDS)
def test_loopback_is_never_proxied(
    monkeypatch: pytest.MonkeyPatch, rest_server: RestServer, refused_port: int, kind: Kind
) -> None:
    for name in ("HTTPS_PROXY", "HTTP_PROXY", "ALL_PROXY"):
        monkeypatch.setenv(name, f"http://127.0.0.1:{refused_port}")

    assert rest_calls(kind, rest_server.base_url) == [canned.check_response()]


@pytest.mark.parametrize("kind", KINDS)
def test_a_proxy_that_is_not_http_is_refused_at_call_time_with_a_clear_error(
    monkeypatch: pytest.MonkeyPatch, tls_server: RestServer, certificate: Certificate, kind: Kind
) -> None:
    monkeypatch.setenv("HTTPS_PROXY", "socks5://proxy.internal:1080")
    with pytest.raises(FailedPrecondition) as raised:
        through_proxy(kind, tls_server, certificate)  # building the transport does not fail
    assert "only http:// proxies" in raised.value.message
    assert not raised.value.retryable


@pytest.mark.parametrize("kind", KINDS)
def test_plain_http_to_a_remote_host_is_forwarded_by_absolute_url(
    monkeypatch: pytest.MonkeyPatch, proxy: ProxyServer, rest_server: RestServer, kind: Kind
) -> None:
    monkeypatch.setenv("HTTP_PROXY", proxy.url)
    url = f"http://{HOST_NAME}:{rest_server.server_address[1]}"

    assert rest_calls(kind, url, allow_remote_plaintext=True) == [canned.check_response()]
    ((method, target, _),) = proxy.seen.requests
    assert method == "POST"
    assert target.startswith(f"{url}/v1/")
    assert rest_server.seen.calls == 1


def test_tokens_are_fetched_through_http_proxy_by_absolute_url(
    monkeypatch: pytest.MonkeyPatch, proxy: ProxyServer, token_server: TokenServer
) -> None:
    monkeypatch.setenv("HTTP_PROXY", proxy.url)
    tokens = AccessTokens(credentials_for(token_server, host="tokens.test"))
    headers: dict[str, str] = {}
    try:
        tokens.apply(headers, "https://discoveryengine.googleapis.com/v1/x")
    finally:
        tokens.close()
    assert headers["authorization"] == f"Bearer {TOKEN}"
    method, target, _ = proxy.seen.requests[0]
    assert (method, target) == ("POST", f"http://tokens.test:{token_server.port}/token")
