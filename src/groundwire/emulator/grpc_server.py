"""The emulator's gRPC side: every method through generic handlers, plus health and reflection.

The server is asynchronous (grpc.aio): a call waiting on its client holds no thread, so idle
or unread streams cannot starve unary calls and health checks. The engine's work runs in a
thread pool. One interceptor holds every call to the limits (`_CallCaps`): a unary call whose
request does not come is ended, calls waiting for their requests and calls being served have
caps of their own, streams of every service (ours, health's Watch, reflection) share
`max_streams`, and health checks always have room. Our stream also ends when its client sends
nothing for `stream_idle_timeout` or reads nothing for `write_timeout`.

Handlers are thin: parse the bytes, draw a fault, call `service`, send the response or the
error as a rich status (google.rpc.Status in grpc-status-details-bin). An unexpected exception
becomes INTERNAL; the server keeps serving. A client that leaves a stream is no error.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import os
import socket
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from concurrent import futures
from functools import cache
from typing import Any, NoReturn, TypeVar

import grpc
from google.protobuf import descriptor, descriptor_pool
from google.protobuf.message import DecodeError, Message

from groundwire.contract.apis import Method, all_methods
from groundwire.contract.errors import (
    DeadlineExceeded,
    GroundwireError,
    Internal,
    InvalidArgument,
    ResourceExhausted,
)
from groundwire.contract.validation import raise_if_any
from groundwire.emulator import prescan
from groundwire.emulator.answering import Call, Switchboard, received_now, unary_piece
from groundwire.emulator.faults import FaultInjector, FaultPolicy
from groundwire.emulator.limits import MAX_BODY_BYTES, Limits
from groundwire.emulator.outcomes import Ending, Step
from groundwire.emulator.serving import Activity, PortInUse
from groundwire.wire.bodies import MAX_MESSAGE_BYTES
from groundwire.wire.error_codecs import error_to_status_proto

MAX_REQUEST_BYTES = MAX_BODY_BYTES
"""As for REST bodies: room for the largest legal request (200 facts of 10,000 four-byte
characters, about 8 MiB) with margin, while grpc, which holds about three copies of a message
as it arrives, stays within twice a request's size."""

REQUEST_GRACE_SECONDS = 0.25
"""How long a unary call past `Limits.max_waiting_requests` may wait for its request."""

DEFAULT_THREADS = 16
_PENDING_CALLS = 3_000
"""Calls whose headers came that grpc holds before the server takes them up (grpc's hard limit)."""
_HEALTH_CHECK = "/grpc.health.v1.Health/Check"
_log = logging.getLogger(__name__)
_access = logging.getLogger("groundwire.emulator.access")
_T = TypeVar("_T")
_Context = grpc.aio.ServicerContext[Any, Any]


class GrpcServer:
    """A running gRPC server, its port, and the thread pool its engine calls run in."""

    def __init__(self, server: grpc.aio.Server, port: int, executor: futures.Executor) -> None:
        self.port = port
        self._server = server
        self._executor = executor

    async def stop(self, grace: float | None) -> None:
        """Refuses new calls, gives running ones `grace` seconds, then ends them."""
        await self._server.stop(grace)
        self._executor.shutdown(wait=False)


