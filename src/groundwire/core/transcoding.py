"""REST transcoding driven by `google.api.http` rules: requests to HTTP and back, no I/O.

The client and the emulator's REST gateway both use this module, so a URL is never
written by hand per method: paths, path variables and body mapping all come from the
rules in the descriptors (see `groundwire.core.apis` and `groundwire.core.paths`). Both
directions of a REST stream live here too: the JSON array of requests a client sends and a
server reads, and the framing of streamed responses (a JSON array, or server-sent events)
that a server writes and a client reads (`groundwire.core.jsonstream`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl

from google.protobuf import json_format, message

from groundwire.core.apis import Method
from groundwire.core.errors import bad_request
from groundwire.core.json_decode import message_from_json


@dataclass(frozen=True)
class HttpRequest:
    """What a REST transport sends: verb, path (no host) and a JSON body."""

    verb: str
    path: str
    body: bytes


def _field_path_value(request: message.Message, field_path: str) -> str:
    value: Any = request
    for name in field_path.split("."):
        value = getattr(value, name)
    return str(value)


def _bound_values(method: Method, request: message.Message) -> dict[str, str]:
    return {field: _field_path_value(request, field) for field in method.http.path.fields}


def _misfits(method: Method, values: Mapping[str, str]) -> list[tuple[str, str]]:
    return [
        (variable.field, f"{values[variable.field]!r} is not of the form {variable.pattern}")
        for variable in method.http.path.variables
        if not variable.fits(values[variable.field])
    ]


def resource_violations(method: Method, request: message.Message) -> list[tuple[str, str]]:
    """The fields bound in `method`'s URL whose resource names do not fit the rule's pattern.

    >>> from groundwire.core.apis import method
    >>> check = method("discoveryengine", "v1", "CheckGrounding")
    >>> resource_violations(check, check.request_class(grounding_config="nowhere"))
    [('grounding_config', "'nowhere' is not of the form projects/*/locations/*/groundingConfigs/*")]
    """
    return _misfits(method, _bound_values(method, request))


def path_for(method: Method, request: message.Message) -> str:
    """The URL path of `request`, its resource name checked against the rule's pattern.

    Raises `InvalidArgument` naming the field when the resource name does not fit.
    """
    values = _bound_values(method, request)
    violations = _misfits(method, values)
    if violations:
        raise bad_request(violations, f"resource name does not match {method.http.template}")
    return method.http.path.expand(values)


def encode_request(method: Method, request: message.Message) -> HttpRequest:
    """Transcodes a unary request: path from the rule, body `*` = the whole message as JSON.

    Fields bound in the path are left out of the body, as Google's REST clients do.
    """
    path = path_for(method, request)
    body_object = json_format.MessageToDict(request)  # proto3 JSON: lowerCamelCase names
    fields = method.request_class.DESCRIPTOR.fields_by_name
    for field in method.http.path.fields:
        body_object.pop(fields[field].json_name, None)
    return HttpRequest(
        method.http.verb, path, json.dumps(body_object, separators=(",", ":")).encode()
    )


def encode_stream_request(method: Method, requests: Iterable[message.Message]) -> HttpRequest:
    """Transcodes a streaming call: one POST whose body is a JSON array of the requests.

    The path comes from the first request; every request must name the same resource.
    """
    items = list(requests)
    if not items:
        raise bad_request(
            [("requests", "at least one request is needed")],
            "a streaming call over REST needs at least one request",
        )
    path = path_for(method, items[0])
    for index, item in enumerate(items[1:], start=1):
        if path_for(method, item) != path:
            raise bad_request(
                [(f"requests[{index}].{method.routing_field}", "differs from the first request's")],
                "every request of a stream must name the same resource",
            )
    body = json.dumps([json_format.MessageToDict(item) for item in items], separators=(",", ":"))
    return HttpRequest(method.http.verb, path, body.encode())


def decode_message(
    body: bytes | str | Mapping[str, Any],
    message_class: type[message.Message],
    *,
    ignore_unknown_fields: bool = True,
) -> message.Message:
    """Parses proto3 JSON into `message_class`; malformed input raises a GroundwireError.

    The client ignores unknown fields (the service may add some) and decodes an already
    parsed object with `message_from_json`; the emulator is strict and keeps json_format.

    >>> from groundwire.core.apis import method
    >>> response_class = method("discoveryengine", "v1", "CheckGrounding").response_class
    >>> decode_message({"supportScore": 0.5, "new": 1}, response_class).support_score
    0.5
    """
    try:
        if isinstance(body, Mapping) and ignore_unknown_fields:
            return message_from_json(dict(body), message_class)
        target = message_class()
        if isinstance(body, Mapping):
            json_format.ParseDict(dict(body), target, ignore_unknown_fields=ignore_unknown_fields)
        else:
            json_format.Parse(body, target, ignore_unknown_fields=ignore_unknown_fields)
    except (
        json_format.ParseError,
        UnicodeDecodeError,
        RecursionError,
        ValueError,
        OverflowError,
    ) as error:
        raise bad_request(
            [("body", _first_line(str(error)))],
            f"invalid JSON for {message_class.DESCRIPTOR.name}: {_first_line(str(error))}",
        ) from None
    return target


def _first_line(text: str) -> str:
    return text.splitlines()[0][:300] if text else "unreadable"


@dataclass(frozen=True)
class Route:
    """A method found for an incoming HTTP request, with the path's bound variables."""

    method: Method
    bindings: dict[str, str]


