"""Where each API lives and which connection is safe: pure decisions (the emulator variables too).

The credential rules live in `resolve_endpoints`: with an emulator nothing goes to Google or
carries credentials; credentials travel only over TLS, to the universe's hosts or to an
endpoint the user gave together with credentials.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from groundwire.contract.addresses import (
    check_location,
    check_universe_domain,
    is_loopback,
    is_universe_host,
    parse_grpc_address,
    parse_rest_address,
)

# `X as X`: re-exported, as docs/security.md names it from here.
from groundwire.contract.errors import EndpointError as EndpointError

EMULATOR_GRPC_ENV = "GROUNDWIRE_EMULATOR_HOST"
EMULATOR_REST_ENV = "GROUNDWIRE_EMULATOR_REST"
EMULATOR_ALLOW_REMOTE_ENV = "GROUNDWIRE_EMULATOR_ALLOW_REMOTE"
UNIVERSE_DOMAIN_ENV = "GOOGLE_CLOUD_UNIVERSE_DOMAIN"
MTLS_ENDPOINT_ENV = "GOOGLE_API_USE_MTLS_ENDPOINT"
_MTLS_MODES = ("auto", "never", "always")
DEFAULT_UNIVERSE = "googleapis.com"
CLOUD_PLATFORM_SCOPE = "https://www.googleapis.com/auth/cloud-platform"
_MULTI_REGIONS = ("us", "eu")
_SWITCH_ON = ("1", "true", "yes")
_SWITCH_OFF = ("", "0", "false", "no")


@dataclass(frozen=True)
class Endpoints:
    """How to reach one API: a gRPC target and a REST base URL (None: not to be used).

    `plaintext` is an emulator: clear text, no credentials, loopback unless `remote_emulator`.
    Otherwise both are TLS, and `grpc_credentials` / `rest_credentials` say which carry them.
    """

    grpc_target: str | None
    rest_base_url: str | None
    plaintext: bool
    grpc_credentials: bool = False
    rest_credentials: bool = False
    remote_emulator: bool = False
    universe: str = DEFAULT_UNIVERSE

    @property
    def needs_credentials(self) -> bool:
        """Whether either protocol carries credentials (only then are any loaded)."""
        return self.grpc_credentials or self.rest_credentials


def default_host(
    api: str, location: str, universe: str = DEFAULT_UNIVERSE, *, mtls: bool = False
) -> str:
    """Google's host for `api` in `location`; `mtls`: the mutual-TLS one (googleapis.com only).

    A `location` not shaped like one is an EndpointError: no host is built from it.

    >>> default_host("discoveryengine", "eu"), default_host("aiplatform", "us-central1")
    ('eu-discoveryengine.googleapis.com', 'us-central1-aiplatform.googleapis.com')
    >>> default_host("discoveryengine", "us", mtls=True)
    'us-discoveryengine.mtls.googleapis.com'
    """
    if mtls and universe != DEFAULT_UNIVERSE:
        raise EndpointError(
            f"mutual TLS endpoints exist only in the {DEFAULT_UNIVERSE} universe, not in "
            f"{universe!r}: set {MTLS_ENDPOINT_ENV}=never, or pass endpoint="
        )
    check_location(location, "location")
    domain = f"mtls.{universe}" if mtls else universe
    if api == "discoveryengine":
        prefix = f"{location}-" if location in _MULTI_REGIONS else ""
        return f"{prefix}discoveryengine.{domain}"
    return f"aiplatform.{domain}" if location == "global" else f"{location}-aiplatform.{domain}"


def mtls_endpoint_mode(environ: Mapping[str, str]) -> str:
    """`GOOGLE_API_USE_MTLS_ENDPOINT`: `auto` (the default), `never` or `always`.

    >>> mtls_endpoint_mode({}), mtls_endpoint_mode({"GOOGLE_API_USE_MTLS_ENDPOINT": "Always"})
    ('auto', 'always')
    """
    text = environ.get(MTLS_ENDPOINT_ENV, "").strip()
    mode = text.lower() or "auto"
    if mode not in _MTLS_MODES:
        raise EndpointError(
            f"{MTLS_ENDPOINT_ENV}={text!r}: set it to auto, never or always, "
            f"e.g. {MTLS_ENDPOINT_ENV}=never"
        )
    return mode


@dataclass(frozen=True)
class _Route:
    """One protocol's endpoint as configured: where, from which source, and whether TLS."""

    address: str
    hosts: tuple[str, ...]
    tls: bool
    source: str


