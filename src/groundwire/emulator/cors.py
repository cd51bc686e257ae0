"""What a browser may do with the emulator's REST port: the Host it names, and CORS.

`with_host_check` answers 403 to a request whose Host is not the emulator's own
(`groundwire.emulator.browsers.host_allowed`), on every path: a page that rebinds its own name
to loopback can then read nothing, neither the journal nor a recorder's answers.

CORS is off unless origins are given (`serve --cors-origin ORIGIN`, repeatable; `*` allows
any). A request from an allowed origin gets the CORS headers on its answer, and its preflight
(`OPTIONS` with `Access-Control-Request-Method`) is answered 204 with the methods and headers
allowed. A request from any other origin is served as it would be without CORS: no CORS
headers, so the browser keeps the answer from the page (the admin API refuses it outright).
"""

from __future__ import annotations

from collections.abc import Sequence

from groundwire.contract.errors import PermissionDenied
from groundwire.emulator.browsers import host_allowed, origin_allowed
from groundwire.emulator.http_server import Handler, HttpRequest, Reply
from groundwire.emulator.service import UNFINISHED_CLAIMS_HEADER
from groundwire.wire.error_codecs import error_to_json

ALLOWED_METHODS = "GET, POST, DELETE, OPTIONS"
MAX_AGE_SECONDS = 600
JSON_REPLY = [("Content-Type", "application/json; charset=utf-8")]


def with_host_check(handler: Handler, bound_host: str, allowed_hosts: Sequence[str]) -> Handler:
    """`handler`, answering 403 to a request whose Host is not loopback, an IP or allowed.

    Example:
        >>> async def hello(request, reply): ...
        >>> checked = with_host_check(hello, "127.0.0.1", ["emulator"])
    """

    async def checked(request: HttpRequest, reply: Reply) -> None:
        if host_allowed(request.headers.get("host"), bound_host, allowed_hosts):
            await handler(request, reply)
            return
        error = PermissionDenied(
            "the emulator does not answer this Host: it answers IP addresses, localhost, "
            "its bound address and the names given with serve --allowed-host NAME"
        )
        await reply.send(error.http_status, JSON_REPLY, error_to_json(error))

    return checked


def with_cors(handler: Handler, origins: Sequence[str]) -> Handler:
    """`handler`, answering preflights and adding CORS headers for `origins`.

    Example:
        >>> async def hello(request, reply): ...
        >>> with_cors(hello, []) is hello
        True
    """
    if not origins:
        return handler
    allowed = frozenset(origins)

    async def cors(request: HttpRequest, reply: Reply) -> None:
        origin = request.headers.get("origin")
        if origin is None or not origin_allowed(origin, allowed):
            await handler(request, reply)
            return
        shown = "*" if "*" in allowed else origin
        headers = [("Access-Control-Allow-Origin", shown), ("Vary", "Origin")]
        asked = request.headers.get("access-control-request-method")
        if request.method == "OPTIONS" and asked is not None:
            requested = request.headers.get("access-control-request-headers", "")
            preflight = [
                ("Access-Control-Allow-Methods", ALLOWED_METHODS),
                ("Access-Control-Max-Age", str(MAX_AGE_SECONDS)),
                *([("Access-Control-Allow-Headers", requested)] if requested else []),
            ]
            await reply.start(204, [*headers, *preflight])
            await reply.end()
            return
        reply.extra_headers.extend(
            [*headers, ("Access-Control-Expose-Headers", UNFINISHED_CLAIMS_HEADER)]
        )
        await handler(request, reply)

    return cors
