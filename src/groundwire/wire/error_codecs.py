"""The wire codecs of the error model: a gRPC status or a REST error body ↔ a `GroundwireError`.

Clients decode what a server sent; the emulator encodes its errors here. Protobuf is imported
only when needed.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from groundwire.contract.errors import (
    GroundwireError,
    StatusCode,
    code_from_http,
    error_type_for,
    retry_info_delay,
)

if TYPE_CHECKING:
    from google.protobuf.any_pb2 import Any as AnyProto
    from google.protobuf.message import Message
    from google.rpc.status_pb2 import Status

_EXCERPT_LIMIT = 200
_TYPE_URL_PREFIX = "type.googleapis.com/"


def error_from_status(code: int, message: str, details_bin: bytes | None = None) -> GroundwireError:
    """Build the error for a gRPC status; ``details_bin`` is the grpc-status-details-bin trailer.

    Known detail types are decoded, unknown ones kept as ``Any``; a corrupt trailer is ignored.

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
    HTML page) gives the HTTP status's error with an excerpt of it. Of Retry-After (an HTTP
    date is counted from ``now``, a Unix time) and RetryInfo, the longer wait wins.

    Example:
        >>> error = error_from_http(502, b"<html><h1>502 Bad Gateway</h1></html>", {})
        >>> type(error).__name__, error.message
        ('Unavailable', 'HTTP 502 Bad Gateway: 502 Bad Gateway')
    """
    retry_after = _retry_after_seconds(headers, now)
    payload = _error_payload(body)
    status_line = f"HTTP {status} {_reason_phrase(status)}".rstrip()
    if payload is None:
        code = code_from_http(status)
        message = status_line + _body_excerpt(body)
        return error_type_for(code)(message, http_status=status, retry_delay=retry_after)

    status_name = payload.get("status")
    code = StatusCode.__members__.get(str(status_name), code_from_http(status))
    sent_message = payload.get("message")
    message = sent_message if isinstance(sent_message, str) and sent_message else status_line
    raw_details = payload.get("details")
    details = tuple(
        _detail_from_json(item)
        for item in (raw_details if isinstance(raw_details, list) else ())
        if isinstance(item, dict)
    )
    delays = [delay for delay in (retry_after, retry_info_delay(details)) if delay is not None]
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