def match_route(methods: Sequence[Method], verb: str, path: str) -> Route | None:
    """Finds the method whose rule matches `verb` and `path` (the emulator's router)."""
    for candidate in methods:
        if candidate.http.verb != verb.upper():
            continue
        bindings = candidate.http.path.match(path)
        if bindings is not None:
            return Route(candidate, bindings)
    return None


def bind_path(request: message.Message, bindings: Mapping[str, str]) -> None:
    """Sets the fields bound in the path on a request parsed from the body."""
    for field_path, value in bindings.items():
        *parents, leaf = field_path.split(".")
        target: Any = request
        for name in parents:
            target = getattr(target, name)
        setattr(target, leaf, value)


def decode_body(
    method: Method, body: bytes, bindings: Mapping[str, str] | None = None
) -> list[message.Message]:
    """The requests a REST body carries, read strictly (the emulator's side of the wire).

    A unary method's body is one JSON object; a streaming method's is an array of them, as
    `encode_stream_request` writes it (one object is taken as a one-request stream). The
    text must be strict UTF-8 holding no lone surrogate, unknown fields are errors, and
    `bindings` (the fields bound in the path) are set on every request.

    >>> from groundwire.core.apis import method
    >>> stream = method("discoveryengine", "v1", "StreamGenerateGroundedContent")
    >>> [r.location for r in decode_body(stream, b'[{"location": "a"}, {}]', {"location": "b"})]
    ['b', 'b']
    """
    document = _json_document(body)
    streaming = method.server_streaming and isinstance(document, list)
    items = document if streaming else [document]
    if not items:
        raise bad_request([("body", "the array is empty")], "a stream needs at least one request")
    requests = []
    for index, item in enumerate(items):
        field = f"body[{index}]" if streaming else "body"
        if not isinstance(item, dict):
            expected = (
                "an object or an array of objects" if method.server_streaming else "an object"
            )
            raise bad_request([(field, f"must be {expected}")], f"{field} must be {expected}")
        request = decode_message(item, method.request_class, ignore_unknown_fields=False)
        bind_path(request, bindings or {})
        requests.append(request)
    return requests


_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


def _json_document(body: bytes) -> Any:
    """The body as JSON: strict UTF-8, and no lone surrogate, which is no Unicode character."""
    try:
        text = body.decode("utf-8")
        document = json.loads(text) if text.strip() else {}
    except (ValueError, RecursionError) as error:
        reason = str(error).splitlines()[0][:200] if str(error) else type(error).__name__
        raise bad_request([("body", reason)], f"the body is not valid JSON: {reason}") from None
    if _SURROGATE_ESCAPE.search(text):  # only an escape makes a surrogate: check only then
        try:
            json.dumps(document, ensure_ascii=False).encode("utf-8")
        except UnicodeEncodeError:
            reason = "a \\u escape names a lone UTF-16 surrogate, which is not a character"
            raise bad_request([("body", reason)], f"the body is not valid JSON: {reason}") from None
    return document


STREAM_OPEN = b"["
STREAM_CLOSE = b"]"
"""What a streamed JSON array (`alt=json`) starts and ends with; server-sent events have none."""


def stream_frame(position: int, data: bytes, *, sse: bool) -> bytes:
    r"""One streamed response element as it goes on the wire, `position` counting from 0.

    A JSON array separates elements with commas; server-sent events put each on a `data:` line.

    >>> stream_frame(1, b"{}", sse=False), stream_frame(0, b"{}", sse=True)
    (b',{}', b'data: {}\r\n\r\n')
    """
    if sse:
        return b"data: " + data + b"\r\n\r\n"
    return data if position == 0 else b"," + data


@dataclass(frozen=True)
class SystemParameters:
    """Google's system query parameters the REST surface honours."""

    alt: str = "json"  # "json" or "sse" (server-sent events, streaming only)
    enum_encoding_int: bool = False


def system_parameters(query: str) -> SystemParameters:
    """Reads `alt` / `$alt`, e.g. `$alt=json;enum-encoding=int` as the official clients send.

    >>> system_parameters("$alt=json;enum-encoding=int")
    SystemParameters(alt='json', enum_encoding_int=True)
    """
    alt, enum_int = "json", False
    for key, value in parse_qsl(query, keep_blank_values=True):
        if key.lstrip("$") != "alt":
            continue
        kind, *options = value.split(";")
        alt = kind or "json"
        enum_int = any(o.strip() == "enum-encoding=int" for o in options)
    if alt not in ("json", "sse"):
        raise bad_request(
            [("$alt", f"unsupported value {alt!r}; use json or sse")], f"unsupported alt={alt}"
        )
    return SystemParameters(alt, enum_int)


def response_to_json(response: message.Message, *, enum_encoding_int: bool = False) -> bytes:
    """Serialises a response as proto3 JSON bytes (enums as numbers when asked)."""
    as_dict = json_format.MessageToDict(response, use_integers_for_enums=enum_encoding_int)
    return json.dumps(as_dict, ensure_ascii=False, separators=(",", ":")).encode()


__all__ = [
    "HttpRequest",
    "Route",
    "SystemParameters",
    "bind_path",
    "decode_body",
    "decode_message",
    "encode_request",
    "encode_stream_request",
    "match_route",
    "path_for",
    "resource_violations",
    "response_to_json",
    "stream_frame",
    "system_parameters",
]
