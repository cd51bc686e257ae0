"""The emulator's REST side: Google's paths and proto3 JSON, routed by the `google.api.http` rules.

One catch-all handler: route with `transcoding.match_route`, read a bounded body, parse it
strictly (unknown fields are errors), run `service` in a thread pool so the event loop stays
responsive, and answer JSON, a streamed JSON array, or server-sent events. Every failure is
Google's JSON error body, with the status its code maps to; nothing a client sends can take
the server down.

Status decisions: a body over `max_body_bytes` is refused with 413 (INVALID_ARGUMENT: retrying
cannot help) before it is read in full, or at all when Content-Length already says so; a known
path with the wrong HTTP verb gets 405 (NOT_FOUND) with an Allow header; unknown paths get 404.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Callable
from concurrent import futures
from dataclasses import dataclass
from typing import Any, TypeVar

from aiohttp import web
from google.protobuf.message import Message

from groundwire.core.apis import Method, all_methods
from groundwire.core.errors import (
    GroundwireError,
    Internal,
    InvalidArgument,
    NotFound,
    bad_request,
    error_to_json,
)
from groundwire.core.transcoding import (
    Route,
    SystemParameters,
    bind_path,
    decode_message,
    match_route,
    response_to_json,
    system_parameters,
)
from groundwire.emulator import service
from groundwire.emulator.faults import FaultInjector, FaultPolicy
from groundwire.emulator.service import Responses

MAX_BODY_BYTES = 32 * 1024 * 1024
"""Bodies above this are refused; the largest legal request needs about 12 MiB of JSON."""

MAX_CONCURRENT_REQUESTS = 32
"""Requests read and handled at once (the rest wait), which bounds memory to ~1 GiB of bodies."""

DEFAULT_THREADS = 8
_READ_BYTES = 256 * 1024
_JSON = "application/json"
_log = logging.getLogger(__name__)
_T = TypeVar("_T")


@dataclass(frozen=True)
class _Gateway:
    methods: list[Method]
    executor: futures.ThreadPoolExecutor
    slots: asyncio.Semaphore
    injector: FaultInjector | None
    max_body_bytes: int

    async def run(self, function: Callable[..., _T], *args: Any) -> _T:
        return await asyncio.get_running_loop().run_in_executor(self.executor, function, *args)


_GATEWAY = web.AppKey("groundwire_gateway", _Gateway)


def create_app(
    *,
    faults: FaultPolicy | None = None,
    max_body_bytes: int = MAX_BODY_BYTES,
    threads: int = DEFAULT_THREADS,
) -> web.Application:
    """The aiohttp application serving every method of `apis.all_methods()` over REST.

    Serve it with `web.run_app(app)` or an AppRunner; `groundwire.emulator.server` does.

    Example:
        >>> isinstance(create_app(), web.Application)
        True
    """
    app = web.Application(client_max_size=max_body_bytes + 1)
    executor = futures.ThreadPoolExecutor(threads, thread_name_prefix="groundwire-rest")
    app[_GATEWAY] = _Gateway(
        methods=all_methods(),
        executor=executor,
        slots=asyncio.Semaphore(MAX_CONCURRENT_REQUESTS),
        injector=FaultInjector(faults) if faults is not None else None,
        max_body_bytes=max_body_bytes,
    )
    app.router.add_route("*", "/{tail:.*}", _handle)

    async def shut_down_executor(_: web.Application) -> None:
        await asyncio.get_running_loop().run_in_executor(None, executor.shutdown)

    app.on_cleanup.append(shut_down_executor)
    return app


async def _handle(request: web.Request) -> web.StreamResponse:
    gateway = request.app[_GATEWAY]
    try:
        route = _route(gateway.methods, request.method, request.path)
        parameters = system_parameters(request.query_string)
        _check_content_type(request)
        async with gateway.slots:
            body = await _read_body(request, gateway.max_body_bytes)
            await _inject(gateway.injector)
            if route.method.server_streaming:
                return await _stream(request, gateway, route, body, parameters)
            response = await gateway.run(_unary, route, body)
        return web.Response(
            body=response_to_json(response, enum_encoding_int=parameters.enum_encoding_int),
            content_type=_JSON,
            charset="utf-8",
        )
    except GroundwireError as error:
        return _error_response(error)
    except Exception:  # an emulator bug must not take the server down
        _log.exception("emulator bug while serving %s %s", request.method, request.path)
        return _error_response(Internal("the emulator failed unexpectedly"))


def _route(methods: list[Method], verb: str, path: str) -> Route:
    route = match_route(methods, verb, path) or _loose_route(methods, verb, path)
    if route is not None:
        return route
    allowed = sorted({m.http.verb for m in methods if match_route([m], m.http.verb, path)})
    if allowed:
        raise _MethodNotAllowed(
            f"{verb} is not allowed on {path}; use {', '.join(allowed)}",
            http_status=405,
            allowed=allowed,
        )
    raise NotFound(f"the emulator has no method at {verb} {path}")


def _loose_route(methods: list[Method], verb: str, path: str) -> Route | None:
    """A path with the right version and verb suffix but a malformed resource name.

    It is routed anyway, so the service answers INVALID_ARGUMENT naming the field (for
    example `grounding_config`) rather than a bare 404.
    """
    for candidate in methods:
        prefix, _, rest = candidate.http.template.partition("{")
        suffix = rest.rpartition("}")[2]
        if (
            candidate.http.verb == verb.upper()
            and path.startswith(prefix)
            and path.endswith(suffix)
            and len(path) > len(prefix) + len(suffix)
        ):
            resource = path[len(prefix) : len(path) - len(suffix)]
            return Route(candidate, {candidate.routing_field: resource})
    return None


class _MethodNotAllowed(NotFound):
    def __init__(self, message: str, *, http_status: int, allowed: list[str]) -> None:
        super().__init__(message, http_status=http_status)
        self.allowed = allowed


def _check_content_type(request: web.Request) -> None:
    if not request.body_exists and "Content-Type" not in request.headers:
        return
    if request.content_type != _JSON:
        shown = request.headers.get("Content-Type", "none")
        raise bad_request(
            [("Content-Type", f"is {shown!r}; send {_JSON}")],
            f"the body must be {_JSON}, not {shown}",
        )


async def _read_body(request: web.Request, limit: int) -> bytes:
    if request.content_length is not None and request.content_length > limit:
        raise _too_large(limit)
    chunks: list[bytes] = []
    size = 0
    while chunk := await request.content.read(_READ_BYTES):
        size += len(chunk)
        if size > limit:
            raise _too_large(limit)
        chunks.append(chunk)
    return b"".join(chunks)


def _too_large(limit: int) -> InvalidArgument:
    return InvalidArgument(
        f"the body is over the emulator's limit of {limit:,} bytes", http_status=413
    )


async def _inject(injector: FaultInjector | None) -> None:
    if injector is None:
        return
    fault = injector.draw()
    if fault.delay_seconds:
        await asyncio.sleep(fault.delay_seconds)
    if fault.error is not None:
        raise fault.error


def _unary(route: Route, body: bytes) -> Message:
    (request,) = _requests(route, body)
    return service.handle_unary(route.method, request)


def _requests(route: Route, body: bytes) -> list[Message]:
    """The requests of a body: one JSON object, or (streaming methods) an array of them."""
    try:
        document = json.loads(body) if body.strip() else {}
    except (ValueError, RecursionError) as error:
        reason = str(error).splitlines()[0][:200] if str(error) else type(error).__name__
        raise bad_request([("body", reason)], f"the body is not valid JSON: {reason}") from None
    streaming = route.method.server_streaming
    items = document if streaming and isinstance(document, list) else [document]
    if not items:
        raise bad_request([("body", "the array is empty")], "a stream needs at least one request")
    requests = []
    for index, item in enumerate(items):
        field = f"body[{index}]" if streaming and isinstance(document, list) else "body"
        if not isinstance(item, dict):
            expected = "an object or an array of objects" if streaming else "an object"
            raise bad_request([(field, f"must be {expected}")], f"{field} must be {expected}")
        request = decode_message(item, route.method.request_class, ignore_unknown_fields=False)
        bind_path(request, route.bindings)
        requests.append(request)
    return requests


async def _stream(
    request: web.Request, gateway: _Gateway, route: Route, body: bytes, parameters: SystemParameters
) -> web.StreamResponse:
    """Streams responses as they are made; an error after the first one ends the stream.

    The first response is made before the reply starts, so an error in the first request is
    an ordinary error response with its own HTTP status.
    """
    requests = await gateway.run(_requests, route, body)
    responses = service.handle_stream(route.method, iter(requests))
    made = await gateway.run(_next, responses)
    sse = parameters.alt == "sse"
    content_type = "text/event-stream" if sse else _JSON
    reply = web.StreamResponse(headers={"Content-Type": f"{content_type}; charset=utf-8"})
    reply.enable_chunked_encoding()
    await reply.prepare(request)
    try:
        await _write_stream(reply, gateway, responses, made, parameters)
    except ConnectionError:
        pass  # the client went away; nothing is left to tell it
    finally:
        with contextlib.suppress(ValueError):  # still running in a thread after a disconnect
            responses.close()
    return reply


async def _write_stream(
    reply: web.StreamResponse,
    gateway: _Gateway,
    responses: Responses,
    made: Message | None,
    parameters: SystemParameters,
) -> None:
    sse = parameters.alt == "sse"
    sent = 0
    if not sse:
        await reply.write(b"[")
    try:
        while made is not None:
            data = response_to_json(made, enum_encoding_int=parameters.enum_encoding_int)
            await reply.write(_frame(sent, data, sse))
            sent += 1
            made = await _next_or_error(gateway, responses)
    except _StreamFailed as failure:
        await reply.write(_frame(sent, error_to_json(failure.error), sse))
    if not sse:
        await reply.write(b"]")
    await reply.write_eof()


class _StreamFailed(Exception):
    def __init__(self, error: GroundwireError) -> None:
        super().__init__(str(error))
        self.error = error


async def _next_or_error(gateway: _Gateway, responses: Responses) -> Message | None:
    try:
        return await gateway.run(_next, responses)
    except GroundwireError as error:
        raise _StreamFailed(error) from None
    except Exception as error:  # reported in the stream; the server goes on
        _log.exception("emulator bug while streaming", exc_info=error)
        raise _StreamFailed(Internal("the emulator failed unexpectedly")) from None


def _next(responses: Responses) -> Message | None:
    return next(responses, None)


def _frame(position: int, data: bytes, sse: bool) -> bytes:
    if sse:
        return b"data: " + data + b"\r\n\r\n"
    return data if position == 0 else b"," + data


def _error_response(error: GroundwireError) -> web.Response:
    headers = {"Allow": ", ".join(error.allowed)} if isinstance(error, _MethodNotAllowed) else {}
    return web.Response(
        status=error.http_status,
        body=error_to_json(error),
        headers=headers,
        content_type=_JSON,
        charset="utf-8",
    )
