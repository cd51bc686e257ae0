"""One error model: the same GroundwireError from a gRPC status or a REST response."""

from __future__ import annotations

import json
import pickle
from collections.abc import Mapping

import pytest
from google.protobuf import duration_pb2
from google.protobuf.any_pb2 import Any as AnyProto
from google.protobuf.message import Message
from google.protobuf.struct_pb2 import Struct
from google.rpc import code_pb2, error_details_pb2, status_pb2
from hypothesis import given
from hypothesis import strategies as st

from groundwire.contract import errors
from groundwire.contract.errors import (
    GroundwireError,
    InvalidArgument,
    NotFound,
    ResourceExhausted,
    StatusCode,
    Unavailable,
    Unknown,
    bad_request,
    code_from_http,
    status_to_http,
)
from groundwire.wire.error_codecs import (
    error_from_http,
    error_from_status,
    error_to_json,
    error_to_status_proto,
)


def status_bin(*details: Message, message: str = "") -> bytes:
    status = status_pb2.Status(code=3, message=message)
    for detail in details:
        status.details.add().Pack(detail)
    return bytes(status.SerializeToString())


def google_json_error(status: str, message: str, *details: Mapping[str, object]) -> bytes:
    body = {"error": {"code": 0, "message": message, "status": status, "details": list(details)}}
    return json.dumps(body).encode()


def test_status_codes_are_the_seventeen_canonical_ones() -> None:
    assert {code.name: code.value for code in StatusCode} == dict(code_pb2.Code.items())


def test_every_code_but_ok_has_its_own_error_type() -> None:
    for code in StatusCode:
        error = error_from_status(code, "boom")
        if code is StatusCode.OK:
            assert type(error) is Unknown
        else:
            assert error.code is code
            assert type(error) is not GroundwireError


def test_a_code_outside_the_canonical_range_is_unknown_and_said_so() -> None:
    error = error_from_status(42, "odd")
    assert type(error) is Unknown
    assert "42" in error.message


def test_grpc_status_details_are_decoded_into_google_rpc_messages() -> None:
    violation = error_details_pb2.BadRequest.FieldViolation(field="facts[3].fact_text")
    details = status_bin(
        error_details_pb2.BadRequest(field_violations=[violation]),
        error_details_pb2.ErrorInfo(
            reason="FACT_TOO_LONG", domain="discoveryengine.googleapis.com"
        ),
        error_details_pb2.QuotaFailure(),
    )
    error = error_from_status(3, "bad fact", details)
    assert isinstance(error, InvalidArgument)
    request = error.detail(error_details_pb2.BadRequest)
    assert request is not None
    assert request.field_violations[0].field == "facts[3].fact_text"
    info = error.detail(error_details_pb2.ErrorInfo)
    assert info is not None
    assert info.reason == "FACT_TOO_LONG"
    assert error.detail(error_details_pb2.QuotaFailure) is not None


def test_an_unknown_detail_type_is_kept_as_any() -> None:
    (kept,) = error_from_status(3, "x", status_bin(duration_pb2.Duration(seconds=1))).details
    assert isinstance(kept, AnyProto)
    assert kept.TypeName() == "google.protobuf.Duration"


def test_retry_info_becomes_retry_delay_in_seconds() -> None:
    retry = error_details_pb2.RetryInfo(
        retry_delay=duration_pb2.Duration(seconds=2, nanos=5 * 10**8)
    )
    error = error_from_status(8, "slow down", status_bin(retry))
    assert isinstance(error, ResourceExhausted)
    assert error.retry_delay == 2.5


def test_a_status_trailer_that_does_not_parse_is_ignored() -> None:
    error = error_from_status(14, "unavailable", b"\xff\xff\xff")
    assert isinstance(error, Unavailable)
    assert error.details == ()


def test_an_empty_grpc_message_falls_back_to_the_status_message() -> None:
    assert error_from_status(3, "", status_bin(message="from the trailer")).message == (
        "from the trailer"
    )


def test_retryable_codes_are_unavailable_resource_exhausted_and_deadline_exceeded() -> None:
    retryable = {code for code in StatusCode if error_from_status(code, "").retryable}
    assert retryable == {
        StatusCode.UNAVAILABLE,
        StatusCode.RESOURCE_EXHAUSTED,
        StatusCode.DEADLINE_EXCEEDED,
    }


def test_google_json_error_bodies_are_decoded_with_their_details() -> None:
    body = google_json_error(
        "INVALID_ARGUMENT",
        "Request contains an invalid argument.",
        {
            "@type": "type.googleapis.com/google.rpc.BadRequest",
            "fieldViolations": [{"field": "answer_candidate", "description": "too long"}],
        },
    )
    error = error_from_http(400, body, {"Content-Type": "application/json"})
    assert isinstance(error, InvalidArgument)
    assert error.message == "Request contains an invalid argument."
    assert error.http_status == 400
    request = error.detail(error_details_pb2.BadRequest)
    assert request is not None
    assert request.field_violations[0].field == "answer_candidate"


