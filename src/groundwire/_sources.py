"""Where credentials and client certificates come from: google-auth, as Google's clients use it.

Application Default Credentials, a (deprecated) `credentials_file`, scopes, and the mutual
TLS certificate of `client_certificate=`, `client_options.client_cert_source` or
google-auth's default source. Each is loaded only when `_connection` has decided it is needed.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import TYPE_CHECKING

from groundwire.core.client_options import (
    CertificateSource,
    ConfigurationError,
    GoogleClientOptions,
)
from groundwire.core.endpoints import CLOUD_PLATFORM_SCOPE, EndpointError, mtls_endpoint_mode
from groundwire.core.errors import Unauthenticated

if TYPE_CHECKING:
    from google.auth.credentials import Credentials

ADC_ADVICE = "run `gcloud auth application-default login`, pass credentials=, or use an emulator"
"""What a library user can do without credentials; the command line gives its own advice."""


def certificate_source(
    explicit: tuple[bytes, bytes] | None, options: GoogleClientOptions
) -> CertificateSource | None:
    """Where the client certificate comes from, as the official clients decide it.

    `client_certificate=` always; otherwise only when google-auth says a client
    certificate is to be used (`GOOGLE_API_USE_CLIENT_CERTIFICATE=true`, or a workload
    certificate configured): `client_options.client_cert_source`, else google-auth's
    default source. None: no client certificate.
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
        source: CertificateSource = mtls.default_client_cert_source()  # type: ignore[no-untyped-call]
        return source
    return None


def load_certificate(source: CertificateSource) -> tuple[bytes, bytes]:
    """The (chain, key) PEM pair from its source; a typed error when it cannot be had."""
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


def mtls_wanted(has_certificate: bool) -> bool:
    """Whether Google's mutual-TLS hosts are used: `GOOGLE_API_USE_MTLS_ENDPOINT`'s rule."""
    mode = mtls_endpoint_mode(os.environ)
    return mode == "always" or (mode == "auto" and has_certificate)


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
    """Application Default Credentials, which must be of `universe`.

    `scopes` default to cloud-platform; `audience` is given to credentials of Google
    Distributed Cloud Hosted, as the official clients do (`client_options.api_audience`,
    else the host).
    """
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
    result: Credentials = credentials
    return result


def with_scopes(credentials: Credentials, scopes: Sequence[str]) -> Credentials:
    """`credentials` with `scopes` (client_options.scopes), if they need any."""
    from google.auth.credentials import with_scopes_if_required

    scoped: Credentials = with_scopes_if_required(  # type: ignore[no-untyped-call]
        credentials, list(scopes)
    )
    return scoped


def universe_of(credentials: Credentials | None) -> str | None:
    """The universe domain google-auth credentials belong to (None: none given)."""
    universe = getattr(credentials, "universe_domain", None)
    return universe if isinstance(universe, str) and universe else None
