"""40 stalled uploads and 20 idle streams beside a normal client: every call of it succeeds.

The emulator runs as `groundwire serve` with its default limits. The hostile side holds
REST uploads that sent their headers and 10 of 1,000 body bytes, and gRPC streams that never
send or never read; meanwhile one client checks grounding over gRPC and REST and asks for
health, a bounded number of times.
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from contextlib import ExitStack
from typing import Any

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from groundwire.contract.apis import method
from tests.reliability.calls import ANSWER, FACTS, bounded, claims_of, client_for
from tests.reliability.conftest import StartEmulator

STALLED_UPLOADS = 40
IDLE_STREAMS = 20
ROUNDS = 10
CALL_TIMEOUT = 10.0
CHECK_PATH = "/v1/projects/p/locations/global/groundingConfigs/default_grounding_config:check"
STREAM = method("discoveryengine", "v1", "StreamGenerateGroundedContent")


def stalled_upload(port: int) -> socket.socket:
    connection = socket.create_connection(("127.0.0.1", port), timeout=CALL_TIMEOUT)
    connection.sendall(
        f"POST {CHECK_PATH} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        'Content-Length: 1000\r\n\r\n{"answerCa'.encode()
    )
    return connection


def idle_requests(index: int, stop: threading.Event) -> Iterator[Any]:
    """Even streams never send; odd ones send requests and never read the answers."""
    if index % 2:
        request: Any = STREAM.request_class(location="projects/p/locations/global")
        request.contents.add(role="user", parts=[{"text": "What is the capital of Japan?"}])
        for _ in range(50):
            yield request
    stop.wait(CALL_TIMEOUT * 6)


def test_stalled_uploads_and_idle_streams_leave_every_normal_call_answered(
    start_emulator: StartEmulator,
) -> None:
    server = start_emulator()
    stop = threading.Event()
    with ExitStack() as hostile:
        hostile.callback(stop.set)
        for _ in range(STALLED_UPLOADS):
            hostile.enter_context(stalled_upload(server.http_port))
        for index in range(IDLE_STREAMS):
            channel = hostile.enter_context(grpc.insecure_channel(server.grpc_address))
            stream = channel.stream_stream(
                STREAM.grpc_path,
                request_serializer=STREAM.request_class.SerializeToString,
                response_deserializer=None,
            )(idle_requests(index, stop), timeout=CALL_TIMEOUT * 6)
            hostile.callback(stream.cancel)
        threading.Event().wait(0.5)  # every hostile connection has reached the server

        grpc_client = hostile.enter_context(
            client_for(
                "grpc", server.grpc_address, server.http_url, timeout=CALL_TIMEOUT, retry=None
            )
        )
        rest_client = hostile.enter_context(
            client_for(
                "rest", server.grpc_address, server.http_url, timeout=CALL_TIMEOUT, retry=None
            )
        )
        health_channel = hostile.enter_context(grpc.insecure_channel(server.grpc_address))
        health = health_pb2_grpc.HealthStub(health_channel)
        answers = []
        for _ in range(ROUNDS):
            for call in (
                lambda: claims_of(grpc_client.check_grounding(ANSWER, FACTS)),
                lambda: claims_of(rest_client.check_grounding(ANSWER, FACTS)),
                lambda: health.Check(health_pb2.HealthCheckRequest(), timeout=CALL_TIMEOUT).status,
            ):
                outcome = bounded(call, CALL_TIMEOUT + 5)
                assert not outcome.hung, "a normal call hung"
                assert outcome.error is None, repr(outcome.error)
                answers.append(outcome.result)
    checks = [answer for answer in answers if isinstance(answer, list)]
    assert len(checks) == 2 * ROUNDS
    assert all(check == checks[0] and check for check in checks)
    statuses = [answer for answer in answers if not isinstance(answer, list)]
    assert statuses == [health_pb2.HealthCheckResponse.SERVING] * ROUNDS
