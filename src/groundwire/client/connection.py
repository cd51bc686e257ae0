"""Which endpoints a client reaches, with which credentials and certificate: found here.

Credentials and certificates come from google-auth, as Google's clients use it, and are
loaded only once `connection` has decided they are needed.
"""

from __future__ import annotations

import os
import urllib.parse
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from groundwire.client.endpoints import (
    CLOUD_PLATFORM_SCOPE,
    Endpoints,
    mtls_endpoint_mode,
    resolve_endpoints,
)
from groundwire.client.options import CertificateSource, GoogleClientOptions
from groundwire.contract.errors import ConfigurationError, EndpointError, Unauthenticated

if TYPE_CHECKING:
    from google.auth.credentials import Credentials

    from groundwire.client.settings import Settings


@dataclass(frozen=True)
class Connection:
    """How to reach one API: the endpoints, their credentials and the client certificate."""

    endpoints: Endpoints
    credentials: Credentials | None
    client_certificate: tuple[bytes, bytes] | None


def connection(
    settings: Settings, api: str, location: str, quota_project: str | None
) -> Connection:
    """The endpoints of `api` (as `resolve_endpoints` decides), credentials, certificate."""
    credentials = settings.credentials
    if credentials is None and settings.options.credentials_file is not None:
        credentials = credentials_from_file(
            settings.options.credentials_file, settings.options.scopes, quota_project
        )
    source = certificate_source(settings.client_certificate, settings.options)
    # A certificate the user gave makes a loopback endpoint TLS; one found only by
    # google-auth does not, so a local emulator stays an emulator on such a machine.
    given_certificate = settings.client_certificate is not None or (
        source is not None and source is settings.options.client_cert_source
    )
    mode = mtls_endpoint_mode(os.environ)
    found = resolve_endpoints(
        api,
        location,
        endpoint=settings.endpoint,
        rest_endpoint=settings.rest_endpoint,
        environ=os.environ,
        explicit_credentials=credentials is not None,
        tls_requested=given_certificate
        or settings.root_certificates is not None
        or settings.ssl_context is not None,
        allow_remote_emulator=settings.allow_remote_emulator,
        credentials_universe=universe_of(credentials),
        universe_domain=settings.universe_domain,
        mtls=mode == "always" or (mode == "auto" and source is not None),
    )
    if found.plaintext:
        return Connection(found, None, None)
    certificate = None if source is None else load_certificate(source)
    if not found.needs_credentials:
        return Connection(found, None, certificate)
    if credentials is None:
        credentials = default_credentials(
            settings.options.scopes,
            quota_project,
            found.universe,
            settings.options.api_audience or _host_of(found),
        )
    elif settings.options.scopes:
        from google.auth.credentials import with_scopes_if_required

        credentials = with_scopes_if_required(  # type: ignore[no-untyped-call]
            credentials, list(settings.options.scopes)
        )
    return Connection(found, credentials, certificate)


def _host_of(found: Endpoints) -> str:
    """The host the endpoints name first (gRPC's, else REST's)."""
    if found.grpc_target is not None:
        return found.grpc_target.rpartition(":")[0] or found.grpc_target
    return urllib.parse.urlsplit(found.rest_base_url or "").hostname or ""


ADC_ADVICE = "run `gcloud auth application-default login`, pass credentials=, or use an emulator"


def certificate_source(
    explicit: tuple[bytes, bytes] | None, options: GoogleClientOptions
) -> CertificateSource | None:
    """Where the client certificate comes from, as the official clients decide (None: none).

    `client_certificate=` always; else, when google-auth says one is to be used,
    `client_options.client_cert_source` or google-auth's default source.
    """
    if explicit is not None:
        return lambda: explicit
    from google.auth.transport import mtls

    try:
        if not mtls.should_use_client_cert():  # type: ignore[no-untyped-call]
            return None
    except ValueError as error:  # an unreadable GOOGLE_API_USE_CLIENT_CERTIFICATE
        raise EndpointError(f"GOOGLE_API_USE_CLIENT_CERTIFICATE: {error}") from None
    if options.client_cert_source is not None:
        return options.client_cert_source
    if mtls.has_default_client_cert_source():  # type: ignore[no-untyped-call]
        return mtls.default_client_cert_source()  # type: ignore[no-untyped-call]
    return None


def load_certificate(source: CertificateSource) -> tuple[bytes, bytes]:
    """The (chain, key) PEM pair from its source, or a ConfigurationError."""
    try:
        chain, key = source()
    except Exception as error:
        raise ConfigurationError(
            f"could not load the client certificate for mutual TLS: {type(error).__name__}: {error}"
        ) from None
    if not isinstance(chain, bytes) or not isinstance(key, bytes):
        raise ConfigurationError(
            "the client certificate source must return (certificate chain, private key) "
            "as PEM bytes"
        )
    return chain, key


def credentials_from_file(
    path: str, scopes: Sequence[str] | None, quota_project: str | None
) -> Credentials:
    """Credentials from `client_options.credentials_file` (deprecated; warned about)."""
    import google.auth
    from google.auth.exceptions import DefaultCredentialsError

    try:
        credentials, _ = google.auth.load_credentials_from_file(  # type: ignore[no-untyped-call]
            path,
            scopes=list(scopes) if scopes else None,
            default_scopes=[CLOUD_PLATFORM_SCOPE],
            quota_project_id=quota_project,
        )
    except DefaultCredentialsError as error:
        raise Unauthenticated(f"client_options.credentials_file: {error}") from None
    return credentials


def default_credentials(
    scopes: Sequence[str] | None, quota_project: str | None, universe: str, audience: str
) -> Credentials:
    """Application Default Credentials of `universe`; `audience` is for GDC Hosted ones."""
    import google.auth
    from google.auth.exceptions import DefaultCredentialsError

    try:
        credentials, _ = google.auth.default(
            scopes=list(scopes or [CLOUD_PLATFORM_SCOPE]), quota_project_id=quota_project
        )
    except DefaultCredentialsError as error:
        raise Unauthenticated(
            f"no Application Default Credentials ({error}); {ADC_ADVICE}"
        ) from None
    found = universe_of(credentials)
    if found is not None and found.lower() != universe:
        raise EndpointError(
            f"the Application Default Credentials are for universe {found!r}, not "
            f"{universe!r}; set GOOGLE_CLOUD_UNIVERSE_DOMAIN or pass credentials="
        )
    if hasattr(credentials, "with_gdch_audience"):  # Google Distributed Cloud Hosted
        credentials = credentials.with_gdch_audience(audience)
    return credentials


def universe_of(credentials: Credentials | None) -> str | None:
    """The universe domain of google-auth credentials (None: none given)."""
    universe = getattr(credentials, "universe_domain", None)
    return universe if isinstance(universe, str) and universe else None
