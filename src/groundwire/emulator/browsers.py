"""What a local server trusts from a browser: the Host, Origin and Content-Type checks, pure.

A page the developer opens can send requests to any port on loopback. Two doors follow,
and these checks shut them for a server that serves only this machine's own clients:

* DNS rebinding: the page's own name (`attacker.example`) is made to resolve to 127.0.0.1,
  so the browser treats the server's answers as the page's own. The request then carries
  `Host: attacker.example`. A Host that is an IP address, `localhost`, or a name the
  operator allowed cannot come from a rebinding page, so `host_allowed` accepts only those.
* Cross-origin writes: a page may POST to any URL without asking first, when the body is
  `text/plain`, a form, or multipart (a "simple" request). `json_content_type` accepts only
  JSON, which a browser sends cross-origin only after a CORS preflight, and
  `origin_allowed` refuses a request that names an Origin the operator did not allow.

No I/O here: the emulator's HTTP server calls these, and so can any other local server.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Collection

LOOPBACK_NAMES = frozenset({"localhost"})
"""Names, besides IP addresses, that a Host may always give."""


def host_name(host: str) -> str:
    """The name in a Host header, lower case, without its port or IPv6 brackets.

    Example:
        >>> host_name("LocalHost:8080"), host_name("[::1]:8080"), host_name("::1")
        ('localhost', '::1', '::1')
    """
    host = host.strip().lower()
    if host.startswith("["):
        return host[1 : host.find("]")] if "]" in host else host
    if host.count(":") == 1:
        return host.partition(":")[0]
    return host


def host_allowed(host: str | None, bound_host: str, allowed_hosts: Collection[str] = ()) -> bool:
    """Whether a request whose Host header is `host` may be answered by a local server.

    Accepted: no Host (HTTP/1.0; a browser always sends one), any IP address, `localhost`
    and its subdomains (a browser resolves those itself), the address the server is bound
    to, and `allowed_hosts` (names, compared without case). Any port is accepted: a
    rebinding page shows its own name, whatever the port.

    Example:
        >>> host_allowed("127.0.0.1:8080", "127.0.0.1"), host_allowed("[::1]", "127.0.0.1")
        (True, True)
        >>> host_allowed("attacker.example", "127.0.0.1")
        False
        >>> host_allowed("emulator:8080", "0.0.0.0", ["emulator"])
        True
    """
    if host is None:
        return True
    name = host_name(host)
    if name in LOOPBACK_NAMES or name.endswith(".localhost") or name == host_name(bound_host):
        return True
    if name in {host_name(allowed) for allowed in allowed_hosts}:
        return True
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


def origin_allowed(origin: str | None, allowed_origins: Collection[str]) -> bool:
    """Whether a request with this Origin header may act: none given, or one allowed.

    `*` among `allowed_origins` allows every origin.

    Example:
        >>> origin_allowed(None, []), origin_allowed("http://evil.example", [])
        (True, False)
        >>> origin_allowed("http://localhost:5173", ["http://localhost:5173"])
        True
    """
    return origin is None or "*" in allowed_origins or origin in allowed_origins


def json_content_type(content_type: str | None) -> bool:
    """Whether a Content-Type header says JSON (`application/json`, any parameters).

    Example:
        >>> json_content_type("application/json; charset=utf-8"), json_content_type("text/plain")
        (True, False)
    """
    if content_type is None:
        return False
    return content_type.partition(";")[0].strip().lower() == "application/json"
