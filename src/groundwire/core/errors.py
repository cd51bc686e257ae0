"""One error model for every failure, whichever protocol carried it; the only code↔HTTP mapping.

Protobuf modules are imported inside the functions that need them, so importing this module
stays cheap for callers that never see an error. Every message and detail goes through the
scrubber (`groundwire.core.scrubber`), which callers may still import from here.
"""

from __future__ import annotations

import enum
import functools
import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

from groundwire.core.scrubber import scrub_message
from groundwire.core.scrubber import scrub_secrets as scrub_secrets  # its old home

if TYPE_CHECKING:
    from google.protobuf.any_pb2 import Any as AnyProto
    from google.protobuf.message import Message
    from google.rpc.status_pb2 import Status

_M = TypeVar("_M", bound="Message")

_EXCERPT_LIMIT = 200
_TYPE_URL_PREFIX = "type.googleapis.com/"


class StatusCode(enum.IntEnum):
    """The canonical status codes of google.rpc.Code, with gRPC's numbers."""

    OK = 0
    CANCELLED = 1
    UNKNOWN = 2
    INVALID_ARGUMENT = 3
    DEADLINE_EXCEEDED = 4
    NOT_FOUND = 5
    ALREADY_EXISTS = 6
    PERMISSION_DENIED = 7
    RESOURCE_EXHAUSTED = 8
    FAILED_PRECONDITION = 9
    ABORTED = 10
    OUT_OF_RANGE = 11
    UNIMPLEMENTED = 12
    INTERNAL = 13
    UNAVAILABLE = 14
    DATA_LOSS = 15
    UNAUTHENTICATED = 16


RETRYABLE_CODES = frozenset(
    {StatusCode.UNAVAILABLE, StatusCode.RESOURCE_EXHAUSTED, StatusCode.DEADLINE_EXCEEDED}
)
"""Codes worth another attempt of these idempotent methods; the retry policy has the last word."""

_HTTP_STATUS_BY_CODE = {
    StatusCode.OK: 200,
    StatusCode.CANCELLED: 499,
    StatusCode.UNKNOWN: 500,
    StatusCode.INVALID_ARGUMENT: 400,
    StatusCode.DEADLINE_EXCEEDED: 504,
    StatusCode.NOT_FOUND: 404,
    StatusCode.ALREADY_EXISTS: 409,
    StatusCode.PERMISSION_DENIED: 403,
    StatusCode.RESOURCE_EXHAUSTED: 429,
    StatusCode.FAILED_PRECONDITION: 400,
    StatusCode.ABORTED: 409,
    StatusCode.OUT_OF_RANGE: 400,
    StatusCode.UNIMPLEMENTED: 501,
    StatusCode.INTERNAL: 500,
    StatusCode.UNAVAILABLE: 503,
    StatusCode.DATA_LOSS: 500,
    StatusCode.UNAUTHENTICATED: 401,
}

_CODE_BY_HTTP_STATUS = {
    400: StatusCode.INVALID_ARGUMENT,
    401: StatusCode.UNAUTHENTICATED,
    403: StatusCode.PERMISSION_DENIED,
    404: StatusCode.NOT_FOUND,
    408: StatusCode.DEADLINE_EXCEEDED,
    409: StatusCode.ABORTED,
    412: StatusCode.FAILED_PRECONDITION,
    416: StatusCode.OUT_OF_RANGE,
    429: StatusCode.RESOURCE_EXHAUSTED,
    499: StatusCode.CANCELLED,
    500: StatusCode.INTERNAL,
    501: StatusCode.UNIMPLEMENTED,
    502: StatusCode.UNAVAILABLE,
    503: StatusCode.UNAVAILABLE,
    504: StatusCode.DEADLINE_EXCEEDED,
}


