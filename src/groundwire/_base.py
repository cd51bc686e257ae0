"""What both clients are made of: settings, how they connect, and the transports they build.

`GroundingClient` (client.py) and `AsyncGroundingClient` (aio.py) differ only in how they
wait; everything they decide, they decide here.
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import logging
import math
import os
import random
import ssl
import urllib.parse
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from groundwire._sources import (
    certificate_source,
    credentials_from_file,
    default_credentials,
    load_certificate,
    mtls_wanted,
    universe_of,
    with_scopes,
)
from groundwire.core import calls
from groundwire.core.addresses import check_universe_domain
from groundwire.core.attempts import Attempts, Events, Unobserved
from groundwire.core.batch import BatchSettings, Planned, Rpc, plan_item
from groundwire.core.bodies import MAX_RESPONSE_BYTES
from groundwire.core.client_options import (
    ConfigurationError,
    GoogleClientOptions,
    checked_text,
    one_of,
    place_api_endpoint,
    read_client_options,
)
from groundwire.core.endpoint_hints import explain_wrong_endpoint
from groundwire.core.endpoints import (
    DEFAULT_UNIVERSE,
    UNIVERSE_DOMAIN_ENV,
    EndpointError,
    Endpoints,
    resolve_endpoints,
    user_agent,
)
from groundwire.core.errors import ClientForked, GroundwireError
from groundwire.core.limits import PoolLimits
from groundwire.core.metadata import MetadataLike, with_metadata
from groundwire.core.offsets import OffsetUnit
from groundwire.core.retry import RetryPolicy
from groundwire.core.scrubber import scrub_tokens_of
from groundwire.core.unreachable import endpoint_of
from groundwire.interceptors import Chain, Interceptor
from groundwire.logs import call_logging, log_retry
from groundwire.transports.lifetime import grpc_refusal
from groundwire.transports.tls import client_ssl_context

if TYPE_CHECKING:
    from google.auth.credentials import Credentials

logger = logging.getLogger("groundwire")

DEFAULT_TIMEOUT = 60.0
DEFAULT_RETRY = RetryPolicy()
_NO_OPTIONS = GoogleClientOptions()
_DEFAULT_POOL = PoolLimits()
_NO_ONE = Unobserved(())


class RetryDefault(enum.Enum):
    """The type of `CLIENT_RETRY`: a call's `retry=` left at the client's policy."""

    CLIENT = "the client's retry policy"


CLIENT_RETRY = RetryDefault.CLIENT
"""A call's `retry=` default: the client's policy (None there means no retries)."""

RetryArgument = RetryPolicy | None | Literal[RetryDefault.CLIENT]


@dataclass(frozen=True)
class _Connection:
    """How to reach one API: the endpoints, their credentials and the client certificate."""

    endpoints: Endpoints
    credentials: Credentials | None
    client_certificate: tuple[bytes, bytes] | None


def checked_timeout(timeout: object, name: str) -> float:
    """`timeout` when it is a positive, finite number of seconds; else a ConfigurationError.

    A timeout of 0 or less would fail every call with DEADLINE_EXCEEDED before it was sent,
    which the auto transport would blame on the server (and leave gRPC for a while).

    Example:
        >>> checked_timeout(2.5, "timeout")
        2.5
        >>> checked_timeout(0, "timeout")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        groundwire.core.client_options.ConfigurationError: ... timeout must be positive ...
    """
    if (
        isinstance(timeout, int | float)
        and not isinstance(timeout, bool)
        and 0 < timeout < math.inf
    ):
        return timeout
    raise ConfigurationError(f"{name} must be positive (a number of seconds), got {timeout!r}")


@dataclass(frozen=True, kw_only=True)
class _Settings:
    """What both clients keep besides the request-shaping config: how to connect and retry."""

    transport: calls.TransportName
    endpoint: str | None
    rest_endpoint: str | None
    credentials: Credentials | None
    timeout: float
    retry: RetryPolicy | None
    fallback_cooldown: float
    allow_remote_emulator: bool = False
    root_certificates: bytes | None = None
    client_certificate: tuple[bytes, bytes] | None = None
    max_response_bytes: int = MAX_RESPONSE_BYTES
    universe_domain: str | None = None
    options: GoogleClientOptions = _NO_OPTIONS
    grpc_options: Sequence[tuple[str, Any]] = ()
    ssl_context: ssl.SSLContext | None = None
    pool_limits: PoolLimits = _DEFAULT_POOL
    random: random.Random = dataclasses.field(default_factory=random.Random, compare=False)
    """The retries' jitter, reseeded in a forked child."""

    def __post_init__(self) -> None:
        if self.transport not in ("auto", "grpc", "rest"):
            raise ValueError(f"transport must be 'auto', 'grpc' or 'rest', got {self.transport!r}")
        checked_timeout(self.timeout, "the client's timeout")

    def retrying(
        self,
        timeout: float | None,
        retry: RetryArgument = CLIENT_RETRY,
        events: Events = _NO_ONE,
        *,
        method: Any = None,
        interactive: bool = False,
    ) -> Attempts:
        """The plan of one call, whose deadline is its own `timeout`, else the client's.

        `retry` is the call's policy (`CLIENT_RETRY`: the client's; None: no retries). The
        policy's `timeout` is the deadline instead when it is smaller. `events` hear of each
        attempt (the call's interceptors); `interactive` marks a stream of live requests.
        """
        policy = self.retry if retry is CLIENT_RETRY else retry
        budget = self.timeout if timeout is None else checked_timeout(timeout, "timeout")
        return Attempts(
            policy,
            budget,
            self.random,
            events,
            log_retry,
            method=method,
            interactive=interactive,
        )

    def connection(self, api: str, location: str, quota_project: str | None) -> _Connection:
        """The endpoints of `api`, the credentials for those that carry any, the certificate.

        The decisions are `resolve_endpoints`'s; credentials (Application Default ones, or a
        `credentials_file`) are loaded and a client certificate is taken from its source
        only when an endpoint of TLS needs them.
        """
        credentials = self.credentials
        if credentials is None and self.options.credentials_file is not None:
            credentials = credentials_from_file(
                self.options.credentials_file, self.options.scopes, quota_project
            )
        source = certificate_source(self.client_certificate, self.options)
        # A certificate the user gave makes a loopback endpoint TLS; one found only by
        # google-auth does not, so a local emulator stays an emulator on such a machine.
        given_certificate = self.client_certificate is not None or (
            source is not None and source is self.options.client_cert_source
        )
        found = resolve_endpoints(
            api,
            location,
            endpoint=self.endpoint,
            rest_endpoint=self.rest_endpoint,
            environ=os.environ,
            explicit_credentials=credentials is not None,
            tls_requested=given_certificate
            or self.root_certificates is not None
            or self.ssl_context is not None,
            allow_remote_emulator=self.allow_remote_emulator,
            credentials_universe=universe_of(credentials),
            universe_domain=self.universe_domain,
            mtls=mtls_wanted(source is not None),
        )
        if found.plaintext:
            return _Connection(found, None, None)
        certificate = None if source is None else load_certificate(source)
        if not found.needs_credentials:
            return _Connection(found, None, certificate)
        if credentials is not None:
            if self.options.scopes:
                credentials = with_scopes(credentials, self.options.scopes)
            return _Connection(found, credentials, certificate)
        credentials = default_credentials(
            self.options.scopes,
            quota_project,
            found.universe,
            self.options.api_audience or _host_of(found),
        )
        return _Connection(found, credentials, certificate)

    def make_transport(
        self, api: str, location: str, quota_project: str | None, *, asynchronous: bool
    ) -> Any:
        """Builds the (sync or asyncio) transport for `api`: gRPC, REST, or auto over both."""
        connection = self.connection(api, location, quota_project)
        endpoints, credentials = connection.endpoints, connection.credentials
        if credentials is not None:
            scrub_tokens_of(credentials)  # a server that echoes the token back shows it to no one
        certificate = connection.client_certificate
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
                client_certificate=certificate,
                options=[
                    ("grpc.max_receive_message_length", self.max_response_bytes),
                    *self.grpc_options,
                ],
            )
        if rest_base_url is not None:
            rest_class = _transport_class(
                "rest_aio.AsyncRestTransport" if asynchronous else "rest.RestTransport"
            )
            tls = None
            if not endpoints.plaintext:
                tls = self.ssl_context or client_ssl_context(self.root_certificates, certificate)
            rest_transport = rest_class(
                rest_base_url,
                credentials=credentials if endpoints.rest_credentials else None,
                ssl_context=tls,
                allow_remote_plaintext=endpoints.remote_emulator,
                max_response_bytes=self.max_response_bytes,
                max_connections=self.pool_limits.max_connections,
                max_idle_connections=self.pool_limits.max_idle,
            )
        if grpc_transport is not None and rest_transport is not None:
            auto_class = _transport_class(
                "auto.AsyncAutoTransport" if asynchronous else "auto.AutoTransport"
            )
            return auto_class(grpc_transport, rest_transport, cooldown=self.fallback_cooldown)
        return grpc_transport or rest_transport


