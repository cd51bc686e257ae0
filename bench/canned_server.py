"""A gRPC + HTTP server answering every CheckGrounding with one canned response, for benchmarks.

It runs in its own process (`python -m bench.canned_server ANSWER`, ANSWER a shape of
`bench.contenders.SHAPES` or `long`, one process per canned answer), so the clients measured
never share an interpreter with it.
It does no engine work: request bytes are read and dropped, and the response bytes were
encoded once at start-up, so what is measured is the client. Both servers share one event
loop; it prints `grpc=HOST:PORT http=http://HOST:PORT` once ready and stops on SIGTERM,
SIGINT or when its standard input closes.
"""

from __future__ import annotations

import asyncio
import signal
import sys

import grpc
from aiohttp import web

from bench import contenders
from groundwire.contract import apis
from groundwire.emulator.rest_transcoding import response_to_json

HOST = "127.0.0.1"


def _grpc_handler(body: bytes, method: apis.Method) -> grpc.GenericRpcHandler[bytes, bytes]:
    async def answer(request: bytes, context: grpc.aio.ServicerContext[bytes, bytes]) -> bytes:
        return body

    # No (de)serializers: the request stays raw bytes and the response is sent as it is.
    service, name = method.grpc_path.strip("/").split("/")
    return grpc.method_handlers_generic_handler(
        service, {name: grpc.unary_unary_rpc_method_handler(answer)}
    )


def _http_app(body: bytes) -> web.Application:
    async def answer(request: web.Request) -> web.Response:
        await request.read()
        return web.Response(body=body, content_type="application/json")

    app = web.Application()
    app.router.add_post("/{tail:.*}", answer)
    return app


async def _wait_for_stop() -> None:
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop.set)
    await loop.connect_read_pipe(lambda: _EofProtocol(stop), sys.stdin)
    await stop.wait()


class _EofProtocol(asyncio.Protocol):
    """Sets `stop` when the parent closes our standard input (or dies)."""

    def __init__(self, stop: asyncio.Event) -> None:
        self._stop = stop

    def eof_received(self) -> bool | None:
        self._stop.set()
        return None

    def connection_lost(self, exc: Exception | None) -> None:
        self._stop.set()


async def serve(answer: str) -> None:
    """Serves the canned `answer` until stopped; prints both addresses once both listen."""
    response = contenders.canned(answer)
    method = apis.method("discoveryengine", "v1", "CheckGrounding")
    grpc_server = grpc.aio.server(options=[("grpc.so_reuseport", 0)])
    grpc_server.add_generic_rpc_handlers((_grpc_handler(response.SerializeToString(), method),))
    grpc_port = grpc_server.add_insecure_port(f"{HOST}:0")
    await grpc_server.start()
    runner = web.AppRunner(_http_app(response_to_json(response)), access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, HOST, 0)
    await site.start()
    http_port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    print(f"grpc={HOST}:{grpc_port} http=http://{HOST}:{http_port}", flush=True)
    try:
        await _wait_for_stop()
    finally:
        await grpc_server.stop(None)
        await runner.cleanup()


if __name__ == "__main__":
    asyncio.run(serve(sys.argv[1] if len(sys.argv) > 1 else "typical"))
