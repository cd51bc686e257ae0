"""The gRPC server: rich error details, health, reflection, big requests, no dead server."""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator
from typing import Any

import grpc
import httpx
import pytest
from google.protobuf import descriptor_pool
from google.rpc.error_details_pb2 import BadRequest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha.proto_reflection_descriptor_database import (
    ProtoReflectionDescriptorDatabase,
)
from grpc_status import rpc_status

from groundwire.emulator import Emulator, service
from groundwire.emulator.grpc_server import service_names
from tests.emulator.support import (
    CHECK,
    CHECK_BODY,
    CHECK_PATH,
    GROUNDING_CONFIG,
    PROJECT_LOCATION,
    QUESTION,
    STREAM,
    check_request,
    unary_call,
)

HANG_BOUND = 10.0
"""Generous: only a hang takes this long."""


def rpc_error(channel: grpc.Channel, request: Any) -> grpc.RpcError:
    with pytest.raises(grpc.RpcError) as raised:
        unary_call(channel, CHECK, request)
    return raised.value


def violated_fields(error: grpc.RpcError) -> list[str]:
    status = rpc_status.from_call(error)  # type: ignore[arg-type]
    assert status is not None, "grpc-status-details-bin is missing"
    (packed,) = status.details
    detail = BadRequest()
    assert packed.Unpack(detail)
    return [violation.field for violation in detail.field_violations]


def test_check_grounding_over_grpc(channel: grpc.Channel) -> None:
    response: Any = unary_call(channel, CHECK, check_request())
    assert response.claims[0].citation_indices == [0]


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"facts": ("fact",) * 201}, "facts"),
        ({"facts": ("x" * 10_001,)}, "facts[0].fact_text"),
        ({"grounding_spec": {"citation_threshold": 1.5}}, "grounding_spec.citation_threshold"),
        ({"grounding_config": "projects/p/groundingConfigs/g"}, "grounding_config"),
    ],
)
def test_invalid_requests_carry_bad_request_details(
    channel: grpc.Channel, fields: dict[str, Any], field: str
) -> None:
    error = rpc_error(channel, check_request(**fields))
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert violated_fields(error) == [field]


def test_an_unknown_grounding_config_is_not_found(channel: grpc.Channel) -> None:
    other = GROUNDING_CONFIG.replace("default_grounding_config", "mine")
    assert rpc_error(channel, check_request(grounding_config=other)).code() == (
        grpc.StatusCode.NOT_FOUND
    )


def test_bytes_that_are_not_the_request_message_are_invalid_argument(
    channel: grpc.Channel,
) -> None:
    call = channel.unary_unary(
        CHECK.grpc_path, request_serializer=None, response_deserializer=None
    )  # no serializers: the test sends raw bytes
    with pytest.raises(grpc.RpcError) as raised:
        call(b"\xff\xff\xff", timeout=5)
    assert raised.value.code() == grpc.StatusCode.INVALID_ARGUMENT


def test_the_largest_legal_request_fits(channel: grpc.Channel) -> None:
    facts = tuple("東京" * 5_000 for _ in range(200))  # 6 MB, above gRPC's 4 MiB default
    response: Any = unary_call(channel, CHECK, check_request("Tokyo is big.", facts))
    assert len(response.claims) == 1


def test_the_bidi_stream_answers_each_request_in_pieces(channel: grpc.Channel) -> None:
    request: Any = STREAM.request_class(location=PROJECT_LOCATION)
    request.contents.add(role="user", parts=[{"text": QUESTION}])
    call = channel.stream_stream(
        STREAM.grpc_path,
        request_serializer=STREAM.request_class.SerializeToString,
        response_deserializer=STREAM.response_class.FromString,
    )
    responses: list[Any] = list(call(iter([request, request]), timeout=5))
    finished = [r for r in responses if r.candidates[0].HasField("grounding_score")]
    assert len(finished) == 2
    assert len(responses) > 2


