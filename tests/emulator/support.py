"""Requests, paths and peers shared by the emulator's tests."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from typing import Any

import grpc
from google.protobuf.message import Message

from groundwire.contract.apis import Method, method

PROJECT_LOCATION = "projects/p/locations/global"
GROUNDING_CONFIG = f"{PROJECT_LOCATION}/groundingConfigs/default_grounding_config"
CHECK_PATH = f"/v1/{GROUNDING_CONFIG}:check"
GENERATE_PATH = f"/v1/{PROJECT_LOCATION}:generateGroundedContent"
STREAM_PATH = f"/v1/{PROJECT_LOCATION}:streamGenerateGroundedContent"
CORROBORATE_PATH = f"/v1/{PROJECT_LOCATION}:corroborateContent"

CHECK = method("discoveryengine", "v1", "CheckGrounding")
GENERATE = method("discoveryengine", "v1", "GenerateGroundedContent")
STREAM = method("discoveryengine", "v1", "StreamGenerateGroundedContent")
CORROBORATE = method("aiplatform", "v1", "CorroborateContent")

PARIS = "Paris is the capital and largest city of France."
QUESTION = "What is the capital of France?"
CHECK_BODY = {"answerCandidate": "Paris is the capital of France.", "facts": [{"factText": PARIS}]}
"""A CheckGroundingRequest body as proto3 JSON, for CHECK_PATH."""


def check_request(
    answer: str = "Paris is the capital of France.",
    facts: tuple[str, ...] = (PARIS,),
    **fields: Any,
) -> Message:
    """A v1 CheckGroundingRequest for the default grounding config."""
    fields.setdefault("grounding_config", GROUNDING_CONFIG)
    return CHECK.request_class(
        answer_candidate=answer, facts=[{"fact_text": text} for text in facts], **fields
    )


def generate_json(question: str = QUESTION, facts: tuple[str, ...] = (PARIS,)) -> dict[str, Any]:
    """A GenerateGroundedContentRequest as proto3 JSON, grounded on inline facts."""
    return {
        "contents": [{"role": "user", "parts": [{"text": question}]}],
        "groundingSpec": {
            "groundingSources": [
                {"inlineSource": {"groundingFacts": [{"factText": text} for text in facts]}}
            ]
        },
    }


def unary_call(
    channel: grpc.Channel, rpc: Method, request: Message, timeout: float = 5.0
) -> Message:
    """Calls a unary method through a plain channel with groundwire's stubs."""
    call = channel.unary_unary(
        rpc.grpc_path,
        request_serializer=_serialize,
        response_deserializer=rpc.response_class.FromString,
    )
    response: Message = call(request, timeout=timeout)
    return response


def _serialize(request: Message) -> bytes:
    return request.SerializeToString()


def run_python(script: str, *args: str, timeout: float = 100.0) -> str:
    """Runs `script` in a fresh interpreter (the official clients' own process); its stdout.

    The timeout only guards against a hang: importing Google's clients in a fresh interpreter
    took 51 s on two cores at a load average of 20.
    """
    result = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(script), *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    return result.stdout
