"""Google's `client_options`, read without importing google-api-core: an object or a dict.

This module reads, checks and merges the fields with the constructor's arguments; `base`
decides what they do.
"""

from __future__ import annotations

import dataclasses
import re
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from groundwire.contract.errors import ConfigurationError

CertificateSource = Callable[[], tuple[bytes, bytes]]  # returns a (chain, key) PEM pair

# Fields of api-core's ClientOptions that groundwire does not act on: refused when set.
_REFUSED = {
    "api_key": "API keys are not accepted by the grounding APIs; pass credentials=",
    "client_encrypted_cert_source": "pass client_cert_source (an unencrypted PEM pair)",
    "tracer_provider": "pass an interceptor to the client instead",
}

CREDENTIALS_FILE_WARNING = (
    "client_options.credentials_file is deprecated because of a potential security risk: "
    "google.auth.load_credentials_from_file does not validate the credential configuration, "
    "so one accepted from a source that is not under your control can compromise your "
    "systems. Load the credentials with the method for their type (for example "
    "google.oauth2.service_account.Credentials.from_service_account_file) and pass "
    "credentials=; see https://cloud.google.com/docs/authentication/external/"
    "externally-sourced-credentials"
)

_T = TypeVar("_T")
_CONTROL_CHARACTERS = re.compile(r"[\x00-\x1f\x7f]")


@dataclass(frozen=True)
class GoogleClientOptions:
    """The `client_options` fields groundwire honours, checked (None: not given)."""

    api_endpoint: str | None = None
    quota_project_id: str | None = None
    universe_domain: str | None = None
    scopes: tuple[str, ...] | None = None
    api_audience: str | None = None
    client_cert_source: CertificateSource | None = None
    credentials_file: str | None = None


_HONOURED = tuple(field.name for field in dataclasses.fields(GoogleClientOptions))
_NOT_TEXT = ("scopes", "client_cert_source")


def read_client_options(options: object) -> GoogleClientOptions:
    """Reads a `ClientOptions` (or any object with its attributes), a dict, or None.

    A field groundwire cannot honour is a `ConfigurationError` when set, never ignored.

    Example:
        >>> read_client_options({"api_endpoint": "eu-discoveryengine.googleapis.com"})
        ... # doctest: +ELLIPSIS
        GoogleClientOptions(api_endpoint='eu-discoveryengine.googleapis.com', ...)
        >>> read_client_options({"endpoint": "x"})  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        groundwire.contract.errors.ConfigurationError: ... no field 'endpoint'; ...
    """
    if options is None:
        return GoogleClientOptions()
    if isinstance(options, Mapping):
        unknown = [key for key in options if key not in _HONOURED and key not in _REFUSED]
        if unknown:
            raise ConfigurationError(
                f"client_options has no field {unknown[0]!r}; the fields are {', '.join(_HONOURED)}"
            )
        fields: Mapping[str, Any] = options
    else:
        names = (*_HONOURED, *_REFUSED)
        fields = {name: getattr(options, name, None) for name in names}
    for name, advice in _REFUSED.items():
        if fields.get(name) is not None:
            raise ConfigurationError(f"client_options.{name} is not supported: {advice}")
    read = GoogleClientOptions(
        **{
            name: checked_text(f"client_options.{name}", fields.get(name))
            for name in _HONOURED
            if name not in _NOT_TEXT
        },
        scopes=_scopes(fields.get("scopes")),
        client_cert_source=_callable(fields.get("client_cert_source")),
    )
    if read.credentials_file is not None:
        warnings.warn(CREDENTIALS_FILE_WARNING, DeprecationWarning, stacklevel=4)
    return read


def one_of(name: str, value: _T | None, option: str, option_value: _T | None) -> _T | None:
    """The value given by argument or by client option; ConfigurationError if both differ.

    Example:
        >>> one_of("quota_project", None, "client_options.quota_project_id", "billing")
        'billing'
    """
    if value is not None and option_value is not None and value != option_value:
        raise ConfigurationError(
            f"{name}={value!r} and {option}={option_value!r} disagree; give only one of them"
        )
    return value if value is not None else option_value


def place_api_endpoint(
    api_endpoint: str | None,
    endpoint: str | None,
    rest_endpoint: str | None,
    transport: str,
) -> tuple[str | None, str | None]:
    """(endpoint, rest_endpoint) with `client_options.api_endpoint` in its place.

    It is the REST base URL when it is a URL or the transport is REST; else the gRPC one.

    Example:
        >>> place_api_endpoint("https://eu-discoveryengine.googleapis.com", None, None, "auto")
        (None, 'https://eu-discoveryengine.googleapis.com')
    """
    if api_endpoint is None:
        return endpoint, rest_endpoint
    as_rest = transport == "rest" or "://" in api_endpoint
    name, given = ("rest_endpoint", rest_endpoint) if as_rest else ("endpoint", endpoint)
    if given is not None:
        raise ConfigurationError(
            f"client_options.api_endpoint={api_endpoint!r} and {name}={given!r} both name "
            f"the {'REST' if as_rest else 'gRPC'} endpoint; give only one of them"
        )
    return (endpoint, api_endpoint) if as_rest else (api_endpoint, rest_endpoint)


def checked_text(name: str, value: object) -> str | None:
    """`value` stripped, when None or a non-empty string with no control character inside.

    Else a ConfigurationError: in a header or URL, a CR or LF would smuggle in a header.

    Example:
        >>> checked_text("quota_project", " billing ")
        'billing'
        >>> checked_text("quota_project", "billing" + chr(10) + "X-Evil: 1")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        groundwire.contract.errors.ConfigurationError: ... quota_project must not hold ...
    """
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        raise ConfigurationError(f"{name} must be a non-empty string, got {value!r}")
    text = value.strip()
    if _CONTROL_CHARACTERS.search(text):
        raise ConfigurationError(
            f"{name} must not hold control characters (CR, LF, ...), got {value!r}"
        )
    return text


def _scopes(value: object) -> tuple[str, ...] | None:
    if value is None:
        return None
    if isinstance(value, Sequence) and not isinstance(value, str):
        scopes = tuple(value)
        if all(isinstance(scope, str) for scope in scopes):
            return scopes
    raise ConfigurationError(f"client_options.scopes must be a list of scope URLs, got {value!r}")


def _callable(value: object) -> CertificateSource | None:
    if value is None:
        return None
    if not callable(value):
        raise ConfigurationError(
            "client_options.client_cert_source must be a callable returning "
            f"(certificate chain, private key) PEM bytes, got {value!r}"
        )
    source: CertificateSource = value
    return source


@dataclass(frozen=True)
class PoolLimits:
    """The connection-pool limits of the REST transports, per origin.

    `max_connections` bounds the connections open at once: further calls wait for one to be
    free, within their own timeout (then `DeadlineExceeded`). `max_idle` bounds those kept
    open between calls for reuse. gRPC multiplexes calls over one HTTP/2 connection and has
    no pool.

    Example:
        >>> PoolLimits(max_connections=8).max_idle
        100
        >>> PoolLimits(max_connections=0)
        Traceback (most recent call last):
        ...
        ValueError: PoolLimits.max_connections must be at least 1, got 0
    """

    max_connections: int = 100
    max_idle: int = 100

    def __post_init__(self) -> None:
        if not isinstance(self.max_connections, int) or self.max_connections < 1:
            raise ValueError(
                f"PoolLimits.max_connections must be at least 1, got {self.max_connections!r}"
            )
        if not isinstance(self.max_idle, int) or self.max_idle < 0:
            raise ValueError(f"PoolLimits.max_idle must be 0 or more, got {self.max_idle!r}")
