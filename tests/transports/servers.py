"""Real servers on loopback playing the canned scenarios: gRPC (sync and grpc.aio) and HTTP/1.1."""

from __future__ import annotations

import asyncio
import json
import socket
import threading
import time
from collections.abc import AsyncIterator, Iterator
from concurrent import futures
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import grpc
import grpc.aio
from google.protobuf.message import Message
from groundwire_protos.google.cloud.discoveryengine.v1.check_grounding_pb2 import (
    CheckGroundingRequest,
)
from groundwire_protos.google.cloud.discoveryengine.v1.grounded_generation_pb2 import (
    GenerateGroundedContentRequest,
)
from grpc_status import rpc_status

from groundwire.contract import apis
from groundwire.contract.transcoding import decode_message
from groundwire.emulator.rest_transcoding import bind_path, match_route, response_to_json
from tests.support.typed import typed
from tests.transports import canned


@dataclass
class Seen:
    """What a server received: one entry per call."""

    metadata: list[dict[str, str]] = field(default_factory=list)
    paths: list[str] = field(default_factory=list)
    bodies: list[bytes] = field(default_factory=list)
    peers: list[object] = field(default_factory=list)

    @property
    def calls(self) -> int:
        return len(self.metadata)


def _as_headers(metadata: Any) -> dict[str, str]:
    """gRPC metadata as headers: a name sent twice gets its values joined, as in HTTP."""
    headers: dict[str, str] = {}
    for key, value in metadata or ():
        headers[key] = f"{headers[key]}, {value}" if key in headers else value
    return headers


def _service_and_name(method: apis.Method) -> tuple[str, str]:
    service, name = method.grpc_path[1:].split("/")
    return service, name


# ---- gRPC, blocking ----------------------------------------------------------------------


def _grpc_handlers(seen: Seen) -> grpc.GenericRpcHandler[Any, Any]:
    def check(request: Message, context: grpc.ServicerContext) -> Message:
        seen.metadata.append(_as_headers(context.invocation_metadata()))
        answer = typed(CheckGroundingRequest, request).answer_candidate
        if answer == canned.INVALID:
            context.abort_with_status(rpc_status.to_status(canned.invalid_status()))
        if answer == canned.UNAVAILABLE:
            context.abort(grpc.StatusCode.UNAVAILABLE, canned.UNAVAILABLE_MESSAGE)
        if answer == canned.SLOW:
            time.sleep(canned.SLOW_SECONDS)
        return canned.check_response()

    def stream(requests: Iterator[Message], context: grpc.ServicerContext) -> Iterator[Message]:
        seen.metadata.append(_as_headers(context.invocation_metadata()))
        yield from canned.stream_responses(requests)

    return _generic_handler(check, stream)


def _generic_handler(check: Any, stream: Any) -> grpc.GenericRpcHandler[Any, Any]:
    service, check_name = _service_and_name(canned.CHECK)
    _, stream_name = _service_and_name(canned.STREAM)
    return grpc.method_handlers_generic_handler(
        service,
        {
            check_name: grpc.unary_unary_rpc_method_handler(
                check,
                request_deserializer=canned.CHECK.request_class.FromString,
                response_serializer=canned.CHECK.response_class.SerializeToString,
            ),
            stream_name: grpc.stream_stream_rpc_method_handler(
                stream,
                request_deserializer=canned.STREAM.request_class.FromString,
                response_serializer=canned.STREAM.response_class.SerializeToString,
            ),
        },
    )


@dataclass
class GrpcServer:
    """A running gRPC server and what it has seen."""

    server: Any
    port: int
    seen: Seen

    @property
    def target(self) -> str:
        return f"127.0.0.1:{self.port}"


def start_grpc_server(port: int = 0) -> GrpcServer:
    """A blocking grpc.server on 127.0.0.1 (`port` 0: any free port)."""
    seen = Seen()
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=8))
    server.add_generic_rpc_handlers([_grpc_handlers(seen)])
    bound = server.add_insecure_port(f"127.0.0.1:{port}")
    server.start()
    return GrpcServer(server, bound, seen)


# ---- gRPC, asyncio -----------------------------------------------------------------------


def _aio_handlers(seen: Seen) -> grpc.GenericRpcHandler[Any, Any]:
    async def check(request: Message, context: grpc.aio.ServicerContext[Any, Any]) -> Message:
        seen.metadata.append(_as_headers(context.invocation_metadata()))
        answer = typed(CheckGroundingRequest, request).answer_candidate
        if answer == canned.INVALID:
            status = rpc_status.to_status(canned.invalid_status())
            # grpc.aio has abort_with_status, as grpc does; grpc-stubs leaves it out.
            await context.abort_with_status(status)  # type: ignore[attr-defined]
        if answer == canned.UNAVAILABLE:
            await context.abort(grpc.StatusCode.UNAVAILABLE, canned.UNAVAILABLE_MESSAGE)
        if answer == canned.SLOW:
            await asyncio.sleep(canned.SLOW_SECONDS)
        return canned.check_response()

    async def stream(
        requests: AsyncIterator[Message], context: grpc.aio.ServicerContext[Any, Any]
    ) -> AsyncIterator[Message]:
        seen.metadata.append(_as_headers(context.invocation_metadata()))
        index = 0
        async for request in requests:
            yield canned.stream_response(index, request)
            index += 1

    return _generic_handler(check, stream)