class GroundwireError(Exception):
    """A failed call: canonical ``code``, ``message`` and decoded ``google.rpc`` ``details``.

    The same whether the call went over gRPC or REST. ``http_status`` is the status the REST
    call got, or the one ``code`` maps to for gRPC. ``retry_delay`` is the wait in seconds the
    server asked for (RetryInfo or Retry-After), None if it asked for none. Messages are
    scrubbed of anything that looks like a credential, and so are the strings in details.

    Example:
        >>> error = error_from_status(14, "backend unavailable")
        >>> (type(error).__name__, error.code.name, error.retryable, error.http_status)
        ('Unavailable', 'UNAVAILABLE', True, 503)
    """

    code: ClassVar[StatusCode] = StatusCode.UNKNOWN
    permanent: ClassVar[bool] = False
    """True for a failure no retry can cure, whatever its code (see `MessageTooLarge`)."""
    connected: ClassVar[bool] = True
    """False when the attempt made no connection at all (`transports.base.ConnectionFailure`)."""

    def __init__(
        self,
        message: str,
        *,
        details: Sequence[Message] = (),
        http_status: int | None = None,
        retry_delay: float | None = None,
    ) -> None:
        self.message = scrub_secrets(message)
        super().__init__(self.message)
        self.details: tuple[Message, ...] = tuple(scrub_message(detail) for detail in details)
        self.http_status = status_to_http(self.code) if http_status is None else http_status
        self.retry_delay = _retry_info_delay(self.details) if retry_delay is None else retry_delay

    @property
    def retryable(self) -> bool:
        """Whether the code is one worth retrying (the retry policy decides finally)."""
        return not self.permanent and self.code in RETRYABLE_CODES

    def detail(self, kind: type[_M]) -> _M | None:
        """The first detail of type ``kind``, e.g. ``error.detail(BadRequest)``; None if absent."""
        return next((detail for detail in self.details if isinstance(detail, kind)), None)

    def __str__(self) -> str:
        return f"{self.code.name}: {self.message}"

    def __repr__(self) -> str:
        kinds = ", ".join(detail.DESCRIPTOR.name for detail in self.details)
        return f"{type(self).__name__}({self.message!r}, details=[{kinds}])"


class Cancelled(GroundwireError):
    """The call was cancelled, usually by the caller."""

    code = StatusCode.CANCELLED


class Unknown(GroundwireError):
    """The server failed without saying how, or sent a code this client does not know."""

    code = StatusCode.UNKNOWN


class InvalidArgument(GroundwireError):
    """The request is malformed; BadRequest details name the fields."""

    code = StatusCode.INVALID_ARGUMENT


class DeadlineExceeded(GroundwireError):
    """The deadline passed before the call finished."""

    code = StatusCode.DEADLINE_EXCEEDED


class NotFound(GroundwireError):
    """A resource named in the request (project, grounding config) does not exist."""

    code = StatusCode.NOT_FOUND


class AlreadyExists(GroundwireError):
    """The resource to create exists already."""

    code = StatusCode.ALREADY_EXISTS


class PermissionDenied(GroundwireError):
    """The caller is known but may not do this (API disabled, missing IAM role)."""

    code = StatusCode.PERMISSION_DENIED


class ResourceExhausted(GroundwireError):
    """A quota or rate limit was hit; QuotaFailure / RetryInfo details say which and how long."""

    code = StatusCode.RESOURCE_EXHAUSTED


class FailedPrecondition(GroundwireError):
    """The system is not in a state that allows the call."""

    code = StatusCode.FAILED_PRECONDITION


class Aborted(GroundwireError):
    """The call was aborted, typically by a concurrency conflict."""

    code = StatusCode.ABORTED


class OutOfRange(GroundwireError):
    """A value is past the valid range."""

    code = StatusCode.OUT_OF_RANGE


class Unimplemented(GroundwireError):
    """The method is not available at this endpoint or API version."""

    code = StatusCode.UNIMPLEMENTED


class Internal(GroundwireError):
    """The server broke an invariant of its own."""

    code = StatusCode.INTERNAL


class Unavailable(GroundwireError):
    """The service cannot be reached or is overloaded for now."""

    code = StatusCode.UNAVAILABLE


