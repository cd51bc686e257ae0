"""What a user wrote as an endpoint, parsed without resolving it: hosts, ports and schemes.

An address is judged (loopback or not, Google's or not) before any connection is made.
"""

from __future__ import annotations

import ipaddress
import re
import urllib.parse
from dataclasses import dataclass

from groundwire.contract.errors import EndpointError, InvalidArgument

_HOST_NAME = re.compile(
    r"[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,62})(?:\.[A-Za-z0-9_][A-Za-z0-9_-]{0,62})*\.?"
)
# A location as Google's APIs spell one (`global`, `us`, `europe-west4`): a DNS label, since
# hosts are built from it.
_LOCATION = re.compile(r"[a-z](?:[a-z0-9-]{0,61}[a-z0-9])?")
_LOCAL_SCHEMES = ("unix:", "unix-abstract:")
GRPC_EXAMPLES = (
    "127.0.0.1:50051, localhost:50051, [::1]:50051, dns:///localhost:50051, "
    "ipv4:127.0.0.1:50051, ipv6:[::1]:50051 or unix:/tmp/emulator.sock"
)


@dataclass(frozen=True)
class GrpcAddress:
    """A gRPC target as the channel is given it, and the hosts it names (none for a socket)."""

    target: str
    hosts: tuple[str, ...]

    @property
    def on_loopback(self) -> bool:
        """Whether every host it names is a loopback address (a Unix socket is)."""
        return all(is_loopback(host) for host in self.hosts)


def is_loopback(host: str) -> bool:
    """True for localhost, 127.0.0.0/8 and ::1 (brackets allowed), judged without resolving.

    >>> is_loopback("127.0.0.2"), is_loopback("[::1]"), is_loopback("10.0.0.1")
    (True, True, False)
    """
    host = host.strip("[]").lower().rstrip(".")
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def is_loopback_target(target: str) -> bool:
    """Whether a gRPC target stays on this machine (False when it cannot be parsed).

    >>> is_loopback_target("dns:///localhost:50051"), is_loopback_target("ipv4:10.0.0.1:80")
    (True, False)
    >>> is_loopback_target("unix:/tmp/emulator.sock")
    True
    """
    try:
        return parse_grpc_address(target, source="target", default_port="443").on_loopback
    except EndpointError:
        return False


def parse_grpc_address(text: str, *, source: str, default_port: str | None) -> GrpcAddress:
    """Parses `host:port`, `[::1]:port`, `dns:///`, `ipv4:`, `ipv6:` or `unix:` targets.

    `source` is named by the EndpointError; `default_port` None requires a port.

    >>> parse_grpc_address("localhost", source="endpoint", default_port="443")
    GrpcAddress(target='localhost:443', hosts=('localhost',))
    >>> parse_grpc_address("ipv4:127.0.0.1:1,127.0.0.2:2", source="x", default_port=None).hosts
    ('127.0.0.1', '127.0.0.2')
    """
    text = text.strip()
    if text.startswith(_LOCAL_SCHEMES) and text.partition(":")[2]:
        return GrpcAddress(text, ())
    if text.startswith("dns:///"):
        found = _host_port(text[len("dns:///") :], default_port)
        if found is not None:
            return GrpcAddress(text, (found[0],))
    elif text.startswith(("ipv4:", "ipv6:")):
        version = 4 if text.startswith("ipv4:") else 6
        # A port is optional in an ipv4:/ipv6: entry, as in gRPC.
        entries = [_host_port(entry, "443") for entry in text[5:].split(",")]
        hosts = tuple(found[0] for found in entries if found and _is_ip(found[0], version))
        if hosts and len(hosts) == len(entries):
            return GrpcAddress(text, hosts)
    elif "://" not in text and not text.startswith("dns:"):
        found = _host_port(text, default_port)
        if found is not None:
            host, port = found
            shown = f"[{host}]" if ":" in host else host
            return GrpcAddress(f"{shown}:{port}", (host,))
    raise EndpointError(_grpc_error(text, source, default_port))


def _grpc_error(text: str, source: str, default_port: str | None) -> str:
    if text.lower().startswith(("https://", "http://")):
        scheme, _, rest = text.partition("://")
        authority = rest.split("/")[0] or "example.com"
        if ":" not in authority.rsplit("]", 1)[-1]:
            authority += ":443" if default_port is not None else ":50051"
        where = "" if source != "endpoint" else ", or pass the URL as rest_endpoint= for REST"
        return (
            f"{source}={text!r}: a gRPC address is not a URL; drop {scheme}:// and give "
            f"host:port, e.g. {authority}{where}"
        )
    needs = "host:port" if default_port is None else "host[:port]"
    return f"{source}={text!r} is not a gRPC address; give {needs}, e.g. {GRPC_EXAMPLES}"