def resolve_endpoints(
    api: str,
    location: str,
    *,
    endpoint: str | None,
    rest_endpoint: str | None,
    environ: Mapping[str, str],
    explicit_credentials: bool = False,
    tls_requested: bool = False,
    allow_remote_emulator: bool = False,
    credentials_universe: str | None = None,
    universe_domain: str | None = None,
    mtls: bool = False,
) -> Endpoints:
    """Picks the gRPC target and REST URL for `api`, and which of them carry credentials.

    The constructor's endpoints win over the emulator variables. With `explicit_credentials`
    or `tls_requested` (certificates), a loopback endpoint is TLS, not an emulator.
    `universe_domain` beats `GOOGLE_CLOUD_UNIVERSE_DOMAIN` and must match the credentials'.
    Raises EndpointError, naming the argument or variable, for anything malformed or unsafe.

    >>> resolve_endpoints("aiplatform", "us-central1", endpoint=None, rest_endpoint=None,
    ...                   environ={"GROUNDWIRE_EMULATOR_HOST": "127.0.0.1:50051"}).grpc_target
    '127.0.0.1:50051'
    """
    universe = _universe(environ, credentials_universe, universe_domain)
    allow_remote = allow_remote_emulator or _switch(environ, EMULATOR_ALLOW_REMOTE_ENV)
    tls = explicit_credentials or tls_requested
    emulator_grpc, emulator_rest = _emulator_routes(environ)
    grpc = _grpc_route(endpoint, tls) if endpoint else emulator_grpc
    rest = _rest_route(rest_endpoint, tls) if rest_endpoint else emulator_rest
    routes = [route for route in (grpc, rest) if route is not None]
    variables = [route.source for route in (emulator_grpc, emulator_rest) if route is not None]
    if variables or any(not route.tls for route in routes):
        return _emulator(grpc, rest, routes, variables, allow_remote, explicit_credentials)
    host = default_host(api, location, universe, mtls=mtls and grpc is None and rest is None)
    if grpc is None and rest is None:
        # Whether credentials go is decided on the parsed target, never on the text built.
        address = parse_grpc_address(f"{host}:443", source="location", default_port=None)
        grpc = _Route(address.target, address.hosts, True, "default")
        rest = _Route(f"https://{host}", address.hosts, True, "default")
    elif grpc is None and rest is not None:
        grpc = _derived(rest, universe, lambda found: f"{found}:443")
    elif rest is None and grpc is not None:
        rest = _derived(grpc, universe, lambda found: f"https://{found}")
    return Endpoints(
        grpc.address if grpc else None,
        rest.address if rest else None,
        plaintext=False,
        grpc_credentials=grpc is not None and _carries(grpc, universe, explicit_credentials),
        rest_credentials=rest is not None and _carries(rest, universe, explicit_credentials),
        universe=universe,
    )


def describes_emulator(
    endpoint: str | None, rest_endpoint: str | None, environ: Mapping[str, str]
) -> bool:
    """Whether these endpoints (or the emulator variables) point at an emulator.

    Raises the client's own EndpointError for a malformed value, so that the command line,
    asking this first, reports the real problem.

    >>> describes_emulator(None, None, {"GROUNDWIRE_EMULATOR_HOST": "https://127.0.0.1:1"})
    Traceback (most recent call last):
    groundwire.contract.errors.EndpointError: INVALID_ARGUMENT: GROUNDWIRE_EMULATOR_HOST=...
    """
    return resolve_endpoints(
        "discoveryengine",
        "global",
        endpoint=endpoint,
        rest_endpoint=rest_endpoint,
        environ=environ,
        allow_remote_emulator=True,
    ).plaintext


def _universe(
    environ: Mapping[str, str], credentials_universe: str | None, universe_domain: str | None
) -> str:
    """The universe: the client's, else the variable's, else the credentials', else Google's."""
    source, configured = "universe_domain", (universe_domain or "").strip()
    if not configured:
        source, configured = UNIVERSE_DOMAIN_ENV, environ.get(UNIVERSE_DOMAIN_ENV, "").strip()
    universe = check_universe_domain(configured, source) if configured else None
    if credentials_universe and universe and credentials_universe.lower() != universe:
        raise EndpointError(
            f"the credentials are for universe {credentials_universe!r}, but "
            f"{source}={configured!r}; use credentials of that universe"
        )
    return universe or (credentials_universe or DEFAULT_UNIVERSE).lower()


def _switch(environ: Mapping[str, str], name: str) -> bool:
    value = environ.get(name, "").strip().lower()
    if value in _SWITCH_ON:
        return True
    if value in _SWITCH_OFF:
        return False
    raise EndpointError(f"{name}={environ[name]!r}: set it to 1 to switch it on, e.g. {name}=1")