async def create_server(
    host: str = "127.0.0.1",
    port: int = 0,
    *,
    faults: FaultPolicy | None = None,
    limits: Limits | None = None,
    reuse_port: bool = False,
    threads: int = DEFAULT_THREADS,
    switchboard: Switchboard | None = None,
    activity: Activity | None = None,
) -> GrpcServer:
    """A started gRPC server on `host:port` (`port=0` picks a free one), on the running loop.

    `reuse_port` lets several processes serve one port (SO_REUSEPORT); it is off otherwise,
    so a second emulator on a taken port fails instead of silently sharing it. `switchboard`
    decides who answers each call (the engine alone by default); `activity` is where the
    server counts its calls as they come, wait and end.

    Example:
        >>> server = await create_server(port=0)  # doctest: +SKIP
        >>> await server.stop(grace=None)  # doctest: +SKIP
    """
    limits = limits or Limits()
    activity = activity or Activity()
    executor = futures.ThreadPoolExecutor(threads, thread_name_prefix="groundwire-grpc")
    server = grpc.aio.server(
        options=[
            ("grpc.max_receive_message_length", MAX_REQUEST_BYTES),
            ("grpc.max_send_message_length", MAX_MESSAGE_BYTES),
            ("grpc.so_reuseport", 1 if reuse_port else 0),
            # grpc refuses calls the server has not taken up yet past 1,000 when the oldest has
            # waited a while, which a loaded machine's burst of calls reaches; up to grpc's own
            # hard limit (3,000 calls' headers) the caps below decide instead.
            ("grpc.server.max_pending_requests", _PENDING_CALLS),
            ("grpc.server.max_pending_requests_hard_limit", _PENDING_CALLS),
        ],
        # A backstop only: _CallCaps refuses first, leaving room beyond its caps for health
        # checks and calls in their grace.
        maximum_concurrent_rpcs=limits.max_rpcs + 2 * limits.max_waiting_requests,
        interceptors=[_CallCaps(limits, activity)],
    )
    injector = FaultInjector(faults) if faults is not None else None
    calls = _Calls(injector, executor, limits, switchboard or Switchboard(), activity)
    server.add_generic_rpc_handlers(tuple(generic_handlers(calls)))
    await _add_health(server)
    _add_reflection(server)
    try:
        bound = server.add_insecure_port(_address(host, port))
    except RuntimeError:
        bound = 0
    if bound == 0:
        executor.shutdown(wait=False)
        raise PortInUse("gRPC", host, port)
    await server.start()
    return GrpcServer(server, bound, executor)


def generic_handlers(calls: _Calls) -> list[grpc.GenericRpcHandler[bytes, Message]]:
    """One generic handler per service, serving every method of `apis.all_methods()`."""
    by_service: dict[str, dict[str, grpc.RpcMethodHandler[bytes, Message]]] = {}
    for method in all_methods():
        service_name = method.grpc_path.split("/")[1]
        handler = _method_handler(method, calls)
        by_service.setdefault(service_name, {})[method.name] = handler
    return [
        grpc.method_handlers_generic_handler(name, handlers)
        for name, handlers in by_service.items()
    ]


def service_names() -> list[str]:
    """The full names of the emulated services.

    Example:
        >>> "google.cloud.aiplatform.v1.VertexRagService" in service_names()
        True
    """
    return sorted({method.grpc_path.split("/")[1] for method in all_methods()})


class _Calls:
    """What every handler shares: faults, the thread pool, the limits, the switchboard, counts."""

    def __init__(
        self,
        injector: FaultInjector | None,
        executor: futures.Executor,
        limits: Limits,
        switchboard: Switchboard,
        activity: Activity,
    ) -> None:
        self.injector = injector
        self.executor = executor
        self.limits = limits
        self.switchboard = switchboard
        self.activity = activity

    async def run(self, function: Callable[..., _T], *args: Any) -> _T:
        return await asyncio.get_running_loop().run_in_executor(self.executor, function, *args)

    async def inject(self) -> None:
        if self.injector is None:
            return
        fault = self.injector.draw()
        if fault.delay_seconds:
            await asyncio.sleep(fault.delay_seconds)
        if fault.error is not None:
            raise fault.error


def _method_handler(method: Method, calls: _Calls) -> grpc.RpcMethodHandler[bytes, Message]:
    """Requests arrive as bytes, so a malformed one is INVALID_ARGUMENT rather than INTERNAL."""
    if method.client_streaming and method.server_streaming:

        async def stream(_: AsyncIterator[bytes], context: _Context) -> None:
            started = time.perf_counter()
            sent = _Sent()
            try:
                await calls.inject()
                await _answer_stream(method, calls, context, sent)
                _log_call(context, method, "OK", started, sent.bytes)
            except _ConnectionDropped:
                _log_call(context, method, "ABORTED_CONNECTION", started, sent.bytes)
            except Exception as error:  # every failure becomes a status
                if context.done() or context.cancelled():
                    _log.debug("the client left a %s stream: %r", method.name, error)
                    return
                _end_failed(context, method, error, started, sent.bytes)

        return grpc.stream_stream_rpc_method_handler(stream, response_serializer=_serialize)

    async def unary(raw: bytes, context: _Context) -> Message | None:
        started = time.perf_counter()
        try:
            await calls.inject()
            first = await calls.run(_first_step, calls.switchboard, method, raw, context)
            piece = await unary_piece(first)
        except Exception as error:  # every failure becomes a status
            _end_failed(context, method, error, started)
            return None
        if piece.metadata:
            context.set_trailing_metadata(piece.metadata)
        _log_call(context, method, "OK", started, piece.response.ByteSize())
        return piece.response

    return grpc.unary_unary_rpc_method_handler(unary, response_serializer=_serialize)