def test_a_bad_request_in_a_stream_ends_it_with_its_status(channel: grpc.Channel) -> None:
    good: Any = STREAM.request_class(location=PROJECT_LOCATION)
    good.contents.add(role="user", parts=[{"text": QUESTION}])
    bad: Any = STREAM.request_class(location="nowhere")
    bad.contents.add(role="user", parts=[{"text": QUESTION}])
    call = channel.stream_stream(
        STREAM.grpc_path,
        request_serializer=STREAM.request_class.SerializeToString,
        response_deserializer=STREAM.response_class.FromString,
    )
    responses = iter(call(iter([good, bad]), timeout=5))
    assert next(responses, None) is not None, "the first request was answered"
    with pytest.raises(grpc.RpcError) as raised:
        list(responses)
    assert violated_fields(raised.value) == ["location"]


def test_health_reports_serving(channel: grpc.Channel) -> None:
    health = health_pb2_grpc.HealthStub(channel)
    for name in ("", "google.cloud.discoveryengine.v1.GroundedGenerationService"):
        reply = health.Check(health_pb2.HealthCheckRequest(service=name), timeout=5)
        assert reply.status == health_pb2.HealthCheckResponse.SERVING


def test_reflection_lists_and_describes_the_services(channel: grpc.Channel) -> None:
    database = ProtoReflectionDescriptorDatabase(channel)
    listed = set(database.get_services())
    assert set(service_names()) <= listed
    assert "grpc.health.v1.Health" in listed
    pool = descriptor_pool.DescriptorPool(database)
    found = pool.FindServiceByName("google.cloud.aiplatform.v1.VertexRagService")
    assert [m.name for m in found.methods] == ["CorroborateContent"]


def test_an_emulator_bug_is_internal_and_the_servers_keep_serving(
    emu: Emulator, channel: grpc.Channel, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*_: object) -> None:
        raise RuntimeError("bug")

    with monkeypatch.context() as patched:
        patched.setattr(service, "answer_unary", broken)
        assert rpc_error(channel, check_request()).code() == grpc.StatusCode.INTERNAL
        response = httpx.post(emu.http_url + CHECK_PATH, json={}, timeout=5)
        assert response.status_code == 500
        assert response.json()["error"]["status"] == "INTERNAL"
    assert unary_call(channel, CHECK, check_request()).claims  # type: ignore[attr-defined]
    assert httpx.post(emu.http_url + CHECK_PATH, json=CHECK_BODY, timeout=5).status_code == 200


def test_a_client_leaving_a_stream_is_no_emulator_bug(
    emu: Emulator,
    channel: grpc.Channel,
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    activity = emu.activity
    assert activity is not None
    handler_done = threading.Event()
    handle_stream = service.handle_stream

    def observed(*args: Any) -> Iterator[Any]:
        try:
            yield from handle_stream(*args)
        finally:
            handler_done.set()

    monkeypatch.setattr(service, "handle_stream", observed)
    request: Any = STREAM.request_class(location=PROJECT_LOCATION)
    request.contents.add(role="user", parts=[{"text": QUESTION}])
    client_left = threading.Event()

    def requests() -> Iterator[Any]:
        yield request
        client_left.wait(timeout=5)  # the server is left waiting for a second request

    call = channel.stream_stream(
        STREAM.grpc_path,
        request_serializer=STREAM.request_class.SerializeToString,
        response_deserializer=STREAM.response_class.FromString,
    )
    responses = call(requests(), timeout=5)
    for response in responses:
        if response.candidates[0].HasField("grounding_score"):
            break
    # The server has answered the first request and waits for the second.
    assert activity.wait_until(lambda now: now.streams_reading == 1, timeout=HANG_BOUND)
    responses.cancel()
    client_left.set()
    assert handler_done.wait(timeout=3)
    # The handler's own except clause runs just after, before the stream is counted closed.
    assert activity.wait_until(lambda now: now.streams_open == 0, timeout=HANG_BOUND)
    errors = [
        r for r in caplog.records if r.name.startswith("groundwire") and r.levelno >= logging.ERROR
    ]
    assert [r.getMessage() for r in errors] == []