class DataLoss(GroundwireError):
    """Unrecoverable data loss or corruption."""

    code = StatusCode.DATA_LOSS


class Unauthenticated(GroundwireError):
    """The call has no valid credentials."""

    code = StatusCode.UNAUTHENTICATED


# Each class above stands for one code: this is the only code → error type mapping.
_ERROR_TYPES = {error_type.code: error_type for error_type in GroundwireError.__subclasses__()}


class MessageTooLarge(ResourceExhausted):
    """A response (or request) is over the size limit; sending the call again cannot help.

    REST responses are capped at `max_response_bytes` once decompressed (64 MiB by default),
    gRPC messages at the channel's limit of the same size. Never retried.
    """

    permanent = True


class ClientClosed(Cancelled, RuntimeError):
    """The call's own client was closed, before or while the call ran; never retried.

    Also a `RuntimeError`, as a call on a closed client raised before.
    """

    permanent = True


class ClientForked(FailedPrecondition, RuntimeError):
    """gRPC cannot be used in this forked process (see the message for why); never retried.

    A client created before `os.fork()` rebuilds its connections in the child, but gRPC's
    core does not survive a fork while a gRPC call is in flight (or with
    `GRPC_ENABLE_FORK_SUPPORT=false`, or grpc.aio with an open channel). `transport="auto"`
    then uses REST in that child; `transport="grpc"` raises this. Fork before the first
    call, close the client before forking, or use REST in the child.
    """

    permanent = True


class WrongEventLoop(FailedPrecondition, RuntimeError):
    """An `AsyncGroundingClient` is in use on another event loop that is still running.

    Its connections belong to one loop at a time: after that loop has ended it moves to the
    next one by itself, but two loops running at once need a client each. Never retried.
    """

    permanent = True


def error_type_for(code: int) -> type[GroundwireError]:
    """The error class for a status code; codes outside 1..16 (and OK) give Unknown.

    Example:
        >>> error_type_for(5).__name__
        'NotFound'
    """
    return _ERROR_TYPES.get(StatusCode(code) if 0 < code <= 16 else StatusCode.UNKNOWN, Unknown)


def status_to_http(code: int) -> int:
    """The HTTP status Google's REST APIs use for a canonical code (500 for unknown codes).

    Example:
        >>> status_to_http(StatusCode.RESOURCE_EXHAUSTED)
        429
    """
    return _HTTP_STATUS_BY_CODE.get(StatusCode(code), 500) if 0 <= code <= 16 else 500


def code_from_http(status: int) -> StatusCode:
    """The canonical code for an HTTP status when the body does not name one.

    Example:
        >>> code_from_http(503).name
        'UNAVAILABLE'
    """
    return _CODE_BY_HTTP_STATUS.get(status, StatusCode.UNKNOWN)


def error_from_status(code: int, message: str, details_bin: bytes | None = None) -> GroundwireError:
    """Build the error for a gRPC status; ``details_bin`` is the grpc-status-details-bin trailer.

    The trailer is a serialized google.rpc.Status; its known detail types are decoded, unknown
    ones are kept as ``google.protobuf.Any``. A trailer that does not parse is ignored.

    Example:
        >>> error = error_from_status(3, "answer_candidate is too long")
        >>> type(error).__name__, str(error)
        ('InvalidArgument', 'INVALID_ARGUMENT: answer_candidate is too long')
    """
    details: tuple[Message, ...] = ()
    if details_bin:
        from google.protobuf.message import DecodeError
        from google.rpc.status_pb2 import Status

        try:
            status = Status.FromString(details_bin)
        except DecodeError:
            status = Status()
        message = message or status.message
        details = tuple(_unpack_any(packed) for packed in status.details)
    if not 0 < code <= 16:
        message = f"{message} (status code {code} reported as a failure)".lstrip()
    return error_type_for(code)(message, details=details)


