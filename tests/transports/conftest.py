"""Fixtures: real servers on loopback, and a port where nothing listens."""

from __future__ import annotations

import socket
from collections.abc import AsyncIterator, Iterator

import pytest

from tests.transports.kinds import KINDS, Transports
from tests.transports.servers import (
    GrpcServer,
    RestServer,
    start_aio_grpc_server,
    start_grpc_server,
    start_rest_server,
)
from tests.transports.tls import Certificate, make_certificate, start_tls_rest_server
from tests.transports.tokens import TokenServer, start_token_server


@pytest.fixture(params=KINDS)
def kinds(request: pytest.FixtureRequest) -> Iterator[Transports]:
    """Transports of each kind in turn: blocking, then asyncio, closed after the test."""
    opened = Transports(request.param)
    yield opened
    opened.close()


@pytest.fixture
def grpc_server() -> Iterator[GrpcServer]:
    running = start_grpc_server()
    yield running
    running.server.stop(grace=None)


@pytest.fixture
async def aio_grpc_server() -> AsyncIterator[GrpcServer]:
    running = await start_aio_grpc_server()
    yield running
    await running.server.stop(grace=None)


@pytest.fixture
def rest_server() -> Iterator[RestServer]:
    running = start_rest_server()
    yield running
    running.shutdown()
    running.server_close()


@pytest.fixture
def refused_port() -> Iterator[int]:
    """A port bound but not listening: every connection to it is refused.

    No one else can take it while the test runs, except a gRPC server the test starts on it
    later (SO_REUSEPORT, which gRPC servers use too).
    """
    reserved = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    reserved.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    reserved.bind(("127.0.0.1", 0))
    yield reserved.getsockname()[1]
    reserved.close()


@pytest.fixture(scope="session")
def certificate(tmp_path_factory: pytest.TempPathFactory) -> Certificate:
    """A self-signed certificate for 127.0.0.1 and tls.HOST_NAME (needs `cryptography`)."""
    pytest.importorskip("cryptography")
    return make_certificate(tmp_path_factory.mktemp("tls"))


@pytest.fixture
def token_server() -> Iterator[TokenServer]:
    server = start_token_server()
    yield server
    server.shutdown()
    server.server_close()


@pytest.fixture
def tls_server(certificate: Certificate) -> Iterator[RestServer]:
    """A RestServer speaking TLS with `certificate` (trusted by `certificate.client_context()`)."""
    server = start_tls_rest_server(certificate)
    yield server
    server.shutdown()
    server.server_close()