def _host_of(found: Endpoints) -> str:
    """The host the endpoints name first (gRPC's, else REST's), as an audience."""
    if found.grpc_target is not None:
        return found.grpc_target.rpartition(":")[0] or found.grpc_target
    return urllib.parse.urlsplit(found.rest_base_url or "").hostname or ""


def _grpc_after_fork(
    grpc_target: str | None, rest_base_url: str | None, asynchronous: bool
) -> str | None:
    """The gRPC target, unless gRPC is unsafe in this forked process: then REST alone.

    Raises ClientForked when there is no REST to use instead.
    """
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
        interceptors: Sequence[Interceptor] = (),
        log_bodies: bool = False,
        client_options: object = None,
        universe_domain: str | None = None,
        grpc_options: Sequence[tuple[str, Any]] = (),
        ssl_context: ssl.SSLContext | None = None,
        pool_limits: PoolLimits | None = None,
    ) -> None:
        if max_response_bytes < 1:
            raise ValueError("max_response_bytes must be at least 1")
        options = read_client_options(client_options)
        if credentials is not None and options.credentials_file is not None:
            raise ConfigurationError(
                "credentials= and client_options.credentials_file are mutually exclusive"
            )
        endpoint, rest_endpoint = place_api_endpoint(
            options.api_endpoint, endpoint, rest_endpoint, transport
        )
        quota_project = one_of(
            "quota_project",
            checked_text("quota_project", quota_project),
            "client_options.quota_project_id",
            options.quota_project_id,
        )
        universe_domain = one_of(
            "universe_domain",
            universe_domain,
            "client_options.universe_domain",
            options.universe_domain,
        )
        if universe_domain is not None:
            universe_domain = check_universe_domain(universe_domain, "universe_domain")
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
            universe_domain=universe_domain,
            options=options,
            grpc_options=_checked_grpc_options(grpc_options),
            ssl_context=_checked_ssl_context(ssl_context),
            pool_limits=_checked_pool_limits(pool_limits),
        )
        self._transports: dict[str, Any] = {}
        self._closed = False
        self._lock = self._new_lock()
        logging_interceptor = call_logging(log_bodies)
        self._chain = Chain(
            [*interceptors] if logging_interceptor is None else [*interceptors, logging_interceptor]
        )

    @staticmethod
    def _new_lock() -> Any:
        raise NotImplementedError

    @property
    def api_version(self) -> str:
        """The Discovery Engine API version this client calls: v1, v1beta or v1alpha."""
        return self._config.api_version

    def _attempts(
        self,
        method: Any,
        request: Any,
        metadata: tuple[tuple[str, str], ...],
        timeout: float | None,
        retry: RetryArgument,
        *,
        streaming: bool = False,
        interactive: bool = False,
    ) -> Attempts:
        """The plan of one call, its interceptors started (and told if it cannot be planned)."""
        events = self._chain.start(method, request, metadata, streaming=streaming)
        try:
            return self._settings.retrying(
                timeout, retry, events, method=method, interactive=interactive
            )
        except BaseException as failure:
            events.finish(None, failure)
            raise

    def _batch(
        self,
        rpc: Rpc,
        defaults: Mapping[str, Any],
        *,
        concurrency: int,
        rate: float | None,
        timeout: float | None,
        metadata: MetadataLike | None,
        retry: RetryArgument,
        max_connection_failures: int | None,
    ) -> tuple[Callable[[object], Planned], BatchSettings, str]:
        """A batch of `rpc`'s item reader, settings and endpoint (named when it cannot reach it).

        The batch's arguments win over the client's; `defaults` are options for items that
        give none.
        """
        config, settings = self._config, self._settings
        batch_settings = BatchSettings(
            concurrency=concurrency,
            rate=rate,
            retry=settings.retry if retry is CLIENT_RETRY else retry,
            timeout=settings.timeout if timeout is None else timeout,
            metadata=metadata,
            max_connection_failures=max_connection_failures,
        )
        where = endpoint_of(settings.endpoint, settings.rest_endpoint, settings.transport)
        return functools.partial(plan_item, config, rpc, defaults=defaults), batch_settings, where

    def _explained(self, error: GroundwireError, request: Any) -> GroundwireError:
        """`error`, its message naming the right host if the server said the wrong was used."""
        universe = self._settings.universe_domain or os.environ.get(UNIVERSE_DOMAIN_ENV, "")
        return explain_wrong_endpoint(
            error, request, self._config.location, universe.strip() or DEFAULT_UNIVERSE
        )

    def __repr__(self) -> str:
        config = self._config
        return (
            f"{type(self).__name__}(project={config.project!r}, "
            f"location={config.location!r}, transport={self._settings.transport!r}, "
            f"api_version={config.api_version!r})"
        )


