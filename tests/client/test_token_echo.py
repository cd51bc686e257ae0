"""A server that echoes the client's own token back shows it to no one: not the error, not a span.

The servers here speak TLS on loopback (credentials travel over nothing else) and answer every
call with UNAUTHENTICATED, the token repeated in the message and in an ErrorInfo detail, in the
shapes a pattern cannot know: a scheme in another case, `token T`, or `T` alone.
"""

from __future__ import annotations

import json
import ssl
import threading
from collections.abc import Iterator
from concurrent import futures
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import grpc
import pytest
from google.oauth2.credentials import Credentials
from google.protobuf import any_pb2
from google.rpc import code_pb2, error_details_pb2, status_pb2
from grpc_status import rpc_status

from groundwire import AsyncGroundingClient, GroundingClient
from groundwire.client.interceptors import Interceptor
from groundwire.contract import apis
from groundwire.contract.calls import TransportName
from groundwire.contract.errors import GroundwireError
from tests.transports.tls import Certificate, make_certificate

TOKEN = "opaque-Access-0123456789abcdef"  # no shape the patterns know: only the client does
ECHOES = {
    "lower-case scheme": f"bearer {TOKEN}",
    "upper-case scheme": f"BEARER {TOKEN}",
    "token word": f"token {TOKEN}",
    "bare": f"the credential ({TOKEN}) is not valid",
    "glued": f"credential={TOKEN}; token:{TOKEN}!",
}


def echoed_error(echo: str) -> tuple[str, error_details_pb2.ErrorInfo]:
    """What the server sends: built by hand, since a GroundwireError here would be scrubbed."""
    info = error_details_pb2.ErrorInfo(
        reason="ACCESS_TOKEN_TYPE_UNSUPPORTED", metadata={"received": echo}
    )
    return f"Request had invalid authentication credentials: {echo}", info


@pytest.fixture(scope="module")
def certificate(tmp_path_factory: pytest.TempPathFactory) -> Certificate:
    pytest.importorskip("cryptography")
    return make_certificate(tmp_path_factory.mktemp("tls"))


class Echo:
    """What the servers currently send back."""

    text = ""


@pytest.fixture
def echo() -> Echo:
    return Echo()


@pytest.fixture
def tls_grpc(certificate: Certificate, echo: Echo) -> Iterator[str]:
    def refuse(request: bytes, context: grpc.ServicerContext) -> bytes:
        message, info = echoed_error(echo.text)
        detail = any_pb2.Any()
        detail.Pack(info)
        status = status_pb2.Status(code=code_pb2.UNAUTHENTICATED, message=message, details=[detail])
        context.abort_with_status(rpc_status.to_status(status))
        raise AssertionError("abort_with_status returns only by raising")

    handlers: dict[str, dict[str, grpc.RpcMethodHandler[Any, Any]]] = {}
    for method in apis.all_methods():
        service, name = method.grpc_path[1:].split("/")
        handlers.setdefault(service, {})[name] = grpc.unary_unary_rpc_method_handler(refuse)
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
    for service, methods in handlers.items():
        server.add_generic_rpc_handlers([grpc.method_handlers_generic_handler(service, methods)])
    port = server.add_secure_port(
        "127.0.0.1:0", grpc.ssl_server_credentials([(certificate.key_pem, certificate.pem)])
    )
    server.start()
    yield f"127.0.0.1:{port}"
    server.stop(grace=None)


@pytest.fixture
def tls_rest(certificate: Certificate, echo: Echo) -> Iterator[str]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            pass

        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("content-length", 0)))
            message, info = echoed_error(echo.text)
            body = json.dumps(
                {
                    "error": {
                        "code": 401,
                        "message": message,
                        "status": "UNAUTHENTICATED",
                        "details": [
                            {
                                "@type": "type.googleapis.com/google.rpc.ErrorInfo",
                                "reason": info.reason,
                                "metadata": dict(info.metadata),
                            }
                        ],
                    }
                }
            ).encode()
            self.send_response(401)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(Path(certificate.cert_file), Path(certificate.key_file))
    server.socket = context.wrap_socket(server.socket, server_side=True)
    threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
    ).start()
    yield f"127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def client_arguments(
    transport: TransportName, grpc_target: str, rest_target: str, certificate: Certificate
) -> dict[str, Any]:
    return {
        "project": "p",
        "transport": transport,
        "endpoint": grpc_target,
        "rest_endpoint": rest_target,
        "credentials": Credentials(token=TOKEN),
        "root_certificates": certificate.pem,
        "timeout": 10,
        "retry": None,
    }


def shown(error: GroundwireError) -> str:
    """Everything the caller can read of an error: its text, repr and details."""
    return " | ".join([str(error), repr(error), *(str(detail) for detail in error.details)])


@pytest.mark.parametrize("transport", ["grpc", "rest"])
@pytest.mark.parametrize("echo_text", list(ECHOES.values()), ids=list(ECHOES))
def test_a_sync_client_removes_its_echoed_token_from_the_error(
    certificate: Certificate,
    tls_grpc: str,
    tls_rest: str,
    echo: Echo,
    transport: TransportName,
    echo_text: str,
) -> None:
    echo.text = echo_text
    arguments = client_arguments(transport, tls_grpc, tls_rest, certificate)
    with GroundingClient(**arguments) as client, pytest.raises(GroundwireError) as caught:
        client.check_grounding("a", ["b"])

    assert caught.value.code.name == "UNAUTHENTICATED"
    assert caught.value.details, "the ErrorInfo detail came through"
    assert TOKEN not in shown(caught.value)
    assert "[REDACTED]" in caught.value.message


@pytest.mark.parametrize("transport", ["grpc", "rest"])
async def test_an_async_client_removes_its_echoed_token_from_the_error(
    certificate: Certificate, tls_grpc: str, tls_rest: str, echo: Echo, transport: TransportName
) -> None:
    echo.text = ECHOES["token word"]
    arguments = client_arguments(transport, tls_grpc, tls_rest, certificate)
    async with AsyncGroundingClient(**arguments) as client:
        with pytest.raises(GroundwireError) as caught:
            await client.check_grounding("a", ["b"])

    assert caught.value.details
    assert TOKEN not in shown(caught.value)


@pytest.mark.parametrize("transport", ["grpc", "rest"])
def test_the_span_status_holds_no_echoed_token(
    certificate: Certificate, tls_grpc: str, tls_rest: str, echo: Echo, transport: TransportName
) -> None:
    pytest.importorskip(
        "opentelemetry.sdk", reason="groundwire[otel] and the SDK are not installed"
    )
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    from groundwire.client.otel import OpenTelemetryInterceptor

    echo.text = ECHOES["upper-case scheme"]
    spans = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(spans))
    interceptors: list[Interceptor] = [OpenTelemetryInterceptor(tracer_provider=provider)]
    arguments = client_arguments(transport, tls_grpc, tls_rest, certificate)
    with (
        GroundingClient(**arguments, interceptors=interceptors) as client,
        pytest.raises(GroundwireError),
    ):
        client.check_grounding("a", ["b"])
    provider.shutdown()

    (span,) = spans.get_finished_spans()
    assert span.status.description
    assert TOKEN not in span.status.description
    assert TOKEN not in json.dumps(dict(span.attributes or {}), default=str)