class _Sent:
    """The bytes of responses a call has sent so far, for its access-log line."""

    def __init__(self) -> None:
        self.bytes = 0


async def _answer_stream(method: Method, calls: _Calls, context: _Context, sent: _Sent) -> None:
    """Answers each request as it arrives, holding no thread while the client is quiet."""
    limits, activity = calls.limits, calls.activity
    while True:
        activity.streams_reading += 1
        activity.changed()
        try:
            async with asyncio.timeout(limits.stream_idle_timeout):
                raw = await context.read()
        except TimeoutError:
            raise DeadlineExceeded(
                f"the stream was idle for {limits.stream_idle_timeout:g} s with no request; "
                "the emulator ended it"
            ) from None
        finally:
            activity.streams_reading -= 1
            activity.changed()
        if not isinstance(raw, bytes):  # grpc.aio.EOF: the client has sent its last request
            return
        steps = await calls.run(_steps, calls.switchboard, method, raw, context)
        while (step := await calls.run(next, steps, None)) is not None:
            if step.delay_seconds:
                await asyncio.sleep(step.delay_seconds)
            if isinstance(step, Ending):
                await _end_stream(context, step)
            try:
                async with asyncio.timeout(limits.write_timeout):
                    await context.write(step.response)
                sent.bytes += step.response.ByteSize()
            except TimeoutError:
                raise DeadlineExceeded(
                    f"the client read no response for {limits.write_timeout:g} s; "
                    "the emulator ended the stream"
                ) from None


