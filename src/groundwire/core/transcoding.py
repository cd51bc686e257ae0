"""REST transcoding driven by `google.api.http` rules: requests to HTTP and back, no I/O.

The client and the emulator's REST gateway both use this module, so a URL is never
written by hand per method: paths, path variables and body mapping all come from the
rules in the descriptors (see `groundwire.core.apis`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any
from urllib.parse import parse_qsl, quote

from google.protobuf import json_format, message

from groundwire.core.apis import Method
from groundwire.core.errors import GroundwireError, bad_request
from groundwire.core.json_decode import message_from_json

_VARIABLE = re.compile(r"\{(?P<field>[a-z_.]+)(?:=(?P<pattern>[^}]+))?\}")


@dataclass(frozen=True)
class PathTemplate:
    """A parsed path template such as `/v1/{location=projects/*/locations/*}:verb`."""

    template: str
    fields: tuple[str, ...]
    regex: re.Pattern[str]

    def expand(self, values: Mapping[str, str]) -> str:
        """Fills the variables, checking each value against its pattern."""

        def substitute(match: re.Match[str]) -> str:
            return quote(values[match.group("field")], safe="/")

        return _VARIABLE.sub(substitute, self.template)

    def match(self, path: str) -> dict[str, str] | None:
        """The variables bound by `path`, or None when the path does not match."""
        found = self.regex.fullmatch(path)
        return None if found is None else {f: found.group(i + 1) for i, f in enumerate(self.fields)}


def _segment_pattern(pattern: str) -> str:
    parts = []
    for segment in pattern.split("/"):
        if segment == "**":
            parts.append(".+")
        elif segment == "*":
            parts.append("[^/:]+")
        else:
            parts.append(re.escape(segment))
    return "/".join(parts)


@cache
def parse_template(template: str) -> PathTemplate:
    """Parses a `google.api.http` path template once; later calls hit a cache.

    >>> parse_template("/v1/{parent=projects/*/locations/*}:corroborateContent").fields
    ('parent',)
    """
    fields: list[str] = []
    regex_parts: list[str] = []
    position = 0
    for variable in _VARIABLE.finditer(template):
        regex_parts.append(re.escape(template[position : variable.start()]))
        fields.append(variable.group("field"))
        regex_parts.append(f"({_segment_pattern(variable.group('pattern') or '*')})")
        position = variable.end()
    regex_parts.append(re.escape(template[position:]))
    return PathTemplate(template, tuple(fields), re.compile("".join(regex_parts)))


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


def path_for(method: Method, request: message.Message) -> str:
    """The URL path of `request`, its resource name checked against the rule's pattern.

    Raises `InvalidArgument` naming the field when the resource name does not fit.
    """
    template = parse_template(method.http.template)
    values = {f: _field_path_value(request, f) for f in template.fields}
    path = template.expand(values)
    if template.match(path) is None:
        pattern = method.http.template
        raise bad_request(
            [(f, f"{values[f]!r} does not match {pattern}") for f in template.fields],
            f"resource name does not match {pattern}",
        )
    return path


def message_to_json_object(request: message.Message) -> dict[str, Any]:
    """The proto3 JSON mapping of a message, as a dict (lowerCamelCase names)."""
    return json_format.MessageToDict(request, preserving_proto_field_name=False)


def encode_request(method: Method, request: message.Message) -> HttpRequest:
    """Transcodes a unary request: path from the rule, body `*` = the whole message as JSON.

    Fields bound in the path are left out of the body, as Google's REST clients do.
    """
    path = path_for(method, request)
    body_object = message_to_json_object(request)
    for field in parse_template(method.http.template).fields:
        body_object.pop(_json_name(method, field), None)
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
    body = json.dumps([message_to_json_object(item) for item in items], separators=(",", ":"))
    return HttpRequest(method.http.verb, path, body.encode())


def _json_name(method: Method, field: str) -> str:
    return method.request_class.DESCRIPTOR.fields_by_name[field].json_name


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
        bindings = parse_template(candidate.http.template).match(path)
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
    "GroundwireError",
    "HttpRequest",
    "PathTemplate",
    "Route",
    "SystemParameters",
    "bind_path",
    "decode_message",
    "encode_request",
    "encode_stream_request",
    "match_route",
    "message_to_json_object",
    "parse_template",
    "path_for",
    "response_to_json",
    "system_parameters",
]
