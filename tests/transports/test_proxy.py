"""REST calls and token requests go through the proxy the environment names, unless exempt.

REST is the way out of networks whose proxies block gRPC, so it must pass them as curl and
Google's own clients do: HTTPS in a CONNECT tunnel, credentials from the proxy URL.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from groundwire.core.errors import FailedPrecondition
from groundwire.transports import routes
from groundwire.transports.auth import AccessTokens
from groundwire.transports.base import ConnectionFailure
from groundwire.transports.rest import RestTransport
from groundwire.transports.rest_aio import AsyncRestTransport
from tests.transports import canned
from tests.transports.proxy import ProxyServer, start_proxy
from tests.transports.servers import RestServer
from tests.transports.tls import HOST_NAME, Certificate, start_tls_rest_server
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
def tls_server(certificate: Certificate) -> Iterator[RestServer]:
    server = start_tls_rest_server(certificate)
    yield server
    server.shutdown()
    server.server_close()


@pytest.fixture
def proxy() -> Iterator[ProxyServer]:
    server = start_proxy()
    yield server
    server.shutdown()
    server.server_close()


def transport_to(server: RestServer, certificate: Certificate) -> RestTransport:
    """A transport to the TLS server by a name that only the proxy can resolve."""
    return RestTransport(
        f"https://{HOST_NAME}:{server.server_address[1]}",
        credentials=None,
        ssl_context=certificate.client_context(),
    )


def call(transport: RestTransport) -> object:
    return transport.unary(
        canned.CHECK, canned.check_request(), timeout=3, metadata=canned.METADATA
    )


def test_https_travels_in_a_connect_tunnel_through_https_proxy(
    monkeypatch: pytest.MonkeyPatch,
    proxy: ProxyServer,
    tls_server: RestServer,
    certificate: Certificate,
) -> None:
    monkeypatch.setenv("HTTPS_PROXY", proxy.url)
    transport = transport_to(tls_server, certificate)
    try:
        assert call(transport) == canned.check_response()
        assert call(transport) == canned.check_response()
    finally:
        transport.close()
    port = tls_server.server_address[1]
    assert [(m, t) for m, t, _ in proxy.seen.requests] == [("CONNECT", f"{HOST_NAME}:{port}")]
    assert tls_server.seen.calls == 2  # both calls in one kept-alive tunnel


def test_the_proxy_urls_credentials_go_to_the_proxy_and_no_further(
    monkeypatch: pytest.MonkeyPatch, tls_server: RestServer, certificate: Certificate
) -> None:
    proxy = start_proxy(user_info="alice:s3cret@!")
    monkeypatch.setenv("https_proxy", proxy.url.replace("//", "//alice:s3cret%40%21@"))
    transport = transport_to(tls_server, certificate)
    try:
        assert call(transport) == canned.check_response()
    finally:
        transport.close()
        proxy.shutdown()
        proxy.server_close()
    assert proxy.seen.requests[0][2]["proxy-authorization"] == proxy.required
    assert "proxy-authorization" not in tls_server.seen.metadata[-1]


def test_all_proxy_serves_when_https_proxy_is_not_set(
    monkeypatch: pytest.MonkeyPatch,
    proxy: ProxyServer,
    tls_server: RestServer,
    certificate: Certificate,
) -> None:
    monkeypatch.setenv("ALL_PROXY", proxy.url.removeprefix("http://"))  # scheme left out
    transport = transport_to(tls_server, certificate)
    try:
        assert call(transport) == canned.check_response()
    finally:
        transport.close()
    assert proxy.seen.requests[0][0] == "CONNECT"


def test_a_proxy_refusing_the_tunnel_is_a_connection_failure_that_names_it(
    monkeypatch: pytest.MonkeyPatch, tls_server: RestServer, certificate: Certificate
) -> None:
    proxy = start_proxy(refuse=403)
    monkeypatch.setenv("HTTPS_PROXY", proxy.url)
    transport = transport_to(tls_server, certificate)
    try:
        with pytest.raises(ConnectionFailure) as raised:
            call(transport)
    finally:
        transport.close()
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


def test_loopback_is_never_proxied(
    monkeypatch: pytest.MonkeyPatch, rest_server: RestServer, refused_port: int
) -> None:
    for name in ("HTTPS_PROXY", "HTTP_PROXY", "ALL_PROXY"):
        monkeypatch.setenv(name, f"http://127.0.0.1:{refused_port}")
    transport = RestTransport(rest_server.base_url, credentials=None)
    try:
        assert call(transport) == canned.check_response()
    finally:
        transport.close()


def test_a_proxy_that_is_not_http_is_refused_at_call_time_with_a_clear_error(
    monkeypatch: pytest.MonkeyPatch, tls_server: RestServer, certificate: Certificate
) -> None:
    monkeypatch.setenv("HTTPS_PROXY", "socks5://proxy.internal:1080")
    transport = transport_to(tls_server, certificate)  # building it does not fail
    try:
        with pytest.raises(FailedPrecondition) as raised:
            call(transport)
    finally:
        transport.close()
    assert "only http:// proxies" in raised.value.message
    assert not raised.value.retryable


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


# ---- the asyncio transport follows the same rules ----------------------------------------


def async_transport_to(server: RestServer, certificate: Certificate) -> AsyncRestTransport:
    return AsyncRestTransport(
        f"https://{HOST_NAME}:{server.server_address[1]}",
        credentials=None,
        ssl_context=certificate.client_context(),
    )


async def async_call(transport: AsyncRestTransport) -> object:
    return await transport.unary(
        canned.CHECK, canned.check_request(), timeout=3, metadata=canned.METADATA
    )


async def test_async_https_travels_in_one_kept_alive_connect_tunnel(
    monkeypatch: pytest.MonkeyPatch,
    proxy: ProxyServer,
    tls_server: RestServer,
    certificate: Certificate,
) -> None:
    monkeypatch.setenv("HTTPS_PROXY", proxy.url)
    transport = async_transport_to(tls_server, certificate)
    try:
        assert await async_call(transport) == canned.check_response()
        assert await async_call(transport) == canned.check_response()
    finally:
        await transport.close()
    port = tls_server.server_address[1]
    assert [(m, t) for m, t, _ in proxy.seen.requests] == [("CONNECT", f"{HOST_NAME}:{port}")]
    assert tls_server.seen.calls == 2


async def test_async_proxy_credentials_go_to_the_proxy_and_no_further(
    monkeypatch: pytest.MonkeyPatch, tls_server: RestServer, certificate: Certificate
) -> None:
    proxy = start_proxy(user_info="alice:s3cret@!")
    monkeypatch.setenv("https_proxy", proxy.url.replace("//", "//alice:s3cret%40%21@"))
    transport = async_transport_to(tls_server, certificate)
    try:
        assert await async_call(transport) == canned.check_response()
    finally:
        await transport.close()
        proxy.shutdown()
        proxy.server_close()
    assert proxy.seen.requests[0][2]["proxy-authorization"] == proxy.required
    assert "proxy-authorization" not in tls_server.seen.metadata[-1]


async def test_async_a_proxy_refusing_the_tunnel_is_a_connection_failure_that_names_it(
    monkeypatch: pytest.MonkeyPatch, tls_server: RestServer, certificate: Certificate
) -> None:
    proxy = start_proxy(refuse=403)
    monkeypatch.setenv("HTTPS_PROXY", proxy.url)
    transport = async_transport_to(tls_server, certificate)
    try:
        with pytest.raises(ConnectionFailure) as raised:
            await async_call(transport)
    finally:
        await transport.close()
        proxy.shutdown()
        proxy.server_close()
    assert "403" in raised.value.message
    assert f"through the proxy 127.0.0.1:{proxy.server_address[1]}" in raised.value.message
    assert tls_server.seen.calls == 0


async def test_async_a_proxy_that_is_not_http_is_refused_at_call_time(
    monkeypatch: pytest.MonkeyPatch, tls_server: RestServer, certificate: Certificate
) -> None:
    monkeypatch.setenv("HTTPS_PROXY", "socks5://proxy.internal:1080")
    transport = async_transport_to(tls_server, certificate)
    try:
        with pytest.raises(FailedPrecondition, match="only http:// proxies"):
            await async_call(transport)
    finally:
        await transport.close()


async def test_plain_http_to_a_remote_host_is_forwarded_by_absolute_url_by_both_transports(
    monkeypatch: pytest.MonkeyPatch, proxy: ProxyServer, rest_server: RestServer
) -> None:
    monkeypatch.setenv("HTTP_PROXY", proxy.url)
    url = f"http://{HOST_NAME}:{rest_server.server_address[1]}"
    sync = RestTransport(url, credentials=None, allow_remote_plaintext=True)
    aio = AsyncRestTransport(url, credentials=None, allow_remote_plaintext=True)
    try:
        assert call(sync) == canned.check_response()
        assert await async_call(aio) == canned.check_response()
    finally:
        sync.close()
        await aio.close()
    targets = [target for _, target, _ in proxy.seen.requests]
    assert len(targets) == 2
    assert all(target.startswith(f"{url}/v1/") for target in targets)
    assert rest_server.seen.calls == 2