def test_the_status_name_in_the_body_wins_over_the_http_status() -> None:
    error = error_from_http(400, google_json_error("FAILED_PRECONDITION", "not ready"), {})
    assert error.code is StatusCode.FAILED_PRECONDITION
    assert error.http_status == 400


def test_a_json_error_without_a_status_name_uses_the_http_status() -> None:
    error = error_from_http(404, b'{"error": {"code": 404, "message": "no config"}}', {})
    assert isinstance(error, NotFound)
    assert error.message == "no config"


def test_an_error_inside_a_streamed_json_array_is_decoded() -> None:
    body = b'[{"error": {"code": 503, "message": "overloaded", "status": "UNAVAILABLE"}}]'
    assert isinstance(error_from_http(200, body, {}), Unavailable)


def test_an_html_page_from_a_proxy_gives_an_error_from_the_http_status() -> None:
    body = b"<html><head><title>502 Bad Gateway</title></head>\n<body>nginx</body></html>"
    error = error_from_http(502, body, {"content-type": "text/html"})
    assert isinstance(error, Unavailable)
    assert error.message == "HTTP 502 Bad Gateway: 502 Bad Gateway nginx"


def test_truncated_json_gives_a_short_excerpt() -> None:
    body = b'{"error": {"code": 500, "message": "' + b"x" * 5000
    error = error_from_http(500, body, {})
    assert error.code is StatusCode.INTERNAL
    assert error.message.startswith('HTTP 500 Internal Server Error: {"error"')
    assert len(error.message) < 260


def test_an_empty_body_is_said_to_be_empty() -> None:
    assert error_from_http(503, b"", {}).message == "HTTP 503 Service Unavailable (empty body)"


def test_an_oauth_style_error_body_is_shown_as_an_excerpt() -> None:
    body = b'{"error": "invalid_grant", "error_description": "Bad Request"}'
    error = error_from_http(401, body, {})
    assert error.code is StatusCode.UNAUTHENTICATED
    assert "invalid_grant" in error.message


@pytest.mark.parametrize(
    ("status", "code"),
    [
        (400, "INVALID_ARGUMENT"),
        (401, "UNAUTHENTICATED"),
        (403, "PERMISSION_DENIED"),
        (404, "NOT_FOUND"),
        (409, "ABORTED"),
        (429, "RESOURCE_EXHAUSTED"),
        (499, "CANCELLED"),
        (500, "INTERNAL"),
        (501, "UNIMPLEMENTED"),
        (502, "UNAVAILABLE"),
        (503, "UNAVAILABLE"),
        (504, "DEADLINE_EXCEEDED"),
        (418, "UNKNOWN"),
        (302, "UNKNOWN"),
    ],
)
def test_http_statuses_map_to_the_standard_codes(status: int, code: str) -> None:
    assert code_from_http(status).name == code
    assert error_from_http(status, b"nope", {}).code.name == code


def test_codes_map_to_the_http_statuses_google_uses() -> None:
    statuses = {code.name: status_to_http(code) for code in StatusCode}
    assert statuses == {
        "OK": 200, "CANCELLED": 499, "UNKNOWN": 500, "INVALID_ARGUMENT": 400,
        "DEADLINE_EXCEEDED": 504, "NOT_FOUND": 404, "ALREADY_EXISTS": 409,
        "PERMISSION_DENIED": 403, "RESOURCE_EXHAUSTED": 429, "FAILED_PRECONDITION": 400,
        "ABORTED": 409, "OUT_OF_RANGE": 400, "UNIMPLEMENTED": 501, "INTERNAL": 500,
        "UNAVAILABLE": 503, "DATA_LOSS": 500, "UNAUTHENTICATED": 401,
    }  # fmt: skip
    assert status_to_http(99) == 500


def test_retry_after_in_seconds_sets_retry_delay() -> None:
    assert error_from_http(429, b"", {"Retry-After": "7"}).retry_delay == 7.0


def test_retry_after_as_an_http_date_is_measured_from_now() -> None:
    headers = {"retry-after": "Wed, 21 Oct 2015 07:28:30 GMT"}
    error = error_from_http(503, b"", headers, now=1445412500.0)
    assert error.retry_delay == 10.0


def test_a_malformed_retry_after_is_ignored() -> None:
    assert error_from_http(503, b"", {"Retry-After": "soon"}).retry_delay is None


def test_the_longer_of_retry_info_and_retry_after_wins() -> None:
    body = google_json_error(
        "RESOURCE_EXHAUSTED",
        "quota",
        {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "30s"},
    )
    assert error_from_http(429, body, {"Retry-After": "5"}).retry_delay == 30.0


def test_an_unknown_json_detail_is_kept_whole_as_a_struct() -> None:
    unknown = {"@type": "type.googleapis.com/example.Mystery", "clue": "butler"}
    error = error_from_http(400, google_json_error("INVALID_ARGUMENT", "x", unknown), {})
    (kept,) = error.details
    assert isinstance(kept, Struct)
    assert kept["clue"] == "butler"
    assert json.loads(error_to_json(error))["error"]["details"] == [unknown]


