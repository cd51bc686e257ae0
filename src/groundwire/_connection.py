"""Which endpoints a client reaches, with which credentials and certificate: found here."""

from __future__ import annotations

import os
import urllib.parse
from dataclasses import dataclass
from typing import TYPE_CHECKING

from groundwire._sources import (
    certificate_source,
    credentials_from_file,
    default_credentials,
    load_certificate,
    mtls_wanted,
    universe_of,
    with_scopes,
)
from groundwire.core.endpoints import Endpoints, resolve_endpoints

if TYPE_CHECKING:
    from google.auth.credentials import Credentials

    from groundwire._base import _Settings


@dataclass(frozen=True)
class Connection:
    """How to reach one API: the endpoints, their credentials and the client certificate."""

    endpoints: Endpoints
    credentials: Credentials | None
    client_certificate: tuple[bytes, bytes] | None


def connection(
    settings: _Settings, api: str, location: str, quota_project: str | None
) -> Connection:
    """The endpoints of `api`, the credentials for those that carry any, the certificate.

    The decisions are `resolve_endpoints`'s; credentials (Application Default ones, or a
    `credentials_file`) are loaded and a client certificate is taken from its source
    only when an endpoint of TLS needs them.
    """
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
        mtls=mtls_wanted(source is not None),
    )
    if found.plaintext:
        return Connection(found, None, None)
    certificate = None if source is None else load_certificate(source)
    if not found.needs_credentials:
        return Connection(found, None, certificate)
    if credentials is not None:
        if settings.options.scopes:
            credentials = with_scopes(credentials, settings.options.scopes)
        return Connection(found, credentials, certificate)
    credentials = default_credentials(
        settings.options.scopes,
        quota_project,
        found.universe,
        settings.options.api_audience or _host_of(found),
    )
    return Connection(found, credentials, certificate)


def _host_of(found: Endpoints) -> str:
    """The host the endpoints name first (gRPC's, else REST's), as an audience."""
    if found.grpc_target is not None:
        return found.grpc_target.rpartition(":")[0] or found.grpc_target
    return urllib.parse.urlsplit(found.rest_base_url or "").hostname or ""
