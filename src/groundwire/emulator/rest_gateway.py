"""The emulator's REST side: Google's paths and proto3 JSON, routed by the `google.api.http` rules.

One handler for `http_server.HttpServer`, which has read the request in full: route with
`rest_transcoding.match_route`, read the body with `rest_transcoding.decode_body` (strict:
UTF-8, no lone surrogates, unknown fields are errors), run `service` in a thread pool so the
event loop stays responsive, and answer JSON, a streamed JSON array, or server-sent events,
framed by `rest_transcoding.stream_frame`. Every failure is Google's JSON error
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
from collections.abc import Callable, Generator, Mapping
from concurrent import futures
from typing import Any, TypeVar

from google.protobuf.message import Message

from groundwire.contract.apis import Method, all_methods
from groundwire.contract.errors import (
    GroundwireError,
    Internal,
    NotFound,
    Unimplemented,
    bad_request,
)
from groundwire.contract.validation import raise_if_any
from groundwire.emulator import prescan
from groundwire.emulator.answering import Call, Switchboard, received_now, unary_piece
from groundwire.emulator.faults import FaultInjector, FaultPolicy
from groundwire.emulator.http_server import ClientGone, HttpRequest, Reply
from groundwire.emulator.outcomes import Ending, Step
from groundwire.emulator.rest_transcoding import (
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
from groundwire.wire.error_codecs import error_to_json

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
        switchboard: Switchboard | None = None,
    ) -> None:
        self._methods = all_methods()
        self._executor = futures.ThreadPoolExecutor(threads, thread_name_prefix="groundwire-rest")
        self._injector = FaultInjector(faults) if faults is not None else None
        self._switchboard = switchboard or Switchboard()

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
                requests = await self._run(_requests, route, request.body)
                await self._stream(
                    reply, self._steps(route.method, requests, request.headers), parameters
                )
                return
            piece = await unary_piece(await self._run(self._first_step, route, request))
            body = response_to_json(piece.response, enum_encoding_int=parameters.enum_encoding_int)
            await reply.send(200, [*_JSON_REPLY, *piece.metadata], body)
        except GroundwireError as error:
            await _send_error(reply, error)
        except ClientGone:
            raise  # an outcome closed the connection: the HTTP server drops it
        except Exception:  # an emulator bug must not take the server down
            if reply.status:
                raise  # the reply has started: the HTTP server ends the connection
            _log.exception("emulator bug while serving %s %s", request.method, request.path)
            await _send_error(reply, Internal("the emulator failed unexpectedly"))

    async def _run(self, function: Callable[..., _T], *args: Any) -> _T:
        return await asyncio.get_running_loop().run_in_executor(self._executor, function, *args)

    def _first_step(self, route: Route, request: HttpRequest) -> Step:
        """A unary call's one step, in one trip to the thread pool."""
        requests = _requests(route, request.body)
        return next(self._steps(route.method, requests, request.headers))

    def _steps(
        self, method: Method, requests: list[Message], headers: Mapping[str, str]
    ) -> Generator[Step, None, None]:
        """The switchboard's steps for each request in turn, made as they are consumed."""
        metadata = tuple(headers.items())
        for request in requests:
            call = Call(method, request, "rest", metadata, received_now())
            yield from self._switchboard.steps(call)

    async def _stream(
        self, reply: Reply, steps: Generator[Step, None, None], parameters: SystemParameters
    ) -> None:
        """Streams responses as they are made; an error after the first one ends the stream.

        The first step is made before the reply starts, so an error in the first request is
        an ordinary error response with its own HTTP status.
        """
        try:
            first = await self._run(_next, steps)
            if isinstance(first, Ending):
                await _end_early(reply, first)
            content_type = "text/event-stream" if parameters.alt == "sse" else _JSON
            await reply.start(200, [("Content-Type", f"{content_type}; charset=utf-8")])
            await self._write_stream(reply, steps, first, parameters)
        finally:
            with contextlib.suppress(ValueError):  # still running in a thread after a disconnect
                steps.close()

    async def _write_stream(
        self,
        reply: Reply,
        steps: Generator[Step, None, None],
        step: Step | None,
        parameters: SystemParameters,
    ) -> None:
        sse = parameters.alt == "sse"
        sent = 0
        if not sse:
            await reply.write(STREAM_OPEN)
        try:
            while step is not None:
                if step.delay_seconds:
                    await asyncio.sleep(step.delay_seconds)
                if isinstance(step, Ending):
                    if step.abort:
                        reply.abort()
                    raise _StreamFailed(step.error or Internal("a stream ends without an error"))
                data = response_to_json(
                    step.response, enum_encoding_int=parameters.enum_encoding_int
                )
                await reply.write(stream_frame(sent, data, sse=sse))
                sent += 1
                step = await self._next_or_error(steps)
        except _StreamFailed as failure:
            await reply.write(stream_frame(sent, error_to_json(failure.error), sse=sse))
        if not sse:
            await reply.write(STREAM_CLOSE)
        await reply.end()

    async def _next_or_error(self, steps: Generator[Step, None, None]) -> Step | None:
        try:
            return await self._run(_next, steps)
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


async def _end_early(reply: Reply, ending: Ending) -> None:
    """A stream whose outcome ends before its first piece: its error, or a closed connection."""
    if ending.delay_seconds:
        await asyncio.sleep(ending.delay_seconds)
    if ending.abort:
        reply.abort()
    raise ending.error or Internal("a stream ends without an error")


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


def _next(steps: Generator[Step, None, None]) -> Step | None:
    return next(steps, None)


async def _send_error(reply: Reply, error: GroundwireError) -> None:
    headers = list(_JSON_REPLY)
    if isinstance(error, _MethodNotAllowed):
        headers.append(("Allow", ", ".join(error.allowed)))
    await reply.send(error.http_status, headers, error_to_json(error))
