"""Where each API lives, which connection is safe, and the routing headers: pure decisions."""

from __future__ import annotations

import functools
import ipaddress
import platform
from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import quote, urlsplit

from google.protobuf import message

from groundwire.core.apis import Method
from groundwire.core.version import VERSION

EMULATOR_GRPC_ENV = "GROUNDWIRE_EMULATOR_HOST"
EMULATOR_REST_ENV = "GROUNDWIRE_EMULATOR_REST"
CLOUD_PLATFORM_SCOPE = "https://www.googleapis.com/auth/cloud-platform"
_MULTI_REGIONS = ("us", "eu")


@dataclass(frozen=True)
class Endpoints:
    """How to reach one API: a gRPC target and a REST base URL (None when not configured).

    Plaintext is only ever used for loopback addresses (an emulator), and such calls carry
    no credentials. An emulator reached by one protocol only (just `GROUNDWIRE_EMULATOR_HOST`
    or just `GROUNDWIRE_EMULATOR_REST`) leaves the other protocol unset rather than sending
    it to Google.
    """

    grpc_target: str | None
    rest_base_url: str | None
    plaintext: bool


def default_host(api: str, location: str) -> str:
    """Google's host for `api` in `location`.

    >>> default_host("discoveryengine", "eu"), default_host("aiplatform", "us-central1")
    ('eu-discoveryengine.googleapis.com', 'us-central1-aiplatform.googleapis.com')
    """
    if api == "discoveryengine":
        prefix = f"{location}-" if location in _MULTI_REGIONS else ""
        return f"{prefix}discoveryengine.googleapis.com"
    return (
        "aiplatform.googleapis.com"
        if location == "global"
        else (f"{location}-aiplatform.googleapis.com")
    )


def is_loopback(host: str) -> bool:
    """True for localhost, 127.0.0.0/8 and ::1 (brackets allowed).

    >>> is_loopback("127.0.0.2"), is_loopback("[::1]"), is_loopback("10.0.0.1")
    (True, True, False)
    """
    host = host.strip("[]").lower()
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _split_target(target: str) -> tuple[str, str]:
    host, _, port = target.rpartition(":")
    return (host, port) if host else (target, "")


def resolve_endpoints(
    api: str,
    location: str,
    *,
    endpoint: str | None,
    rest_endpoint: str | None,
    environ: Mapping[str, str],
) -> Endpoints:
    """Picks the gRPC target and REST URL for `api`.

    Explicit endpoints and the emulator variables are honoured; plaintext is refused
    anywhere but loopback, and so is mixing an emulator with Google.

    >>> resolve_endpoints("discoveryengine", "global", endpoint=None, rest_endpoint=None,
    ...                   environ={})
    Endpoints(grpc_target='discoveryengine.googleapis.com:443', \
rest_base_url='https://discoveryengine.googleapis.com', plaintext=False)
    >>> resolve_endpoints("aiplatform", "us-central1", endpoint="127.0.0.1:50051",
    ...                   rest_endpoint=None, environ={})
    Endpoints(grpc_target='127.0.0.1:50051', rest_base_url=None, plaintext=True)
    """
    endpoint = endpoint or environ.get(EMULATOR_GRPC_ENV) or None
    rest_endpoint = rest_endpoint or environ.get(EMULATOR_REST_ENV) or None
    host = default_host(api, location)
    grpc_target: str | None = _grpc_target(endpoint, host)
    grpc_plain = (
        grpc_target is not None
        and endpoint is not None
        and is_loopback(_split_target(grpc_target)[0])
    )
    rest_base_url = _rest_base_url(rest_endpoint, endpoint, host, grpc_plain)
    rest_plain = rest_base_url is not None and rest_base_url.startswith("http://")
    if rest_plain and grpc_target is not None and not grpc_plain and endpoint is None:
        grpc_target = None  # a REST emulator alone: gRPC is not sent to Google meanwhile
    if grpc_target is not None and rest_base_url is not None and grpc_plain != rest_plain:
        raise ValueError(
            "endpoint and rest_endpoint must both be loopback emulators or both TLS services"
        )
    return Endpoints(grpc_target, rest_base_url, grpc_plain or rest_plain)


def _grpc_target(endpoint: str | None, host: str) -> str:
    if endpoint is None:
        return f"{host}:443"
    return endpoint if _split_target(endpoint)[1] else f"{endpoint}:443"


def _rest_base_url(
    rest_endpoint: str | None, endpoint: str | None, host: str, grpc_plain: bool
) -> str | None:
    if rest_endpoint is None:
        if grpc_plain:
            return None  # a gRPC emulator alone: its REST port is unknown
        return f"https://{_split_target(endpoint)[0] if endpoint else host}"
    parts = urlsplit(rest_endpoint if "://" in rest_endpoint else f"https://{rest_endpoint}")
    if parts.scheme not in ("http", "https"):
        raise ValueError(f"rest_endpoint must be an http(s) URL, got {rest_endpoint!r}")
    if parts.scheme == "http" and not is_loopback(parts.hostname or ""):
        raise ValueError(
            f"refusing plaintext HTTP to {parts.hostname}: only loopback "
            "addresses may be reached without TLS"
        )
    return f"{parts.scheme}://{parts.netloc}{parts.path.rstrip('/')}"


@functools.cache
def api_client_header() -> str:
    """The `x-goog-api-client` value naming groundwire, its version and Python's."""
    return f"gl-python/{platform.python_version()} groundwire/{VERSION}"


@functools.lru_cache(maxsize=256)
def _routing_header(field: str, value: str) -> str:
    return f"{field}={quote(value, safe='')}"


@functools.cache
def user_agent() -> str:
    """The user agent: `groundwire/<version>`.

    REST sends it as a header; gRPC channels are given it as their primary user agent,
    since gRPC core writes that header itself.
    """
    return f"groundwire/{VERSION}"


def request_metadata(
    method: Method, request: message.Message, *, quota_project: str | None
) -> tuple[tuple[str, str], ...]:
    """Headers (gRPC metadata) for one call: routing, API client, user agent, quota project.

    >>> from groundwire.core.apis import method
    >>> m = method("aiplatform", "v1", "CorroborateContent")
    >>> request_metadata(m, m.request_class(parent="projects/p/locations/l"),
    ...                  quota_project=None)[0]
    ('x-goog-request-params', 'parent=projects%2Fp%2Flocations%2Fl')
    """
    field = method.routing_field
    value = getattr(request, field)
    metadata = [
        ("x-goog-request-params", _routing_header(field, value)),
        ("x-goog-api-client", api_client_header()),
        ("user-agent", user_agent()),
    ]
    if quota_project:
        metadata.append(("x-goog-user-project", quota_project))
    return tuple(metadata)