async def start_aio_grpc_server() -> GrpcServer:
    """A grpc.aio server on 127.0.0.1, any free port."""
    seen = Seen()
    server = grpc.aio.server()
    server.add_generic_rpc_handlers([_aio_handlers(seen)])
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    return GrpcServer(server, port, seen)


# ---- HTTP/1.1 (the REST surface) ---------------------------------------------------------

HTML_502 = (
    b"<!DOCTYPE html><html><head><title>502 Bad Gateway</title></head><body>"
    b"<h1>Bad Gateway</h1><p>The proxy could not reach the upstream server.</p>"
    b"</body></html>"
)
# REST-only scenarios, chosen by answer_candidate like the canned ones.
HTML = "html-502"
GARBAGE = "garbage"
TRUNCATED = "truncated-json"
ARRAY = "json-array"
DROP = "drop-connection"
CUT = "cut-body"
# Streaming scenarios, chosen by the first request's text.
STREAM_ERROR = "error-mid-stream"
STREAM_TRUNCATED = "truncated-stream"
CHUNK_BYTES = 7  # splits the multi-byte characters of canned.TEXT across chunks
CHUNK_PAUSE = 0.001


class RestServer(ThreadingHTTPServer):
    """A threading HTTP/1.1 server with keep-alive, serving the canned REST scenarios.

    When `gate` is set, a stream pauses after its first element until the test sets the
    event; `gate_passed` then tells whether it was set in time.
    """

    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _RestHandler)
        self.seen = Seen()
        self.gate: threading.Event | None = None
        self.gate_passed: bool | None = None

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that gave up (timeout, closed stream) is part of the tests: stay quiet."""

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


class _RestHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: RestServer

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("content-length", "0")))
        path = self.path.partition("?")[0]
        seen = self.server.seen
        seen.metadata.append({k.lower(): v for k, v in self.headers.items()})
        seen.paths.append(self.path)
        seen.bodies.append(body)
        seen.peers.append(self.client_address)
        route = match_route(apis.all_methods(), "POST", path)
        if route is None:
            self._send(
                404, b'{"error": {"code": 404, "message": "no route", "status": "NOT_FOUND"}}'
            )
        elif route.method.server_streaming:
            self._stream(route.method, route.bindings, body)
        else:
            self._check(route.bindings, body)

    def _check(self, bindings: dict[str, str], body: bytes) -> None:
        request = decode_message(body, canned.CHECK.request_class, ignore_unknown_fields=False)
        bind_path(request, bindings)
        answer = typed(CheckGroundingRequest, request).answer_candidate
        good = response_to_json(canned.check_response())
        if answer == canned.INVALID:
            self._send(400, canned.invalid_json_error())
        elif answer == canned.UNAVAILABLE:
            self._send(503, canned.unavailable_json_error())
        elif answer == HTML:
            self._send(502, HTML_502, "text/html; charset=utf-8")
        elif answer == GARBAGE:
            self._send(200, b"\x00\xffthis is not JSON at all")
        elif answer == TRUNCATED:
            self._send(200, good[: len(good) // 2])
        elif answer == ARRAY:
            self._send(200, b"[" + good + b"]")
        elif answer == DROP:
            self._drop()
        elif answer == CUT:
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(good)))
            self.end_headers()
            self.wfile.write(good[:20])
            self._drop()
        else:
            if answer == canned.SLOW:
                time.sleep(canned.SLOW_SECONDS)
            self._send(200, good)

    def _stream(self, method: apis.Method, bindings: dict[str, str], body: bytes) -> None:
        requests = [
            decode_message(item, method.request_class, ignore_unknown_fields=False)
            for item in json.loads(body)
        ]
        for request in requests:
            bind_path(request, bindings)
        elements = [response_to_json(r) for r in canned.stream_responses(requests)]
        first_request = typed(GenerateGroundedContentRequest, requests[0])
        first_text = first_request.contents[-1].parts[-1].text
        if first_text == STREAM_ERROR:
            elements[1:] = [canned.unavailable_json_error()]
        pieces = [b"[" + elements[0]] + [b"," + element for element in elements[1:]]
        pieces.append(b"]")
        if first_text == STREAM_TRUNCATED:
            pieces[-1] = b","
        self.send_response(200)
        self.send_header("content-type", "application/json; charset=utf-8")
        self.send_header("transfer-encoding", "chunked")
        self.end_headers()
        for index, piece in enumerate(pieces):
            if index == 1 and self.server.gate is not None:
                self.server.gate_passed = self.server.gate.wait(timeout=3)
            for start in range(0, len(piece), CHUNK_BYTES):
                self._chunk(piece[start : start + CHUNK_BYTES])
                time.sleep(CHUNK_PAUSE)
        self.wfile.write(b"0\r\n\r\n")

    def _chunk(self, data: bytes) -> None:
        self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        self.wfile.flush()

    def _send(
        self, status: int, body: bytes, content_type: str = "application/json; charset=utf-8"
    ) -> None:
        self.send_response(status)
        self.send_header("content-type", content_type)
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _drop(self) -> None:
        self.wfile.flush()
        self.connection.shutdown(socket.SHUT_RDWR)
        self.close_connection = True


def start_rest_server() -> RestServer:
    """A RestServer serving from a background thread."""
    server = RestServer()
    threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
    ).start()
    return server