_CallT = TypeVar("_CallT", calls.Call[Any], calls.StreamCall)


def with_call_metadata(call: _CallT, metadata: MetadataLike | None) -> _CallT:
    """`call`, carrying the user's extra `metadata` after (or instead of) the client's."""
    if not metadata:
        return call
    return dataclasses.replace(call, metadata=with_metadata(call.metadata, metadata))


def _checked_grpc_options(options: Sequence[tuple[str, Any]]) -> tuple[tuple[str, Any], ...]:
    """The channel options as (name, int or str) pairs; ValueError for anything else."""
    checked = tuple(options)
    for option in checked:
        if (
            not isinstance(option, tuple)
            or len(option) != 2
            or not isinstance(option[0], str)
            or not isinstance(option[1], int | str)
        ):
            raise ConfigurationError(
                "grpc_options must be (name, int or str) pairs, e.g. "
                f"[('grpc.keepalive_time_ms', 60000)]; got {option!r}"
            )
    return checked


def _checked_ssl_context(context: ssl.SSLContext | None) -> ssl.SSLContext | None:
    if context is not None and not isinstance(context, ssl.SSLContext):
        raise ConfigurationError(f"ssl_context must be an ssl.SSLContext, got {context!r}")
    return context


def _checked_pool_limits(limits: PoolLimits | None) -> PoolLimits:
    if limits is None:
        return PoolLimits()
    if not isinstance(limits, PoolLimits):
        raise ConfigurationError(
            "pool_limits must be a groundwire.PoolLimits, e.g. "
            f"PoolLimits(max_connections=10); got {limits!r}"
        )
    return limits