def _host_port(address: str, default_port: str | None) -> tuple[str, str] | None:
    """(host, port) of `host[:port]` or `[v6][:port]`, else None."""
    if address.startswith("["):
        host, bracket, rest = address[1:].partition("]")
        if not bracket or not _is_ip(host, 6):
            return None
        port = rest[1:] if rest.startswith(":") else (default_port if not rest else None)
    else:
        host, colon, port_text = address.rpartition(":")
        host, port = (host, port_text) if colon else (address, default_port)
        if ":" in host or not (_HOST_NAME.fullmatch(host) or _is_ip(host, 4)):
            return None
    if port is None or not port.isdigit() or not 0 < int(port) < 65536:
        return None
    return host.lower(), port


def _is_ip(text: str, version: int) -> bool:
    try:
        return ipaddress.ip_address(text).version == version
    except ValueError:
        return False


@dataclass(frozen=True)
class RestAddress:
    """A REST base URL, checked, without a trailing slash."""

    url: str
    scheme: str
    host: str


def parse_rest_address(text: str, *, source: str, bare_scheme: str) -> RestAddress:
    """Parses `http(s)://host[:port][/path]`, or `host:port` meaning `bare_scheme`.

    EndpointError for another scheme, a user or password, a query or fragment, no port if bare.

    >>> parse_rest_address("127.0.0.1:8080/", source="x", bare_scheme="http").url
    'http://127.0.0.1:8080'
    """
    stripped = text.strip()
    bare = "://" not in stripped
    example = "http://127.0.0.1:8080" if bare_scheme == "http" else "https://example.com"
    parts = urllib.parse.urlsplit(f"{bare_scheme}://{stripped}" if bare else stripped)
    try:
        port = parts.port
    except ValueError:
        port = 0
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").lower()
    if (
        scheme not in ("http", "https")
        or not host
        or port == 0
        or (bare and port is None)
        or "@" in parts.netloc
        or parts.query
        or parts.fragment
        or not (_HOST_NAME.fullmatch(host) or _is_ip(host, 4) or _is_ip(host, 6))
    ):
        raise EndpointError(
            f"{source}={text!r} is not a REST base URL; give one like {example} "
            "(no user name, password, query or fragment)"
        )
    url = urllib.parse.urlunsplit((scheme, parts.netloc.lower(), parts.path.rstrip("/"), "", ""))
    return RestAddress(url, scheme, host)


def check_location(location: str, source: str, error: type[InvalidArgument] = EndpointError) -> str:
    """`location` if it has a location's shape (lower-case letters, digits, hyphens), else `error`.

    Hosts are built from a location, so this guards every host built; no switch skips it.

    >>> check_location("europe-west4", "location")
    'europe-west4'
    >>> check_location("dns:127.0.0.1:1?", "location")
    Traceback (most recent call last):
    groundwire.contract.errors.EndpointError: INVALID_ARGUMENT: location 'dns:127.0.0.1:1?' ...
    """
    if not isinstance(location, str) or not _LOCATION.fullmatch(location):
        raise error(
            f"{source} {location!r} is not a location: a location is lower-case letters, "
            "digits and hyphens, e.g. global, us, eu or us-central1"
        )
    return location


def is_universe_host(host: str, universe: str) -> bool:
    """Whether `host` is a plain DNS name: the universe's domain or a name under it.

    >>> is_universe_host("eu-discoveryengine.googleapis.com", "googleapis.com")
    True
    >>> is_universe_host("googleapis.com.evil.example", "googleapis.com")
    False
    >>> is_universe_host("dns:127.0.0.1:1?-aiplatform.googleapis.com", "googleapis.com")
    False
    """
    if not _HOST_NAME.fullmatch(host):
        return False
    host = host.lower().rstrip(".")
    universe = universe.lower().strip(".")
    return host == universe or host.endswith(f".{universe}")


def check_universe_domain(text: str, source: str) -> str:
    """A universe domain (e.g. `googleapis.com`), lower case; EndpointError if not a name.

    >>> check_universe_domain("GoogleApis.com", "universe")
    'googleapis.com'
    """
    domain = text.strip().lower().rstrip(".")
    if "." not in domain or not _HOST_NAME.fullmatch(domain):
        raise EndpointError(f"{source}={text!r} is not a domain; e.g. googleapis.com")
    return domain