def error_from_http(
    status: int, body: bytes, headers: Mapping[str, str], *, now: float | None = None
) -> GroundwireError:
    """Build the error for a failed REST call from its status, body and headers.

    Google's JSON error body gives the code, message and details; any other body (a proxy's
    HTML page, truncated JSON) gives an error chosen from the HTTP status, with a short excerpt
    of the body. Retry-After (seconds or an HTTP date, measured from ``now``, a Unix time that
    defaults to the current time) and RetryInfo both count; the longer wait wins.

    Example:
        >>> error = error_from_http(502, b"<html><h1>502 Bad Gateway</h1></html>", {})
        >>> type(error).__name__, error.message
        ('Unavailable', 'HTTP 502 Bad Gateway: 502 Bad Gateway')
    """
    retry_after = _retry_after_seconds(headers, now)
    payload = _error_payload(body)
    if payload is None:
        code = code_from_http(status)
        message = f"HTTP {status} {_reason_phrase(status)}".rstrip() + _body_excerpt(body)
        return error_type_for(code)(message, http_status=status, retry_delay=retry_after)

    status_name = payload.get("status")
    code = StatusCode.__members__.get(str(status_name), code_from_http(status))
    sent_message = payload.get("message")
    message = sent_message if isinstance(sent_message, str) and sent_message else ""
    message = message or f"HTTP {status} {_reason_phrase(status)}".rstrip()
    raw_details = payload.get("details")
    details = tuple(
        _detail_from_json(item)
        for item in (raw_details if isinstance(raw_details, list) else ())
        if isinstance(item, dict)
    )
    delays = [delay for delay in (retry_after, _retry_info_delay(details)) if delay is not None]
    return error_type_for(code)(
        message, details=details, http_status=status, retry_delay=max(delays, default=None)
    )


def error_to_json(error: GroundwireError) -> bytes:
    """Google's JSON error body for ``error``, as the REST side of the emulator sends it.

    Example:
        >>> error_to_json(error_from_status(5, "no such config"))
        b'{"error":{"code":404,"message":"no such config","status":"NOT_FOUND"}}'
    """
    import json

    body: dict[str, Any] = {
        "code": error.http_status,
        "message": error.message,
        "status": error.code.name,
    }
    if error.details:
        body["details"] = [_detail_to_json(detail) for detail in error.details]
    return json.dumps({"error": body}, ensure_ascii=False, separators=(",", ":")).encode()


def error_to_status_proto(error: GroundwireError) -> Status:
    """The google.rpc.Status for ``error``, serialized into grpc-status-details-bin by servers.

    Example:
        >>> error_to_status_proto(error_from_status(5, "no such config")).code
        5
    """
    from google.protobuf.any_pb2 import Any as AnyProto
    from google.rpc.status_pb2 import Status

    status = Status(code=int(error.code), message=error.message)
    for detail in error.details:
        packed = status.details.add()
        if isinstance(detail, AnyProto):
            packed.CopyFrom(detail)
        else:
            packed.Pack(detail)
    return status


def bad_request(violations: Sequence[tuple[str, str]], message: str) -> InvalidArgument:
    """An InvalidArgument whose BadRequest detail lists (field, description) violations.

    Example:
        >>> error = bad_request([("facts[3].fact_text", "too long")], "invalid request")
        >>> error.details[0].field_violations[0].field
        'facts[3].fact_text'
    """
    from google.rpc.error_details_pb2 import BadRequest

    detail = BadRequest(
        field_violations=[
            BadRequest.FieldViolation(field=field, description=description)
            for field, description in violations
        ]
    )
    return InvalidArgument(message, details=(detail,))


# What protobuf raises for JSON it cannot hold: a ParseError, nesting past the recursion limit,
# a lone surrogate (UnicodeEncodeError, or upb's SystemError), a number out of range.
_UNREPRESENTABLE = (ValueError, RecursionError, SystemError, OverflowError, TypeError)


@functools.cache
def _detail_types() -> dict[str, type[Message]]:
    """The google.rpc detail messages by full name (google.rpc.BadRequest → BadRequest)."""
    from google.rpc import error_details_pb2

    return {
        descriptor.full_name: getattr(error_details_pb2, name)
        for name, descriptor in error_details_pb2.DESCRIPTOR.message_types_by_name.items()
    }


