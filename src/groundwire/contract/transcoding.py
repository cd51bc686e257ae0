"""REST transcoding driven by `google.api.http` rules: requests to HTTP and back, no I/O.

No URL is written by hand per method: paths, path variables and body mapping come from the
rules in the descriptors (`groundwire.contract.paths`). The server's half, which reads what this
writes, is `groundwire.emulator.rest_transcoding`.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from google.protobuf import json_format, message

from groundwire.contract.apis import Method
from groundwire.contract.errors import bad_request
from groundwire.contract.json_decode import message_from_json


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

    >>> from groundwire.contract.apis import method
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
    """Transcodes a unary request: the path from the rule, the body as the rule's `body` says.

    `body: "*"` sends every field the path does not bind; a field's name sends that field
    alone, its value as the whole body; `""` sends no body.
    """
    path = path_for(method, request)
    body = method.http.body
    if not body:
        return HttpRequest(method.http.verb, path, b"")
    body_object = json_format.MessageToDict(request)  # proto3 JSON: lowerCamelCase names
    fields = method.request_class.DESCRIPTOR.fields_by_name
    if body == "*":
        for field in method.http.path.fields:
            body_object.pop(fields[field].json_name, None)
    else:
        body_object = body_object.get(fields[body].json_name, {})
    return HttpRequest(
        method.http.verb, path, json.dumps(body_object, separators=(",", ":")).encode()
    )


def encode_stream_request(method: Method, requests: Iterable[message.Message]) -> HttpRequest:
    """Transcodes a stream: one POST of the requests as a JSON array, all naming one resource."""
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

    Ignoring unknown fields (the client's way), an already parsed object takes the fast
    `message_from_json`.

    >>> from groundwire.contract.apis import method
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


__all__ = [
    "HttpRequest",
    "decode_message",
    "encode_request",
    "encode_stream_request",
    "path_for",
    "resource_violations",
]
