"""Real gRPC and HTTP servers on loopback that answer with scripted responses, for client tests.

Both protocols call the same behaviour function, so a test states once what the server does
and checks that the client behaves the same whichever transport carried the call.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Iterable
from concurrent import futures
from dataclasses import dataclass, field
from typing import Any

import grpc
from aiohttp import web
from google.protobuf import message
from grpc_status import rpc_status

from groundwire.contract import apis, errors, transcoding
from groundwire.emulator import rest_transcoding
from groundwire.wire import error_codecs

Behaviour = Callable[[apis.Method, message.Message], Any]
"""Gets (method, request); returns a response, a list of responses (streams), or raises a
GroundwireError that the server sends as a status with details."""


@dataclass
class Recorder:
    """What the servers saw."""

    grpc_calls: int = 0
    rest_calls: int = 0
    metadata: list[dict[str, str]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def record(self, protocol: str, headers: dict[str, str]) -> None:
        with self.lock:
            if protocol == "grpc":
                self.grpc_calls += 1
            else:
                self.rest_calls += 1
            self.metadata.append(headers)


def _text_headers(metadata: Iterable[tuple[str, str | bytes]]) -> dict[str, str]:
    """gRPC metadata as the text headers a REST call carries: binary (`-bin`) values left out."""
    return {key: value for key, value in metadata if isinstance(value, str)}


def _grpc_handlers(behaviour: Behaviour, recorder: Recorder) -> grpc.GenericRpcHandler[Any, Any]:
    handlers: dict[str, grpc.RpcMethodHandler[Any, Any]] = {}

    def fail(context: grpc.ServicerContext, error: errors.GroundwireError) -> None:
        context.abort_with_status(rpc_status.to_status(error_codecs.error_to_status_proto(error)))

    for method in apis.all_methods():

        def unary(
            request: message.Message, context: grpc.ServicerContext, method: apis.Method = method
        ) -> message.Message:
            recorder.record("grpc", _text_headers(context.invocation_metadata()))
            try:
                return behaviour(method, request)
            except errors.GroundwireError as error:
                fail(context, error)
                raise

        def stream(
            requests: Iterable[message.Message],
            context: grpc.ServicerContext,
            method: apis.Method = method,
        ) -> Iterable[message.Message]:
            recorder.record("grpc", _text_headers(context.invocation_metadata()))
            try:
                for request in requests:
                    yield from behaviour(method, request)
            except errors.GroundwireError as error:
                fail(context, error)

        deserialize, serialize = method.request_class.FromString, (lambda m: m.SerializeToString())
        handlers[method.grpc_path] = (
            grpc.stream_stream_rpc_method_handler(stream, deserialize, serialize)
            if method.client_streaming
            else grpc.unary_unary_rpc_method_handler(unary, deserialize, serialize)
        )

    # grpc-stubs makes the class generic, but grpc's own class cannot be subscripted.
    class Handler(grpc.GenericRpcHandler):  # type: ignore[type-arg]
        def service(
            self, details: grpc.HandlerCallDetails
        ) -> grpc.RpcMethodHandler[Any, Any] | None:
            return handlers.get(details.method)

    return Handler()


def _rest_app(behaviour: Behaviour, recorder: Recorder) -> web.Application:
    methods = apis.all_methods()

    async def handle(request: web.Request) -> web.StreamResponse:
        recorder.record("rest", {k.lower(): v for k, v in request.headers.items()})
        route = rest_transcoding.match_route(methods, request.method, request.path)
        if route is None:
            return web.Response(status=404, text="no such path")
        body = await request.read()
        try:
            if route.method.client_streaming:
                import json

                items = json.loads(body)
                parsed = [transcoding.decode_message(i, route.method.request_class) for i in items]
                for item in parsed:
                    rest_transcoding.bind_path(item, route.bindings)
                responses = await asyncio.to_thread(
                    lambda: [r for item in parsed for r in behaviour(route.method, item)]
                )
                out = web.StreamResponse(headers={"Content-Type": "application/json"})
                await out.prepare(request)
                await out.write(b"[")
                for index, response in enumerate(responses):
                    await out.write(
                        (b"," if index else b"") + rest_transcoding.response_to_json(response)
                    )
                    await asyncio.sleep(0.01)
                await out.write(b"]")
                await out.write_eof()
                return out
            parsed_request = transcoding.decode_message(body, route.method.request_class)
            rest_transcoding.bind_path(parsed_request, route.bindings)
            response = await asyncio.to_thread(behaviour, route.method, parsed_request)
        except errors.GroundwireError as error:
            return web.Response(
                status=errors.status_to_http(error.code),
                body=error_codecs.error_to_json(error),
                content_type="application/json",
            )
        return web.Response(
            body=rest_transcoding.response_to_json(response), content_type="application/json"
        )

    app = web.Application()
    app.router.add_route("*", "/{tail:.*}", handle)
    return app


class CannedServers:
    """A gRPC server and an HTTP server on loopback sharing one behaviour."""

    def __init__(self, behaviour: Behaviour) -> None:
        self.behaviour = behaviour
        self.recorder = Recorder()
        self._grpc = grpc.server(futures.ThreadPoolExecutor(max_workers=16))
        self._grpc.add_generic_rpc_handlers((_grpc_handlers(self._call, self.recorder),))
        self.grpc_port = self._grpc.add_insecure_port("127.0.0.1:0")
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._runner: web.AppRunner | None = None
        self.http_port = 0

    def _call(self, method: apis.Method, request: message.Message) -> Any:
        return self.behaviour(method, request)

    @property
    def grpc_address(self) -> str:
        return f"127.0.0.1:{self.grpc_port}"

    @property
    def http_url(self) -> str:
        return f"http://127.0.0.1:{self.http_port}"

    def start(self) -> CannedServers:
        self._grpc.start()
        self._thread.start()
        asyncio.run_coroutine_threadsafe(self._start_http(), self._loop).result(10)
        return self

    async def _start_http(self) -> None:
        self._runner = web.AppRunner(_rest_app(self._call, self.recorder))
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        self.http_port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]

    def stop(self) -> None:
        self._grpc.stop(None)
        if self._runner is not None:
            asyncio.run_coroutine_threadsafe(self._runner.cleanup(), self._loop).result(10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(5)

    def __enter__(self) -> CannedServers:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()


def refused_port() -> int:
    """A loopback port with nothing listening (bound then released)."""
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])
