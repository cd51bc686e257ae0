"""Whatever a hostile server sends in a body or a status, decoding ends in a GroundwireError."""

from __future__ import annotations

import contextlib
import json
from typing import Any

import pytest
from google.protobuf.any_pb2 import Any as AnyProto
from google.rpc.status_pb2 import Status
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from groundwire.contract import apis
from groundwire.contract.errors import GroundwireError, Internal
from groundwire.wire.bodies import decode_response
from groundwire.wire.error_codecs import error_from_http, error_from_status

CHECK = apis.method("discoveryengine", "v1", "CheckGrounding")
FUZZ = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@pytest.mark.parametrize(
    "body",
    [
        b'{"supportScore": null, "\\ud800": "a"}',
        b'{"claims": [{"\\ud800": 1}], "supportScore": "1"}',
        b'{"[\\ud800": 1}',
    ],
)
def test_a_200_body_with_a_lone_surrogate_key_is_an_internal_error(body: bytes) -> None:
    with pytest.raises(Internal):
        decode_response(CHECK, body)
    with pytest.raises(Internal):
        decode_response(CHECK, body, {})


def test_error_details_nested_900_deep_still_give_the_error() -> None:
    nested = "[" * 900 + "]" * 900
    body = (
        '{"error": {"code": 503, "message": "busy", "status": "UNAVAILABLE", '
        f'"details": [{{"@type": "type.googleapis.com/x.Y", "deep": {nested}}}]}}}}'
    ).encode()

    error = error_from_http(503, body, {})

    assert error.code.name == "UNAVAILABLE"
    assert error.message == "busy"


def test_an_error_detail_with_a_lone_surrogate_key_still_gives_the_error() -> None:
    body = b'{"error": {"code": 400, "message": "bad", "details": [{"@type": "x", "\\ud800": 1}]}}'

    error = error_from_http(400, body, {})

    assert error.code.name == "INVALID_ARGUMENT"
    assert error.message == "bad"


def test_corrupt_bytes_in_grpc_status_details_bin_still_give_the_error() -> None:
    corrupt = AnyProto(type_url="type.googleapis.com/google.rpc.BadRequest", value=b"\xff\xff\xff")
    trailer = Status(code=3, message="bad", details=[corrupt]).SerializeToString()

    error = error_from_status(3, "bad", trailer)

    assert error.code.name == "INVALID_ARGUMENT"
    assert error.message == "bad"


json_keys = st.text(max_size=6) | st.sampled_from(["@type", "code", "message", "details", "\ud800"])
json_scalars = st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8)


def nested(children: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """JSON arrays and objects of `children`."""
    return st.lists(children, max_size=3) | st.dictionaries(json_keys, children, max_size=3)


json_values = st.recursive(json_scalars, nested, max_leaves=12)
detail_types = st.sampled_from(
    [
        "type.googleapis.com/google.rpc.BadRequest",
        "type.googleapis.com/google.rpc.RetryInfo",
        "type.googleapis.com/google.rpc.ErrorInfo",
        "type.googleapis.com/other.Thing",
    ]
)
error_bodies = st.fixed_dictionaries(
    {},
    optional={
        "code": json_values,
        "message": json_values,
        "status": st.sampled_from(["UNAVAILABLE", "NOPE"]) | json_values,
        "details": st.lists(
            st.dictionaries(json_keys, json_values, max_size=3).flatmap(
                lambda item: detail_types.map(lambda type_url: {"@type": type_url, **item})
            )
            | json_values,
            max_size=3,
        )
        | json_values,
    },
).map(lambda error: json.dumps({"error": error}).encode())


@FUZZ
@given(status=st.integers(100, 599), body=error_bodies | st.binary(max_size=200))
def test_any_failed_rest_answer_decodes_to_a_groundwire_error(status: int, body: bytes) -> None:
    assert isinstance(error_from_http(status, body, {"retry-after": "1"}), GroundwireError)


@FUZZ
@given(
    code=st.integers(-3, 40),
    type_url=detail_types,
    value=st.binary(max_size=40),
    tail=st.binary(max_size=40),
)
def test_any_grpc_status_trailer_decodes_to_a_groundwire_error(
    code: int, type_url: str, value: bytes, tail: bytes
) -> None:
    trailer = Status(code=code, details=[AnyProto(type_url=type_url, value=value)])
    for details_bin in (trailer.SerializeToString(), tail, trailer.SerializeToString() + tail):
        assert isinstance(error_from_status(code, "failed", details_bin), GroundwireError)


response_bodies = st.dictionaries(
    json_keys | st.sampled_from(["supportScore", "claims", "citedChunks"]), json_values, max_size=4
).map(lambda body: json.dumps(body).encode())


@FUZZ
@given(body=response_bodies)
def test_any_200_body_even_with_lone_surrogates_decodes_to_a_message_or_internal(
    body: bytes,
) -> None:
    for decode in (lambda: decode_response(CHECK, body), lambda: decode_response(CHECK, body, {})):
        with contextlib.suppress(GroundwireError):
            assert isinstance(decode(), CHECK.response_class)
