"""What both clients are made of: their constructor, and what a call and a batch start from.

The two clients differ only in how they wait; what they decide is decided here.
"""

from __future__ import annotations

import functools
import os
import ssl
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from groundwire.client import factory
from groundwire.client.endpoint_hints import explain_wrong_endpoint
from groundwire.client.endpoints import DEFAULT_UNIVERSE, UNIVERSE_DOMAIN_ENV, endpoint_of
from groundwire.client.interceptors import Chain, Interceptor
from groundwire.client.logs import call_logging
from groundwire.client.options import (
    PoolLimits,
    checked_text,
    one_of,
    place_api_endpoint,
    read_client_options,
)
from groundwire.client.settings import (
    CLIENT_RETRY,
    DEFAULT_RETRY,
    DEFAULT_TIMEOUT,
    RetryArgument,
    Settings,
)
from groundwire.contract import calls
from groundwire.contract.addresses import check_location, check_universe_domain
from groundwire.contract.errors import ConfigurationError, GroundwireError
from groundwire.contract.metadata import MetadataLike
from groundwire.contract.offsets import OffsetUnit
from groundwire.contract.retry import RetryPolicy
from groundwire.features.batch import BatchSettings, Planned, Rpc, plan_item
from groundwire.wire.bodies import MAX_RESPONSE_BYTES

if TYPE_CHECKING:
    from google.auth.credentials import Credentials


class ClientBase:
    """Both clients' constructor (see `GroundingClient` for the arguments) and shared parts."""

    _new_lock: Callable[[], Any]  # the client's lock: threading's or asyncio's

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
        options = read_client_options(client_options)
        check_location(location, "location", ConfigurationError)
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
        self._settings = Settings(
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
            grpc_options=tuple(grpc_options),
            ssl_context=ssl_context,
            pool_limits=PoolLimits() if pool_limits is None else pool_limits,
        )
        self._transports: dict[str, Any] = {}
        self._closed = False
        self._lock = self._new_lock()
        observers = [*interceptors, *call_logging(log_bodies)]
        self._chain = Chain(observers) if observers else None
        """The interceptors every call runs through (None: none, and no call pays for them)."""

    @property
    def api_version(self) -> str:
        """The Discovery Engine API version this client calls: v1, v1beta or v1alpha."""
        return self._config.api_version

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
        """A batch's item reader, settings (its own, else the client's) and endpoint name."""
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

    def _make_transport(self, api: str, *, asynchronous: bool) -> Any:
        """A new transport to `api` with this client's settings, location and quota project."""
        config = self._config
        return factory.make_transport(
            self._settings, api, config.location, config.quota_project, asynchronous=asynchronous
        )

    def _explained(self, error: GroundwireError, request: Any) -> GroundwireError:
        """`error`, naming the right host if the server said the wrong one was used."""
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
