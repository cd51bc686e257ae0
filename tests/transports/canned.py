"""Canned requests, responses and failures, shared by every test server and every test.

A CheckGrounding request's `answer_candidate` names the scenario the server plays; a streaming
request's text is echoed back, one response per request.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator

from google.protobuf import any_pb2
from google.protobuf.message import Message
from google.rpc import code_pb2, error_details_pb2, status_pb2
from groundwire_protos.google.cloud.discoveryengine.v1.check_grounding_pb2 import (
    CheckGroundingRequest,
    CheckGroundingResponse,
)
from groundwire_protos.google.cloud.discoveryengine.v1.grounded_generation_pb2 import (
    GenerateGroundedContentRequest,
    GenerateGroundedContentResponse,
)

from groundwire.contract import apis
from tests.support.typed import typed

CHECK = apis.method("discoveryengine", "v1", "CheckGrounding")
STREAM = apis.method("discoveryengine", "v1", "StreamGenerateGroundedContent")

CONFIG = "projects/p/locations/global/groundingConfigs/default_grounding_config"
LOCATION = "projects/p/locations/global"
TEXT = '東京タワーは333メートル 🗼👩‍👩‍👧 «ok» "quoted" [brackets] {braces} \\ back'

METADATA = (
    ("x-goog-request-params", f"grounding_config={CONFIG}"),
    ("x-goog-api-client", "gl-python/3.11 groundwire/0.1.0"),
    ("x-goog-user-project", "quota-project"),
)

OK = "ok"
INVALID = "invalid"
UNAVAILABLE = "unavailable"
SLOW = "slow"
SLOW_SECONDS = 1.0
# Sent by a reachable server: the words must not make the client think it never connected.
UNAVAILABLE_MESSAGE = "failed to connect to backend; try again"
INVALID_MESSAGE = "facts[0].fact_text must not be empty"
VIOLATION = error_details_pb2.BadRequest.FieldViolation(
    field="facts[0].fact_text", description="must not be empty — 空"
)


def check_request(answer: str = OK) -> CheckGroundingRequest:
    """A CheckGrounding request playing scenario `answer`."""
    request = typed(CheckGroundingRequest, CHECK.request_class())
    request.grounding_config = CONFIG
    request.answer_candidate = answer
    request.facts.add(fact_text=TEXT)
    return request


def check_response() -> CheckGroundingResponse:
    """The response to every successful CheckGrounding call: CJK and emoji included."""
    response = typed(CheckGroundingResponse, CHECK.response_class())
    response.support_score = 0.75
    response.cited_chunks.add(chunk_text=TEXT, source="0", index=0)
    response.claims.add(
        start_pos=0,
        end_pos=12,
        claim_text=TEXT,
        citation_indices=[0],
        grounding_check_required=True,
    )
    return response


def stream_request(text: str) -> GenerateGroundedContentRequest:
    """A streaming request whose text the server echoes."""
    request = typed(GenerateGroundedContentRequest, STREAM.request_class())
    request.location = LOCATION
    request.contents.add(role="user").parts.add(text=text)
    return request


def stream_response(index: int, request: Message) -> GenerateGroundedContentResponse:
    """The answer to the `index`-th request of a stream: its text, numbered."""
    text = typed(GenerateGroundedContentRequest, request).contents[-1].parts[-1].text
    response = typed(GenerateGroundedContentResponse, STREAM.response_class())
    candidate = response.candidates.add(index=0)
    candidate.content.role = "model"
    candidate.content.parts.add(text=f"{index}: {text}")
    return response


def streamed_text(response: Message) -> str:
    """The text of one streamed response: its first candidate's first part."""
    return typed(GenerateGroundedContentResponse, response).candidates[0].content.parts[0].text


def stream_responses(requests: Iterable[Message]) -> Iterator[GenerateGroundedContentResponse]:
    """One response per request, yielded as soon as that request has arrived."""
    for index, request in enumerate(requests):
        yield stream_response(index, request)


def invalid_status() -> status_pb2.Status:
    """INVALID_ARGUMENT with a google.rpc.BadRequest detail, as gRPC servers send it."""
    detail = any_pb2.Any()
    detail.Pack(error_details_pb2.BadRequest(field_violations=[VIOLATION]))
    return status_pb2.Status(
        code=code_pb2.INVALID_ARGUMENT, message=INVALID_MESSAGE, details=[detail]
    )


def invalid_json_error() -> bytes:
    """The same failure as Google's REST surface writes it."""
    return json.dumps(
        {
            "error": {
                "code": 400,
                "message": INVALID_MESSAGE,
                "status": "INVALID_ARGUMENT",
                "details": [
                    {
                        "@type": "type.googleapis.com/google.rpc.BadRequest",
                        "fieldViolations": [
                            {"field": VIOLATION.field, "description": VIOLATION.description}
                        ],
                    }
                ],
            }
        },
        ensure_ascii=False,
    ).encode()


def unavailable_json_error() -> bytes:
    """UNAVAILABLE from a reachable REST server."""
    return json.dumps(
        {"error": {"code": 503, "message": UNAVAILABLE_MESSAGE, "status": "UNAVAILABLE"}}
    ).encode()
