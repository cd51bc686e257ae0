"""CORS for the REST and admin paths, so a web app on a dev server can call the emulator.

Off unless origins are given (`serve --cors-origin ORIGIN`, repeatable; `*` allows any). A
request from an allowed origin gets the CORS headers on its answer, and its preflight
(`OPTIONS` with `Access-Control-Request-Method`) is answered 204 with the methods and headers
allowed. A request from any other origin is served as it would be without CORS: no CORS
headers, so the browser keeps the answer from the page.
"""

from __future__ import annotations

from collections.abc import Sequence

from groundwire.emulator.http_server import Handler, HttpRequest, Reply
from groundwire.emulator.service import UNFINISHED_CLAIMS_HEADER

ALLOWED_METHODS = "GET, POST, DELETE, OPTIONS"
MAX_AGE_SECONDS = 600


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
        if origin is None or not ("*" in allowed or origin in allowed):
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