def _unpack_any(packed: AnyProto) -> Message:
    """A known detail decoded from its Any; an unknown or corrupt one stays the Any it came in."""
    from google.protobuf.message import DecodeError

    detail_type = _detail_types().get(packed.TypeName())
    if detail_type is None:
        return packed
    detail = detail_type()
    try:
        return detail if packed.Unpack(detail) else packed
    except DecodeError:
        return packed


def _detail_from_json(item: dict[str, Any]) -> Message:
    """Decode one JSON detail; unknown or malformed ones are kept whole as a Struct."""
    from google.protobuf import json_format
    from google.protobuf.struct_pb2 import Struct

    type_url = item.get("@type")
    type_name = type_url.rpartition("/")[2] if isinstance(type_url, str) else ""
    detail_type = _detail_types().get(type_name)
    if detail_type is not None:
        fields = {key: value for key, value in item.items() if key != "@type"}
        try:
            return json_format.ParseDict(fields, detail_type(), ignore_unknown_fields=True)
        except (json_format.ParseError, *_UNREPRESENTABLE):
            pass
    kept = Struct()
    try:
        kept.update(item)
    except _UNREPRESENTABLE:  # too deep, or a key protobuf cannot hold: only its type is kept
        kept = Struct()
        kept.update({"@type": type_url if isinstance(type_url, str) else ""})
    return kept


def _detail_to_json(detail: Message) -> dict[str, Any]:
    import base64

    from google.protobuf import json_format
    from google.protobuf.any_pb2 import Any as AnyProto
    from google.protobuf.struct_pb2 import Struct

    if isinstance(detail, AnyProto):
        return {"@type": detail.type_url, "value": base64.b64encode(detail.value).decode()}
    fields = json_format.MessageToDict(detail)
    if isinstance(detail, Struct) and "@type" in fields:
        return fields
    if isinstance(detail, Struct):
        return {"@type": _TYPE_URL_PREFIX + "google.protobuf.Struct", "value": fields}
    return {"@type": _TYPE_URL_PREFIX + detail.DESCRIPTOR.full_name, **fields}


def _retry_info_delay(details: Sequence[Message]) -> float | None:
    for detail in details:
        if detail.DESCRIPTOR.full_name == "google.rpc.RetryInfo":
            retry_delay = detail.retry_delay  # type: ignore[attr-defined]
            return max(float(retry_delay.seconds + retry_delay.nanos / 1e9), 0.0)
    return None


def _retry_after_seconds(headers: Mapping[str, str], now: float | None) -> float | None:
    header = next((v for k, v in headers.items() if k.lower() == "retry-after"), None)
    if header is None:
        return None
    value = str(header).strip()
    try:
        return max(float(value), 0.0)
    except ValueError:
        pass
    import email.utils
    import time

    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        return None
    return max(when.timestamp() - (time.time() if now is None else now), 0.0)


def _error_payload(body: bytes) -> dict[str, Any] | None:
    """The "error" object of Google's JSON error body (alone or first of a stream), if any."""
    import json

    try:
        parsed = json.loads(body)
    except (ValueError, RecursionError):
        return None
    if isinstance(parsed, list) and parsed and isinstance(parsed[0], dict):
        parsed = parsed[0]
    error = parsed.get("error") if isinstance(parsed, dict) else None
    return error if isinstance(error, dict) else None


def _reason_phrase(status: int) -> str:
    from http import HTTPStatus

    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return ""


def _body_excerpt(body: bytes) -> str:
    """A short, single-line, tag-free excerpt of a body that is not Google's JSON error."""
    text = re.sub(r"<[^>]*>", " ", body[: _EXCERPT_LIMIT * 8].decode("utf-8", "replace"))
    text = " ".join(text.split())
    if not text:
        return " (empty body)" if not body else ""
    if len(text) > _EXCERPT_LIMIT:
        text = text[:_EXCERPT_LIMIT].rstrip() + "…"
    return ": " + text