def test_a_malformed_known_json_detail_is_kept_as_a_struct() -> None:
    broken = {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "later"}
    error = error_from_http(429, google_json_error("RESOURCE_EXHAUSTED", "x", broken), {})
    assert isinstance(error.details[0], Struct)
    assert error.retry_delay is None


def rich_error() -> GroundwireError:
    return error_from_status(
        8,
        "quota exceeded",
        status_bin(
            error_details_pb2.RetryInfo(retry_delay=duration_pb2.Duration(seconds=3)),
            error_details_pb2.ErrorInfo(reason="RATE_LIMIT_EXCEEDED", metadata={"a": "b"}),
            duration_pb2.Duration(seconds=1),
        ),
    )


def test_an_error_survives_a_trip_through_google_json() -> None:
    original = rich_error()
    body = json.loads(error_to_json(original))["error"]
    assert (body["code"], body["status"], body["message"]) == (
        429,
        "RESOURCE_EXHAUSTED",
        "quota exceeded",
    )
    assert body["details"][0] == {
        "@type": "type.googleapis.com/google.rpc.RetryInfo",
        "retryDelay": "3s",
    }
    again = error_from_http(429, error_to_json(original), {})
    assert (type(again), again.message, again.retry_delay) == (
        ResourceExhausted,
        "quota exceeded",
        3.0,
    )
    assert again.details[:2] == original.details[:2]


def test_an_error_survives_a_trip_through_a_grpc_status() -> None:
    original = rich_error()
    status = error_to_status_proto(original)
    again = error_from_status(status.code, status.message, status.SerializeToString())
    assert (type(again), again.message, again.details) == (
        type(original),
        original.message,
        original.details,
    )


def test_bad_request_lists_every_violation() -> None:
    error = bad_request([("facts[3].fact_text", "too long"), ("user_labels", "bad key")], "invalid")
    assert isinstance(error, InvalidArgument)
    request = error.detail(error_details_pb2.BadRequest)
    assert request is not None
    assert [(v.field, v.description) for v in request.field_violations] == [
        ("facts[3].fact_text", "too long"),
        ("user_labels", "bad key"),
    ]


@pytest.mark.parametrize(
    ("leaky", "secret"),
    [
        ("upstream said: Authorization: Bearer ya29.a0AfH6SMBx-secret", "a0AfH6SMBx"),
        ("token ya29.c.b0AXv0zTPq_secret_value rejected", "b0AXv0zTPq"),
        ("bearer eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiIxIn0.sig", "eyJzdWIiOiIxIn0"),
        ("GET /v1/x?key=AIzaSyA1234567890abcdefghijklmnopqrstu HTTP/1.1", "SyA1234567"),
        ('{"access_token": "opaque-secret-token", "expires_in": 3599}', "opaque-secret"),
        ("x-goog-api-key: plain-secret-key", "plain-secret"),
        ("refresh 1//0gLongRefreshTokenValue_abcdefghij failed", "LongRefresh"),
    ],
)
def test_credentials_never_reach_messages_or_reprs(leaky: str, secret: str) -> None:
    error = error_from_status(16, leaky)
    for shown in (error.message, str(error), repr(error)):
        assert secret not in shown
        assert "[REDACTED]" in shown
    from_http = error_from_http(401, leaky.encode(), {})
    assert secret not in from_http.message
    assert secret not in repr(from_http)


def test_ordinary_words_about_keys_and_authorization_are_left_alone() -> None:
    message = "authorization failed: the key 'env' is not valid; the bearer of bad news"
    assert error_from_status(7, message).message == message


def test_errors_pickle_with_their_details() -> None:
    original = rich_error()
    again = pickle.loads(pickle.dumps(original))
    assert (type(again), again.message, again.details, again.retry_delay) == (
        type(original),
        original.message,
        original.details,
        original.retry_delay,
    )


def test_repr_names_the_type_message_and_detail_kinds() -> None:
    assert repr(rich_error()) == (
        "ResourceExhausted('quota exceeded', details=[RetryInfo, ErrorInfo, Any])"
    )


@given(st.integers(-(2**31), 2**31 - 1), st.text())
def test_any_grpc_status_gives_a_canonical_error(code: int, message: str) -> None:
    error = error_from_status(code, message)
    assert isinstance(error, GroundwireError)
    assert error.code is not StatusCode.OK
    assert error.http_status == status_to_http(error.code)


@given(st.integers(100, 599), st.binary(max_size=2000), st.dictionaries(st.text(), st.text()))
def test_any_http_response_gives_an_error_without_raising(
    status: int, body: bytes, headers: dict[str, str]
) -> None:
    error = error_from_http(status, body, headers)
    assert isinstance(error, GroundwireError)
    assert error.http_status == status


def test_the_mapping_lives_in_one_table_per_direction() -> None:
    assert set(errors._ERROR_TYPES) == set(StatusCode) - {StatusCode.OK}