def _emulator_routes(environ: Mapping[str, str]) -> tuple[_Route | None, _Route | None]:
    """The emulator variables' routes, plaintext; EndpointError for any other form."""
    grpc_text = environ.get(EMULATOR_GRPC_ENV, "").strip()
    rest_text = environ.get(EMULATOR_REST_ENV, "").strip()
    grpc = rest = None
    if grpc_text:
        address = parse_grpc_address(grpc_text, source=EMULATOR_GRPC_ENV, default_port=None)
        grpc = _Route(address.target, address.hosts, False, EMULATOR_GRPC_ENV)
    if rest_text:
        if rest_text.lower().startswith("https://"):
            raise EndpointError(
                f"{EMULATOR_REST_ENV}={rest_text!r}: the emulator speaks plain HTTP, so "
                f"https:// is refused; e.g. {EMULATOR_REST_ENV}=http://127.0.0.1:8080"
            )
        found = parse_rest_address(rest_text, source=EMULATOR_REST_ENV, bare_scheme="http")
        rest = _Route(found.url, (found.host,), False, EMULATOR_REST_ENV)
    return grpc, rest


def _grpc_route(endpoint: str, tls: bool) -> _Route:
    """The constructor's gRPC endpoint: loopback without TLS asked for is an emulator."""
    address = parse_grpc_address(endpoint, source="endpoint", default_port="443")
    return _Route(address.target, address.hosts, tls or not address.on_loopback, "endpoint")


def _rest_route(rest_endpoint: str, tls: bool) -> _Route:
    """The constructor's REST URL; a bare `host:port` is http only to loopback, without TLS."""
    scheme = "https"
    if "://" not in rest_endpoint:
        guess = parse_rest_address(rest_endpoint, source="rest_endpoint", bare_scheme="http")
        scheme = "https" if tls or not is_loopback(guess.host) else "http"
    found = parse_rest_address(rest_endpoint, source="rest_endpoint", bare_scheme=scheme)
    return _Route(found.url, (found.host,), found.scheme == "https", "rest_endpoint")


def _emulator(
    grpc: _Route | None,
    rest: _Route | None,
    routes: list[_Route],
    variables: list[str],
    allow_remote: bool,
    explicit_credentials: bool,
) -> Endpoints:
    """An emulator's endpoints: every route plaintext, none to Google, no credentials."""
    for route in routes:
        if route.tls:
            why = f"{variables[0]} is set" if variables else "the other endpoint is an emulator"
            raise EndpointError(
                f"{route.source}={route.address!r} is a TLS endpoint, but {why}: with an "
                "emulator nothing goes to Google or carries credentials. Give both "
                "endpoints as emulators (e.g. 127.0.0.1:50051 and http://127.0.0.1:8080), "
                f"or unset {', '.join(variables) or 'the emulator endpoint'}"
            )
        if explicit_credentials and route.source == "rest_endpoint":
            raise EndpointError(
                f"rest_endpoint={route.address!r}: credentials are never sent over plain "
                "HTTP; use https://, or no credentials for a local emulator"
            )
        remote = [host for host in route.hosts if not is_loopback(host)]
        if remote and not allow_remote:
            raise EndpointError(
                f"{route.source}={route.address!r} names {remote[0]!r}, which is not "
                "loopback: an emulator is reached in clear text, so only localhost, "
                "127.0.0.0/8 and ::1 are allowed (e.g. 127.0.0.1:50051). To use an emulator "
                f"on another machine set {EMULATOR_ALLOW_REMOTE_ENV}=1 or pass "
                "allow_remote_emulator=True; it still gets no credentials"
            )
    return Endpoints(
        grpc.address if grpc else None,
        rest.address if rest else None,
        plaintext=True,
        remote_emulator=any(not is_loopback(host) for route in routes for host in route.hosts),
    )


def _derived(route: _Route, universe: str, address: Callable[[str], str]) -> _Route | None:
    """The other protocol's endpoint, derived only from a single host of the universe."""
    if len(route.hosts) != 1 or not is_universe_host(route.hosts[0], universe):
        return None
    return _Route(address(route.hosts[0]), route.hosts, True, "derived")


def _carries(route: _Route, universe: str, explicit_credentials: bool) -> bool:
    """Whether a TLS route carries credentials: the user's to their endpoint, else Google's.

    A Google host is a plain DNS name under the universe (`is_universe_host`): a target of
    any other form gets no credentials, whatever its text ends with.
    """
    if explicit_credentials and route.source in ("endpoint", "rest_endpoint"):
        return True
    return bool(route.hosts) and all(is_universe_host(host, universe) for host in route.hosts)


def endpoint_of(endpoint: str | None, rest_endpoint: str | None, transport: str = "auto") -> str:
    """The endpoint named when it cannot be reached: the one in use, else the service.

    Example:
        >>> endpoint_of("127.0.0.1:50051", "http://127.0.0.1:8080", "rest")
        'http://127.0.0.1:8080'
    """
    grpc_target = endpoint or os.environ.get(EMULATOR_GRPC_ENV)
    rest_url = rest_endpoint or os.environ.get(EMULATOR_REST_ENV)
    first, second = (rest_url, grpc_target) if transport == "rest" else (grpc_target, rest_url)
    return first or second or "the service"
