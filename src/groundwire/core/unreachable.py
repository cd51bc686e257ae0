"""Why an endpoint took no connection, said once for the batches and the command line."""

from __future__ import annotations

import os
import urllib.parse

from groundwire.core.addresses import is_loopback, is_loopback_target
from groundwire.core.endpoints import EMULATOR_GRPC_ENV, EMULATOR_REST_ENV
from groundwire.core.errors import Unavailable


def cannot_reach(where: str, detail: str) -> Unavailable:
    """The error for an endpoint that takes no connection: it names it and what to check.

    Example:
        >>> str(cannot_reach("http://127.0.0.1:8080", "refused"))
        'UNAVAILABLE: cannot reach http://127.0.0.1:8080; is `groundwire serve` running? (refused)'
        >>> str(cannot_reach("https://127.0.0.1:8080", "wrong version number")).split("; ")[1]
        '`groundwire serve` speaks plain HTTP: for the emulator use http://127.0.0.1:8080 (...)'
    """
    if _on_loopback(where) and where.lower().startswith("https://"):
        plain = "http://" + where[len("https://") :]
        hint = f"`groundwire serve` speaks plain HTTP: for the emulator use {plain}"
    elif _on_loopback(where):
        hint = "is `groundwire serve` running?"
    else:
        hint = "check the endpoint and the network"
    return Unavailable(f"cannot reach {where}; {hint} ({detail})")


def _on_loopback(where: str) -> bool:
    if "://" in where:
        return is_loopback(urllib.parse.urlsplit(where).hostname or "")
    return is_loopback_target(where)


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
