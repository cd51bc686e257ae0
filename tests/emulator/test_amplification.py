"""A small request that would cost the emulator a lot is refused from its bytes, in plain words."""

from __future__ import annotations

import json
from typing import Any

import grpc
import httpx
import pytest
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from groundwire.emulator import Emulator
from tests.emulator.support import (
    CHECK,
    CHECK_PATH,
    GROUNDING_CONFIG,
    STREAM_PATH,
    check_request,
    unary_call,
)

CONFIG_FIELD = b"\x0a" + bytes([len(GROUNDING_CONFIG)]) + GROUNDING_CONFIG.encode()
MAX_REQUEST_VALUES = 100_000
"""The most JSON values the emulator reads in one body."""
TOO_MANY_FACTS = (
    "invalid CheckGrounding request: facts has more than 200 facts; at most 200 are allowed"
)


def raw_call(channel: grpc.Channel, raw: bytes) -> grpc.RpcError:
    """Sends CheckGrounding request bytes as they are; the error the emulator answers."""
    call = channel.unary_unary(
        CHECK.grpc_path, request_serializer=bytes, response_deserializer=None
    )
    with pytest.raises(grpc.RpcError) as raised:
        call(raw, timeout=60.0)
    error: grpc.RpcError = raised.value
    return error


def test_a_grpc_request_of_a_million_empty_facts_is_refused_in_the_limits_words(
    channel: grpc.Channel,
) -> None:
    error = raw_call(channel, CONFIG_FIELD + b"\x1a\x00" * 1_000_000)
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert error.details() == TOO_MANY_FACTS
    status = rpc_status.from_call(error)  # type: ignore[arg-type]
    assert status is not None
    bad_request = error_details_pb2.BadRequest()
    assert status.details[0].Unpack(bad_request)
    assert [violation.field for violation in bad_request.field_violations] == ["facts"]
    answered: Any = unary_call(channel, CHECK, check_request())
    assert answered.claims  # and the server goes on


def test_a_grpc_answer_of_one_huge_word_is_refused_by_the_token_limit(
    channel: grpc.Channel,
) -> None:
    word = b"a" * (4 << 20)
    raw = CONFIG_FIELD + b"\x12\x80\x80\x80\x02" + word  # answer_candidate, 4 MiB long
    error = raw_call(channel, raw)
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "answer_candidate has more than 4,096 tokens" in (error.details() or "")


def test_a_rest_body_of_a_million_empty_facts_is_refused_in_the_limits_words(
    emu: Emulator,
) -> None:
    body = b'{"facts": [' + b"{}," * 999_999 + b"{}]}"
    with httpx.Client(base_url=emu.http_url, timeout=60.0) as http:
        response = http.post(CHECK_PATH, content=body, headers={"Content-Type": "application/json"})
        assert response.status_code == 400
        assert response.json()["error"]["message"] == TOO_MANY_FACTS
        assert http.post(CHECK_PATH, json={"answerCandidate": "Hi."}).status_code == 200


def test_a_rest_stream_of_tens_of_thousands_of_requests_is_refused_before_any_is_built(
    emu: Emulator,
) -> None:
    question = {"contents": [{"role": "user", "parts": [{"text": "Is Paris in France?"}]}]}
    body = json.dumps([question] * (MAX_REQUEST_VALUES // 4)).encode()
    with httpx.Client(base_url=emu.http_url, timeout=60.0) as http:
        response = http.post(
            STREAM_PATH, content=body, headers={"Content-Type": "application/json"}
        )
        assert response.status_code == 400
        assert response.json()["error"]["message"] == (
            "invalid StreamGenerateGroundedContent request: request is past the emulator's "
            f"limit of {MAX_REQUEST_VALUES:,} JSON values"
        )
        few = json.dumps([question] * 3).encode()
        answered = http.post(STREAM_PATH, content=few, headers={"Content-Type": "application/json"})
        assert answered.status_code == 200
