"""What both clients are made of: settings, how they connect, and the transports they build.

`GroundingClient` (client.py) and `AsyncGroundingClient` (aio.py) differ only in how they
wait; everything they decide, they decide here.
"""

from __future__ import annotations

import logging
import os
import random
from typing import TYPE_CHECKING, Any

from groundwire.core import calls
from groundwire.core.bodies import MAX_RESPONSE_BYTES
from groundwire.core.endpoints import (
    CLOUD_PLATFORM_SCOPE,
    EndpointError,
    Endpoints,
    resolve_endpoints,
    user_agent,
)
from groundwire.core.errors import ClientClosed, ClientForked, Unauthenticated
from groundwire.core.offsets import OffsetUnit
from groundwire.core.retry import Retrying, RetryPolicy

if TYPE_CHECKING:
    from google.auth.credentials import Credentials

logger = logging.getLogger("groundwire")

DEFAULT_TIMEOUT = 60.0
DEFAULT_RETRY = RetryPolicy()


class _Settings:
    """What both clients keep besides the request-shaping config: how to connect and retry."""

    def __init__(
        self,
        *,
        transport: calls.TransportName,
        endpoint: str | None,
        rest_endpoint: str | None,
        credentials: Credentials | None,
        timeout: float,
        retry: RetryPolicy | None,
        fallback_cooldown: float,
        allow_remote_emulator: bool = False,
        root_certificates: bytes | None = None,
        client_certificate: tuple[bytes, bytes] | None = None,
        max_response_bytes: int = MAX_RESPONSE_BYTES,
    ) -> None:
        if transport not in ("auto", "grpc", "rest"):
            raise ValueError(f"transport must be 'auto', 'grpc' or 'rest', got {transport!r}")
        if timeout <= 0:
            raise ValueError("timeout must be positive (seconds)")
        self.transport = transport
        self.endpoint = endpoint
        self.rest_endpoint = rest_endpoint
        self.credentials = credentials
        self.timeout = timeout
        self.retry = retry
        self.fallback_cooldown = fallback_cooldown
        self.allow_remote_emulator = allow_remote_emulator
        self.root_certificates = root_certificates
        self.client_certificate = client_certificate
        self.random = random.Random()
        self.closed = False
        self.max_response_bytes = max_response_bytes

    def retrying(self, timeout: float | None) -> Retrying:
        """The retry state of one call, whose deadline is its own `timeout`, else the client's.

        The retry policy's `timeout` is the deadline instead when it is smaller.
        """
        if self.closed:
            raise ClientClosed("this client is closed; create a new one")
        return Retrying(self.retry, self.timeout if timeout is None else timeout, self.random)

    def connection(
        self, api: str, location: str, quota_project: str | None
    ) -> tuple[Endpoints, Credentials | None]:
        """The endpoints of `api` and the credentials for those that carry any (None: none).

        The decisions are `resolve_endpoints`'s; Application Default Credentials are loaded
        only when an endpoint of the universe carries them and the user gave none.
        """
        found = resolve_endpoints(
            api,
            location,
            endpoint=self.endpoint,
            rest_endpoint=self.rest_endpoint,
            environ=os.environ,
            explicit_credentials=self.credentials is not None,
            tls_requested=self.root_certificates is not None or self.client_certificate is not None,
            allow_remote_emulator=self.allow_remote_emulator,
            credentials_universe=_universe_of(self.credentials),
        )
        if not found.needs_credentials:
            return found, None
        if self.credentials is not None:
            return found, self.credentials
        import google.auth
        from google.auth.exceptions import DefaultCredentialsError

        try:
            credentials, _ = google.auth.default(
                scopes=[CLOUD_PLATFORM_SCOPE], quota_project_id=quota_project
            )
        except DefaultCredentialsError as error:
            raise Unauthenticated(
                f"no Application Default Credentials ({error}); run `gcloud auth "
                "application-default login`, pass credentials=, or use an emulator"
            ) from None
        universe = _universe_of(credentials)
        if universe is not None and universe.lower() != found.universe:
            raise EndpointError(
                f"the Application Default Credentials are for universe {universe!r}, not "
                f"{found.universe!r}; set GOOGLE_CLOUD_UNIVERSE_DOMAIN or pass credentials="
            )
        return found, credentials

    def make_transport(
        self, api: str, location: str, quota_project: str | None, *, asynchronous: bool
    ) -> Any:
        """Builds the (sync or asyncio) transport for `api`: gRPC, REST, or auto over both."""
        from groundwire.transports.tls import client_ssl_context

        endpoints, credentials = self.connection(api, location, quota_project)
        grpc_target = endpoints.grpc_target if self.transport in ("auto", "grpc") else None
        rest_base_url = endpoints.rest_base_url if self.transport in ("auto", "rest") else None
        if grpc_target is None and rest_base_url is None:
            missing, given = ("endpoint", "rest_endpoint")
            if self.transport == "rest":
                missing, given = given, missing
            raise EndpointError(
                f"transport={self.transport!r} needs {missing}=: only {given} is configured "
                "(by argument or emulator variable), and the other protocol is derived only "
                "from a Google host"
            )
        grpc_target = _grpc_after_fork(grpc_target, rest_base_url, asynchronous)
        grpc_transport = rest_transport = None
        if grpc_target is not None:
            grpc_class = _transport_class(
                "grpc_aio.AsyncGrpcTransport" if asynchronous else "grpc.GrpcTransport"
            )
            grpc_transport = grpc_class(
                grpc_target,
                credentials=credentials if endpoints.grpc_credentials else None,
                secure=not endpoints.plaintext,
                root_certificates=self.root_certificates,
                user_agent=user_agent(),
                allow_remote_plaintext=endpoints.remote_emulator,
                client_certificate=self.client_certificate,
                options=[("grpc.max_receive_message_length", self.max_response_bytes)],
            )
        if rest_base_url is not None:
            rest_class = _transport_class(
                "rest_aio.AsyncRestTransport" if asynchronous else "rest.RestTransport"
            )
            tls = None
            if not endpoints.plaintext:
                tls = client_ssl_context(self.root_certificates, self.client_certificate)
            rest_transport = rest_class(
                rest_base_url,
                credentials=credentials if endpoints.rest_credentials else None,
                ssl_context=tls,
                allow_remote_plaintext=endpoints.remote_emulator,
                max_response_bytes=self.max_response_bytes,
            )
        if grpc_transport is not None and rest_transport is not None:
            auto_class = _transport_class(
                "auto.AsyncAutoTransport" if asynchronous else "auto.AutoTransport"
            )
            return auto_class(grpc_transport, rest_transport, cooldown=self.fallback_cooldown)
        return grpc_transport or rest_transport