class _CallCaps(grpc.aio.ServerInterceptor):  # type: ignore[type-arg]
    """Holds every call of every service to the limits, before its handler runs.

    A unary call first waits for its request, for at most `request_timeout` (then
    DEADLINE_EXCEEDED), so a call whose body never comes cannot hold room for long. At most
    `max_waiting_requests` wait at once; past that, a call gets `REQUEST_GRACE_SECONDS`, time
    enough for a request sent with its headers, and is refused with RESOURCE_EXHAUSTED if it
    has none by then. With its request, a call is served if fewer than `max_rpcs` calls are
    being served (open streams included), and streams are capped at `max_streams`; beyond
    either, RESOURCE_EXHAUSTED at once. Health checks count in no cap: they always have room.
    The counts the caps are held to live in `activity`, where tests can wait on them.
    """

    def __init__(self, limits: Limits, activity: Activity) -> None:
        self.limits = limits
        self.activity = activity

    async def intercept_service(
        self,
        continuation: Callable[
            [grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler[Any, Any]]
        ],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler[Any, Any]:
        handler = await continuation(handler_call_details)
        if handler is None:
            return handler
        if not (handler.request_streaming or handler.response_streaming):
            # As a stream-unary handler the call reads its own request, so the wait is ours.
            health = handler_call_details.method == _HEALTH_CHECK
            return grpc.stream_unary_rpc_method_handler(
                self._unary(handler.unary_unary, health),
                request_deserializer=handler.request_deserializer,
                response_serializer=handler.response_serializer,
            )
        if handler.request_streaming and handler.response_streaming:
            behaviour, wrap = handler.stream_stream, grpc.stream_stream_rpc_method_handler
        elif handler.request_streaming:
            behaviour, wrap = handler.stream_unary, grpc.stream_unary_rpc_method_handler
        else:
            behaviour, wrap = handler.unary_stream, grpc.unary_stream_rpc_method_handler
        return wrap(
            self._stream(behaviour),
            request_deserializer=handler.request_deserializer,
            response_serializer=handler.response_serializer,
        )

    def _unary(self, behaviour: Any, health: bool) -> Any:
        async def call(_: AsyncIterator[Any], context: _Context) -> Any:
            request = await self._request(context, health)
            if health:
                return await behaviour(request, context)
            await self._enter(context, stream=False)
            try:
                return await behaviour(request, context)
            finally:
                self.activity.calls_serving -= 1
                self.activity.changed()

        return call

    async def _request(self, context: _Context, health: bool) -> Any:
        """The call's one request, waited for within the limits; else the call is ended."""
        activity = self.activity
        counted = not health and activity.calls_waiting < self.limits.max_waiting_requests
        patient = health or counted
        activity.calls_waiting += counted
        activity.calls_received += 1
        activity.changed()
        try:
            async with asyncio.timeout(
                self.limits.request_timeout if patient else REQUEST_GRACE_SECONDS
            ):
                request = await context.read()
        except TimeoutError:
            await _abort_with(context, self._no_request(patient))
        finally:
            activity.calls_waiting -= counted
            activity.changed()
        if request is grpc.aio.EOF:  # type: ignore[attr-defined]  # not in the stubs
            await _abort_with(context, InvalidArgument("the call ended without its request"))
        return request

    def _no_request(self, patient: bool) -> GroundwireError:
        if patient:
            return DeadlineExceeded(
                f"the request did not arrive within {self.limits.request_timeout:g} s; "
                "the emulator ended the call"
            )
        return ResourceExhausted(
            f"the emulator has {self.limits.max_waiting_requests:,} calls waiting for their "
            "requests, its limit; retry shortly"
        )

    def _stream(self, behaviour: Any) -> Any:
        if inspect.isasyncgenfunction(behaviour):

            async def generator(request: Any, context: _Context) -> Any:
                await self._enter(context, stream=True)
                try:
                    async for response in behaviour(request, context):
                        yield response
                finally:
                    self._leave_stream()

            return generator

        async def coroutine(request: Any, context: _Context) -> Any:
            await self._enter(context, stream=True)
            try:
                return await behaviour(request, context)
            finally:
                self._leave_stream()

        return coroutine

    async def _enter(self, context: _Context, *, stream: bool) -> None:
        activity = self.activity
        if stream and activity.streams_open >= self.limits.max_streams:
            await _abort_with(context, _full(self.limits.max_streams, "streams open"))
        if activity.calls_serving >= self.limits.max_rpcs:
            await _abort_with(context, _full(self.limits.max_rpcs, "calls being served"))
        activity.calls_serving += 1
        activity.streams_open += stream
        activity.changed()

    def _leave_stream(self) -> None:
        self.activity.calls_serving -= 1
        self.activity.streams_open -= 1
        self.activity.changed()


def _full(capacity: int, what: str) -> ResourceExhausted:
    return ResourceExhausted(f"the emulator has {capacity:,} {what}, its limit; retry shortly")


def _first_step(switchboard: Switchboard, method: Method, raw: bytes, context: _Context) -> Step:
    """A unary call's one step, in one trip to the thread pool."""
    return next(_steps(switchboard, method, raw, context))


def _steps(
    switchboard: Switchboard, method: Method, raw: bytes, context: _Context
) -> Iterator[Step]:
    """What the switchboard plays for the request in `raw` (parsed and checked first)."""
    metadata = tuple(
        (key, value) for key, value in context.invocation_metadata() or () if isinstance(value, str)
    )
    call = Call(method, _parse(method, raw), "grpc", metadata, received_now())
    return switchboard.steps(call)


async def _end_stream(context: _Context, ending: Ending) -> NoReturn:
    """Ends a stream with the ending's error, or closes its connection as a lost one would."""
    if ending.abort:
        _drop_connection(context.peer())
        raise _ConnectionDropped
    raise ending.error or Internal("a stream ending needs an error or an abort")


class _ConnectionDropped(Exception):
    """A stream's outcome closed its connection: the call has no status to send."""


def _drop_connection(peer: str) -> None:
    """Shuts down the socket of the connection from `peer` (`ipv4:127.0.0.1:5123`).

    gRPC has no call to close one connection, so the socket is found among the process's
    descriptors by its peer address; shutting it down ends every call on it, as a network
    failure would (the client sees UNAVAILABLE).
    """
    host, _, port = peer.partition(":")[2].rpartition(":")
    wanted = (host.strip("[]"), int(port)) if port.isdigit() else None
    for name in os.listdir("/dev/fd"):
        try:
            found = socket.socket(fileno=os.dup(int(name)))
        except (OSError, ValueError):
            continue
        with found:
            try:
                address = found.getpeername()
                if (address[0].removeprefix("::ffff:"), address[1]) == wanted:
                    found.shutdown(socket.SHUT_RDWR)
            except (OSError, IndexError, TypeError):
                continue


def _serialize(response: Message) -> bytes:
    return response.SerializeToString()


def _parse(method: Method, raw: bytes) -> Message:
    """The request in `raw`, refused from its bytes alone when a count or length is over a limit."""
    raise_if_any(method.name, prescan.wire_violations(method, raw))
    try:
        return method.request_class.FromString(raw)
    except (DecodeError, RuntimeError, ValueError) as error:
        raise InvalidArgument(
            f"the request is not a valid {method.request_class.DESCRIPTOR.full_name}: {error}"
        ) from None


def _status(error: GroundwireError) -> grpc.Status:
    from grpc_status import rpc_status

    return rpc_status.to_status(error_to_status_proto(error))


def _end_failed(
    context: _Context, method: Method, error: Exception, started: float, sent_bytes: int = 0
) -> None:
    """Sets the status a failed call ends with when its handler returns, and logs it.

    Not `context.abort`: grpc keeps an aborted call's exception, and with it the request, in a
    reference cycle until the garbage collector runs, so each large refused request would add
    its size to the emulator. An unexpected exception is INTERNAL.
    """
    if not isinstance(error, GroundwireError):
        _log.exception("emulator bug while serving a gRPC call", exc_info=error)
        error = Internal(f"the emulator failed unexpectedly: {type(error).__name__}")
    _log_call(context, method, error.code.name, started, sent_bytes)
    status = _status(error)
    context.set_code(status.code)
    context.set_details(status.details)
    context.set_trailing_metadata(status.trailing_metadata)


async def _abort_with(context: _Context, error: GroundwireError) -> NoReturn:
    """Ends the call with `error` as a rich status (google.rpc.Status with its details)."""
    status = _status(error)
    await context.abort(status.code, status.details, status.trailing_metadata)
    raise AssertionError("abort returns only by raising")


def _log_call(
    context: _Context, method: Method, code: str, started: float, sent_bytes: int
) -> None:
    """One access-log line, as the REST side writes: peer, method, status, bytes sent, time."""
    if _access.isEnabledFor(logging.INFO):
        elapsed = 1e3 * (time.perf_counter() - started)
        _access.info(
            "%s gRPC %s %s %d %.1fms", context.peer(), method.grpc_path, code, sent_bytes, elapsed
        )


async def _add_health(server: grpc.aio.Server) -> None:
    from grpc_health.v1 import health, health_pb2, health_pb2_grpc

    servicer = health.aio.HealthServicer()  # type: ignore[attr-defined]  # not in the stubs
    for name in ("", *service_names()):
        await servicer.set(name, health_pb2.HealthCheckResponse.SERVING)
    health_pb2_grpc.add_HealthServicer_to_server(servicer, server)


def _add_reflection(server: grpc.aio.Server) -> None:
    from grpc_health.v1 import health_pb2
    from grpc_reflection.v1alpha import reflection

    names = [
        *service_names(),
        health_pb2.DESCRIPTOR.services_by_name["Health"].full_name,
        reflection.SERVICE_NAME,
    ]
    reflection.enable_server_reflection(names, server, pool=_reflection_pool())


@cache
def _reflection_pool() -> descriptor_pool.DescriptorPool:
    """Our stubs' files and the health and reflection protos, which live in different pools."""
    from grpc_health.v1 import health_pb2
    from grpc_reflection.v1alpha import reflection_pb2

    from groundwire.contract.apis import service_descriptor

    pool = descriptor_pool.DescriptorPool()
    added: set[str] = set()
    files = [
        *(service_descriptor(m.api, m.version).file for m in all_methods()),
        health_pb2.DESCRIPTOR,
        reflection_pb2.DESCRIPTOR,
    ]
    for file in files:
        _add_file(pool, file, added)
    return pool


def _add_file(
    pool: descriptor_pool.DescriptorPool, file: descriptor.FileDescriptor, added: set[str]
) -> None:
    if file.name in added:
        return
    for dependency in file.dependencies:
        _add_file(pool, dependency, added)
    pool.AddSerializedFile(file.serialized_pb)
    added.add(file.name)


def _address(host: str, port: int) -> str:
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
