"""How an HTTP/1.1 request reaches its origin: directly, or through the environment's proxy.

The rules are curl's: HTTPS_PROXY, HTTP_PROXY or ALL_PROXY name an http:// proxy, NO_PROXY
exempts hosts, loopback is never proxied. https goes through it in a CONNECT tunnel, still
TLS end to end; http as requests for absolute URLs.
"""

from __future__ import annotations

import base64
import urllib.parse
import urllib.request
from dataclasses import dataclass, field

from groundwire.contract.addresses import is_loopback


class ConnectError(Exception):
    """No connection was made: refused, unresolvable, or the TLS handshake or tunnel failed."""


class ProxyNotSupported(Exception):
    """The environment names a proxy that cannot be used: only http:// proxies can."""


@dataclass(frozen=True)
class Proxy:
    """An HTTP proxy: its address and the Proxy-Authorization from its URL's user info."""

    host: str
    port: int
    authorization: str | None = field(default=None, repr=False)


def parse_proxy(url: str) -> Proxy:
    """Reads a proxy URL as the environment gives it (`http://` may be left out).

    Example:
        >>> proxy = parse_proxy("http://user:p%40ss@proxy.internal:3128")
        >>> proxy, proxy.authorization
        (Proxy(host='proxy.internal', port=3128), 'Basic dXNlcjpwQHNz')
        >>> parse_proxy("proxy.internal:8080").port
        8080
    """
    parts = urllib.parse.urlsplit(url if "://" in url else f"http://{url}")
    if parts.scheme.lower() != "http" or not parts.hostname:
        raise ProxyNotSupported(
            f"the proxy {parts.scheme}://{parts.hostname or ''} cannot be used: only http:// "
            "proxies are supported (the CONNECT tunnel through one is still end-to-end TLS)"
        )
    authorization = None
    if parts.username is not None:
        user_info = (
            f"{urllib.parse.unquote(parts.username)}:{urllib.parse.unquote(parts.password or '')}"
        )
        authorization = "Basic " + base64.b64encode(user_info.encode()).decode("ascii")
    return Proxy(parts.hostname, parts.port or 80, authorization)


def environment_proxy(scheme: str, host: str, port: int) -> Proxy | None:
    """The proxy the environment names for a URL; None when none, exempt, or loopback.

    Raises ProxyNotSupported for a proxy that is not http://.

    Example:
        >>> environment_proxy("https", "127.0.0.1", 8443) is None
        True
    """
    if is_loopback(host):
        return None
    proxies = urllib.request.getproxies_environment()
    url = proxies.get(scheme) or proxies.get("all")
    if not url or exempt_from_proxy(host, port, proxies.get("no", "")):
        return None
    return parse_proxy(url)


def exempt_from_proxy(host: str, port: int, no_proxy: str) -> bool:
    """Whether NO_PROXY (`*`, or host names, `.domain` suffixes, `host:port`s) covers a host.

    Example:
        >>> exempt_from_proxy("api.internal.example", 443, "localhost, .example")
        True
        >>> exempt_from_proxy("example.org", 443, "example.org:8443")
        False
    """
    host = host.lower().strip("[]")
    for entry in no_proxy.lower().split(","):
        name = entry.strip().removeprefix("*").lstrip(".").strip("[]")
        if not name and entry.strip() == "*":
            return True
        if name and any(
            candidate == name or candidate.endswith(f".{name}")
            for candidate in (host, f"{host}:{port}")
        ):
            return True
    return False


@dataclass(frozen=True)
class Route:
    """The way to one origin: where to connect, and what the proxy on the way (if any) needs.

    `problem` says why the environment's proxy cannot be used; `check` raises it on the first
    call, so a client can still be built.
    """

    scheme: str
    host: str
    port: int
    proxy: Proxy | None = None
    problem: str | None = None

    @property
    def authority(self) -> str:
        """`host:port`, the host in brackets when it is an IPv6 address."""
        return f"[{self.host}]:{self.port}" if ":" in self.host else f"{self.host}:{self.port}"

    @property
    def host_header(self) -> str:
        """The Host header: `authority` without the scheme's default port."""
        if self.port == (443 if self.scheme == "https" else 80):
            return f"[{self.host}]" if ":" in self.host else self.host
        return self.authority

    @property
    def address(self) -> tuple[str, int]:
        """The (host, port) a connection is opened to: the proxy's, or the origin's."""
        return (self.proxy.host, self.proxy.port) if self.proxy else (self.host, self.port)

    @property
    def tunnelled(self) -> bool:
        """Whether connections go through a CONNECT tunnel (https through a proxy)."""
        return self.proxy is not None and self.scheme == "https"

    @property
    def target_prefix(self) -> str:
        """`http://host:port` before a request's path when a proxy forwards it, else empty."""
        if self.proxy is None or self.scheme != "http":
            return ""
        return f"http://{self.authority}"

    def proxy_headers(self, *, tunnel: bool) -> list[tuple[str, str]]:
        """The Proxy-Authorization of a CONNECT (`tunnel`) or forwarded request."""
        if self.proxy is None or self.proxy.authorization is None or tunnel != self.tunnelled:
            return []
        return [("proxy-authorization", self.proxy.authorization)]

    def check(self) -> None:
        """Raises ProxyNotSupported when the environment's proxy cannot be used."""
        if self.problem is not None:
            raise ProxyNotSupported(self.problem)

    def connect_error(self, error: BaseException) -> ConnectError:
        """The ConnectError for `error`, naming the origin and the proxy on the way."""
        where = f"{self.scheme}://{self.host}:{self.port}"
        via = (
            "" if self.proxy is None else f" through the proxy {self.proxy.host}:{self.proxy.port}"
        )
        reason = f"{type(error).__name__}: {error}" if str(error) else type(error).__name__
        return ConnectError(f"{where}{via}: {reason}")


def route_to(scheme: str, host: str, port: int | None = None) -> Route:
    """The route to an origin under the current environment's proxy settings.

    Example:
        >>> route_to("https", "127.0.0.1").authority
        '127.0.0.1:443'
    """
    if scheme not in ("http", "https"):
        raise ValueError(f"not an HTTP scheme: {scheme!r}")
    port = port or (443 if scheme == "https" else 80)
    try:
        return Route(scheme, host, port, environment_proxy(scheme, host, port))
    except ProxyNotSupported as problem:
        return Route(scheme, host, port, problem=str(problem))
