"""Fuzzing the emulator's REST gateway over HTTP: any body gets a 2xx or 4xx, never a 5xx.

Bodies are drawn from the request messages' own descriptors (right names, values of any type,
nested to a few levels) mixed with arbitrary JSON and bytes, and POSTed to the real paths of
every method. After each run the server must still answer a well-formed request.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from google.protobuf.descriptor import Descriptor, FieldDescriptor
from groundwire_protos.google.cloud.discoveryengine.v1.check_grounding_pb2 import (
    CheckGroundingRequest,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from groundwire.contract import apis
from groundwire.contract.transcoding import encode_request
from tests.reliability.calls import ANSWER, FACTS
from tests.reliability.processes import EmulatorProcess
from tests.support.typed import descriptor_of

PATHS = {
    (
        "discoveryengine",
        "v1",
        "CheckGrounding",
    ): "/v1/projects/p/locations/global/groundingConfigs/default_grounding_config:check",
    (
        "discoveryengine",
        "v1alpha",
        "CheckGrounding",
    ): "/v1alpha/projects/p/locations/global/groundingConfigs/default_grounding_config:check",
    (
        "discoveryengine",
        "v1",
        "GenerateGroundedContent",
    ): "/v1/projects/p/locations/global:generateGroundedContent",
    (
        "discoveryengine",
        "v1",
        "StreamGenerateGroundedContent",
    ): "/v1/projects/p/locations/global:streamGenerateGroundedContent",
    (
        "aiplatform",
        "v1",
        "CorroborateContent",
    ): "/v1/projects/p/locations/us-central1:corroborateContent",
}
FUZZ = settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=30),
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=10), children, max_size=3)
    ),
    max_leaves=10,
)
_SCALARS = {
    FieldDescriptor.CPPTYPE_STRING: st.text(max_size=60),
    FieldDescriptor.CPPTYPE_BOOL: st.booleans(),
    FieldDescriptor.CPPTYPE_DOUBLE: st.floats(),
    FieldDescriptor.CPPTYPE_FLOAT: st.floats(),
    FieldDescriptor.CPPTYPE_INT32: st.integers(-(2**31), 2**31 - 1),
    FieldDescriptor.CPPTYPE_INT64: st.integers(-(2**63), 2**63 - 1),
    FieldDescriptor.CPPTYPE_UINT32: st.integers(0, 2**32 - 1),
    FieldDescriptor.CPPTYPE_UINT64: st.integers(0, 2**64 - 1),
    FieldDescriptor.CPPTYPE_ENUM: st.integers(0, 3),
}


def shaped_like(
    message: Descriptor, sloppy: bool, depth: int = 3
) -> st.SearchStrategy[dict[str, Any]]:
    """JSON objects with the message's field names; `sloppy` ones may hold any JSON value."""
    return st.fixed_dictionaries(
        {},
        optional={field.json_name: _field_values(field, sloppy, depth) for field in message.fields},
    )


def _field_values(field: FieldDescriptor, sloppy: bool, depth: int) -> st.SearchStrategy[Any]:
    if field.message_type is not None and field.message_type.GetOptions().map_entry:
        right: st.SearchStrategy[Any] = st.dictionaries(
            st.text(max_size=10), st.text(max_size=20), max_size=3
        )
    else:
        single = (
            _SCALARS.get(field.cpp_type, json_values)
            if field.message_type is None
            else shaped_like(field.message_type, sloppy, depth - 1)
            if depth > 0
            else st.just({})
        )
        right = st.lists(single, max_size=3) if field.is_repeated else single
    return st.one_of(right, right, right, json_values) if sloppy else right


def bodies_for(method: apis.Method) -> st.SearchStrategy[bytes]:
    """Well-typed requests, sloppy ones, arbitrary JSON and arbitrary bytes."""
    shaped = st.one_of(
        *(shaped_like(descriptor_of(method.request_class), sloppy) for sloppy in (False, True))
    )
    if method.client_streaming:
        shaped = st.lists(shaped, max_size=3)
    return (
        shaped.map(lambda value: json.dumps(value).encode())
        | json_values.map(lambda value: json.dumps(value).encode())
        | st.binary(max_size=200)
    )


@pytest.fixture(scope="module")
def http(plain_emulator: EmulatorProcess) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=plain_emulator.http_url, timeout=10.0) as client:
        yield client


def _still_answers(http: httpx.Client) -> None:
    method = apis.method("discoveryengine", "v1", "CheckGrounding")
    request = CheckGroundingRequest(
        grounding_config=PATHS[("discoveryengine", "v1", "CheckGrounding")]
        .split(":")[0]
        .removeprefix("/v1/"),
        answer_candidate=ANSWER,
    )
    for text, attributes in FACTS:
        request.facts.add(fact_text=text, attributes=attributes)
    encoded = encode_request(method, request)
    reply = http.post(
        encoded.path, content=encoded.body, headers={"content-type": "application/json"}
    )
    assert reply.status_code == 200, reply.text
    assert reply.json()["claims"]


@pytest.mark.parametrize("key", PATHS, ids=lambda key: f"{key[1]}-{key[2]}")
def test_any_body_posted_to_a_method_gets_a_client_error_or_an_answer_never_a_5xx(
    http: httpx.Client, key: tuple[str, str, str]
) -> None:
    method = apis.method(*key)

    @FUZZ
    @given(body=bodies_for(method))
    def post(body: bytes) -> None:
        reply = http.post(PATHS[key], content=body, headers={"content-type": "application/json"})
        assert reply.status_code < 500, f"{reply.status_code}: {reply.text[:300]}"
        if reply.status_code >= 400:
            assert reply.json()["error"]["status"], "errors are Google's JSON error bodies"

    post()
    _still_answers(http)
