"""The emulator's REST side: Google's paths and proto3 JSON, routed by the `google.api.http` rules.

One handler for `http_server.HttpServer`, which has read the request in full: route with
`transcoding.match_route`, read the body with `transcoding.decode_body` (strict: UTF-8, no
lone surrogates, unknown fields are errors), run `service` in a thread pool so the event loop
stays responsive, and answer JSON, a streamed JSON array, or server-sent events, framed by
`transcoding.stream_frame`. Every failure is Google's JSON error
body, with the status its code maps to; nothing a client sends can take the server down.

Status decisions: a known path with the wrong HTTP verb gets 405 (UNIMPLEMENTED, as
grpc-gateway words it: the path exists, the verb is not served there) with an Allow header;
a path that no rule matches gets 404, as Google's front end answers, even when only its
resource name is malformed (`POST /v1/nowhere:check`). (Bodies over the limit, 413, are
refused by the HTTP server before they are read in full, or at all when Content-Length
already says so.)
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from concurrent import futures
from typing import TYPE_CHECKING, Any, TypeVar

from google.protobuf.message import Message

from groundwire.core.apis import Method, all_methods
from groundwire.core.error_codecs import error_to_json
from groundwire.core.errors import (
    GroundwireError,
    Internal,
    NotFound,
    Unimplemented,
    bad_request,
)
from groundwire.core.transcoding import (
    STREAM_CLOSE,
    STREAM_OPEN,
    Route,
    SystemParameters,
    decode_body,
    match_route,
    response_to_json,
    stream_frame,
    system_parameters,
)
from groundwire.core.validation import raise_if_any
from groundwire.emulator import prescan, service
from groundwire.emulator.faults import FaultInjector, FaultPolicy
from groundwire.emulator.http_server import HttpRequest, Reply
from groundwire.emulator.service import Responses

if TYPE_CHECKING:
    from groundwire.emulator.judges import BatchJudge

DEFAULT_THREADS = 8
_JSON = "application/json"
_JSON_REPLY = [("Content-Type", "application/json; charset=utf-8")]
_log = logging.getLogger(__name__)
_T = TypeVar("_T")


class RestGateway:
    """Serves every method of `apis.all_methods()` over REST, as an `HttpServer` handler.

    Example:
        >>> gateway = RestGateway()  # then `HttpServer(gateway, limits)`
        >>> gateway.close()
    """

    def __init__(
        self,
        *,
        faults: FaultPolicy | None = None,
        threads: int = DEFAULT_THREADS,
        judge: BatchJudge | None = None,
    ) -> None:
        self._methods = all_methods()
        self._judge = judge
        self._executor = futures.ThreadPoolExecutor(threads, thread_name_prefix="groundwire-rest")
        self._injector = FaultInjector(faults) if faults is not None else None

    def close(self) -> None:
        """Waits for the service calls still running in the thread pool, then frees it."""
        self._executor.shutdown()

    async def __call__(self, request: HttpRequest, reply: Reply) -> None:
        """Answers one request: the method's response, or Google's JSON error."""
        try:
            route = _route(self._methods, request.method, request.path)
            parameters = system_parameters(request.query)
            _check_content_type(request)
            await _inject(self._injector)
            if route.method.server_streaming:
                await self._stream(reply, route, request.body, parameters)
                return
            answered = await self._run(_unary, route, request.body, self._judge)
            body = response_to_json(
                answered.response, enum_encoding_int=parameters.enum_encoding_int
            )
            await reply.send(200, [*_JSON_REPLY, *answered.metadata()], body)
        except GroundwireError as error:
            await _send_error(reply, error)
        except Exception:  # an emulator bug must not take the server down
            if reply.status:
                raise  # the reply has started: the HTTP server ends the connection
            _log.exception("emulator bug while serving %s %s", request.method, request.path)
            await _send_error(reply, Internal("the emulator failed unexpectedly"))

    async def _run(self, function: Callable[..., _T], *args: Any) -> _T:
        return await asyncio.get_running_loop().run_in_executor(self._executor, function, *args)

    async def _stream(
        self, reply: Reply, route: Route, body: bytes, parameters: SystemParameters
    ) -> None:
        """Streams responses as they are made; an error after the first one ends the stream.

        The first response is made before the reply starts, so an error in the first request
        is an ordinary error response with its own HTTP status.
        """
        requests = await self._run(_requests, route, body)
        responses = service.handle_stream(route.method, iter(requests), self._judge)
        try:
            made = await self._run(_next, responses)
            content_type = "text/event-stream" if parameters.alt == "sse" else _JSON
            await reply.start(200, [("Content-Type", f"{content_type}; charset=utf-8")])
            await self._write_stream(reply, responses, made, parameters)
        finally:
            with contextlib.suppress(ValueError):  # still running in a thread after a disconnect
                responses.close()

    async def _write_stream(
        self, reply: Reply, responses: Responses, made: Message | None, parameters: SystemParameters
    ) -> None:
        sse = parameters.alt == "sse"
        sent = 0
        if not sse:
            await reply.write(STREAM_OPEN)
        try:
            while made is not None:
                data = response_to_json(made, enum_encoding_int=parameters.enum_encoding_int)
                await reply.write(stream_frame(sent, data, sse=sse))
                sent += 1
                made = await self._next_or_error(responses)
        except _StreamFailed as failure:
            await reply.write(stream_frame(sent, error_to_json(failure.error), sse=sse))
        if not sse:
            await reply.write(STREAM_CLOSE)
        await reply.end()

    async def _next_or_error(self, responses: Responses) -> Message | None:
        try:
            return await self._run(_next, responses)
        except GroundwireError as error:
            raise _StreamFailed(error) from None
        except Exception as error:  # reported in the stream; the server goes on
            _log.exception("emulator bug while streaming", exc_info=error)
            raise _StreamFailed(Internal("the emulator failed unexpectedly")) from None


def _route(methods: list[Method], verb: str, path: str) -> Route:
    route = match_route(methods, verb, path)
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


class _MethodNotAllowed(Unimplemented):
    def __init__(self, message: str, *, http_status: int, allowed: list[str]) -> None:
        super().__init__(message, http_status=http_status)
        self.allowed = allowed


def _check_content_type(request: HttpRequest) -> None:
    shown = request.headers.get("content-type")
    if not request.body and shown is None:
        return
    if (shown or "").partition(";")[0].strip().lower() != _JSON:
        raise bad_request(
            [("Content-Type", f"is {shown or 'none'!r}; send {_JSON}")],
            f"the body must be {_JSON}, not {shown or 'none'}",
        )


async def _inject(injector: FaultInjector | None) -> None:
    if injector is None:
        return
    fault = injector.draw()
    if fault.delay_seconds:
        await asyncio.sleep(fault.delay_seconds)
    if fault.error is not None:
        raise fault.error


def _unary(route: Route, body: bytes, judge: BatchJudge | None) -> service.Answered:
    (request,) = _requests(route, body)
    return service.answer_unary(route.method, request, judge=judge)


def _requests(route: Route, body: bytes) -> list[Message]:
    """The body's requests, refused from the JSON text alone when a count or length is over a limit.

    So a body of millions of tiny requests or facts is refused before one is built.
    """
    raise_if_any(route.method.name, prescan.json_violations(route.method, body))
    return decode_body(route.method, body, route.bindings)


class _StreamFailed(Exception):
    def __init__(self, error: GroundwireError) -> None:
        super().__init__(str(error))
        self.error = error


def _next(responses: Responses) -> Message | None:
    return next(responses, None)


async def _send_error(reply: Reply, error: GroundwireError) -> None:
    headers = list(_JSON_REPLY)
    if isinstance(error, _MethodNotAllowed):
        headers.append(("Allow", ", ".join(error.allowed)))
    await reply.send(error.http_status, headers, error_to_json(error))
