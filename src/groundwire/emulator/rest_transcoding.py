"""The server's half of REST transcoding: route a request, read its body, frame streamed answers.

The client's half (`groundwire.contract.transcoding`) writes what this module reads, from the same
`google.api.http` rules; the REST gateway and the test servers are its only users.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl

from google.protobuf import json_format, message

from groundwire.contract.apis import Method
from groundwire.contract.errors import bad_request
from groundwire.contract.transcoding import decode_message


@dataclass(frozen=True)
class Route:
    """A method found for an incoming HTTP request, with the path's bound variables."""

    method: Method
    bindings: dict[str, str]


def match_route(methods: Sequence[Method], verb: str, path: str) -> Route | None:
    """Finds the method whose rule matches `verb` and `path`."""
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
    """The requests a REST body carries, read strictly, `bindings` set on each.

    A unary method's body is one JSON object; a streaming method's is an array of them (one
    object is a one-request stream). The text must be strict UTF-8 with no lone surrogate,
    and unknown fields are errors.

    >>> from groundwire.contract.apis import method
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
