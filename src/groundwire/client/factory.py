"""Builds a client's transport for one API: gRPC, REST, or auto over both, sync or asyncio."""

from __future__ import annotations

import importlib
import logging
from typing import TYPE_CHECKING, Any

from groundwire.client.connection import connection
from groundwire.contract.errors import ClientForked, EndpointError
from groundwire.contract.metadata import USER_AGENT
from groundwire.contract.scrubber import scrub_tokens_of
from groundwire.transports.lifetime import grpc_refusal
from groundwire.transports.tls import client_ssl_context

if TYPE_CHECKING:
    from groundwire.client.settings import Settings

logger = logging.getLogger("groundwire")

_CLASSES = {  # the gRPC, REST and auto transports: sync (False) and asyncio (True)
    False: ("grpc.GrpcTransport", "rest.RestTransport", "auto.AutoTransport"),
    True: ("grpc_aio.AsyncGrpcTransport", "rest_aio.AsyncRestTransport", "auto.AsyncAutoTransport"),
}


def make_transport(
    settings: Settings, api: str, location: str, quota_project: str | None, *, asynchronous: bool
) -> Any:
    """The (sync or asyncio) transport for `api`: gRPC, REST, or auto over both."""
    found = connection(settings, api, location, quota_project)
    endpoints, credentials = found.endpoints, found.credentials
    if credentials is not None:
        scrub_tokens_of(credentials)  # a server that echoes the token back shows it to no one
    certificate = found.client_certificate
    grpc_target = endpoints.grpc_target if settings.transport in ("auto", "grpc") else None
    rest_base_url = endpoints.rest_base_url if settings.transport in ("auto", "rest") else None
    if grpc_target is None and rest_base_url is None:
        missing, given = ("endpoint", "rest_endpoint")
        if settings.transport == "rest":
            missing, given = given, missing
        raise EndpointError(
            f"transport={settings.transport!r} needs {missing}=: only {given} is configured "
            "(by argument or emulator variable), and the other protocol is derived only "
            "from a Google host"
        )
    grpc_target = _grpc_after_fork(grpc_target, rest_base_url, asynchronous)
    grpc_name, rest_name, auto_name = _CLASSES[asynchronous]
    grpc_transport = rest_transport = None
    if grpc_target is not None:
        grpc_transport = _transport_class(grpc_name)(
            grpc_target,
            credentials=credentials if endpoints.grpc_credentials else None,
            secure=not endpoints.plaintext,
            root_certificates=settings.root_certificates,
            user_agent=USER_AGENT,
            allow_remote_plaintext=endpoints.remote_emulator,
            client_certificate=certificate,
            options=[
                ("grpc.max_receive_message_length", settings.max_response_bytes),
                *settings.grpc_options,
            ],
        )
    if rest_base_url is not None:
        tls = None
        if not endpoints.plaintext:
            tls = settings.ssl_context or client_ssl_context(
                settings.root_certificates, certificate
            )
        rest_transport = _transport_class(rest_name)(
            rest_base_url,
            credentials=credentials if endpoints.rest_credentials else None,
            ssl_context=tls,
            allow_remote_plaintext=endpoints.remote_emulator,
            max_response_bytes=settings.max_response_bytes,
            max_connections=settings.pool_limits.max_connections,
            max_idle_connections=settings.pool_limits.max_idle,
        )
    if grpc_transport is not None and rest_transport is not None:
        auto = _transport_class(auto_name)
        return auto(grpc_transport, rest_transport, cooldown=settings.fallback_cooldown)
    return grpc_transport or rest_transport


def _grpc_after_fork(
    grpc_target: str | None, rest_base_url: str | None, asynchronous: bool
) -> str | None:
    """The gRPC target, unless gRPC is unsafe in this forked child (then REST, or ClientForked)."""
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
    """A transport class, imported late: a sync gRPC client never loads HTTP or asyncio."""
    module_name, class_name = name.split(".")
    return getattr(importlib.import_module(f"groundwire.transports.{module_name}"), class_name)