def _grpc_after_fork(
    grpc_target: str | None, rest_base_url: str | None, asynchronous: bool
) -> str | None:
    """The gRPC target, unless gRPC is unsafe in this forked process: then REST alone.

    Raises ClientForked when there is no REST to use instead.
    """
    from groundwire.transports.lifetime import grpc_refusal

    refusal = grpc_refusal(asynchronous=asynchronous)
    if grpc_target is None or refusal is None:
        return grpc_target
    if rest_base_url is None:
        raise ClientForked(
            f"{refusal}; use transport='rest' (or 'auto') in this process, or fork while "
            "no gRPC call is in flight (and no async client is open)"
        )
    logger.warning("%s; using REST in this process", refusal)
    return None


def _universe_of(credentials: Credentials | None) -> str | None:
    """The universe domain google-auth credentials belong to (None: none given)."""
    universe = getattr(credentials, "universe_domain", None)
    return universe if isinstance(universe, str) and universe else None


def _transport_class(name: str) -> Any:
    """A transport class by `module.Class` under groundwire.transports, imported on first use.

    Importing late means a sync gRPC client never loads the HTTP or asyncio stacks.
    """
    import importlib

    module_name, class_name = name.split(".")
    return getattr(importlib.import_module(f"groundwire.transports.{module_name}"), class_name)


class ClientBase:
    """What both clients are made of: the config that shapes requests, and the connection.

    Their constructor is this one; see `GroundingClient` for the arguments.
    """

    def __init__(
        self,
        project: str,
        location: str = "global",
        *,
        transport: calls.TransportName = "auto",
        api_version: str = "v1",
        endpoint: str | None = None,
        rest_endpoint: str | None = None,
        credentials: Credentials | None = None,
        quota_project: str | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        retry: RetryPolicy | None = DEFAULT_RETRY,
        validate: bool = True,
        fallback_cooldown: float = 60.0,
        corroborate_offset_unit: OffsetUnit = "utf8",
        allow_remote_emulator: bool = False,
        root_certificates: bytes | None = None,
        client_certificate: tuple[bytes, bytes] | None = None,
        max_response_bytes: int = MAX_RESPONSE_BYTES,
    ) -> None:
        if max_response_bytes < 1:
            raise ValueError("max_response_bytes must be at least 1")
        self._config = calls.ClientConfig(
            project, location, api_version, validate, quota_project, corroborate_offset_unit
        )
        self._settings = _Settings(
            transport=transport,
            endpoint=endpoint,
            rest_endpoint=rest_endpoint,
            credentials=credentials,
            timeout=timeout,
            retry=retry,
            fallback_cooldown=fallback_cooldown,
            allow_remote_emulator=allow_remote_emulator,
            root_certificates=root_certificates,
            client_certificate=client_certificate,
            max_response_bytes=max_response_bytes,
        )
        self._transports: dict[str, Any] = {}
        self._lock = self._new_lock()

    @staticmethod
    def _new_lock() -> Any:
        raise NotImplementedError
