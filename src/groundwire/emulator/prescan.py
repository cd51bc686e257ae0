"""Finds what breaks a count or length limit in a request's wire bytes, before any message is built.

Building a message costs far more than its bytes: 31 million empty facts are 62 MB of protobuf
but gigabytes of message objects, and as many Python objects in JSON. So both servers read the
bytes first, protobuf's wire format for gRPC and the JSON text for REST, counting the elements
of the fact lists, reading only the texts that may be over their limit, and stopping at the
first list over its limit, or once a request holds more than `MAX_REQUEST_VALUES` fields or
JSON values. What is over a limit is refused with the wording of `groundwire.contract.validation`;
a request within the limits is then built and checked in full by its spec, as before.

The scan is no parser: on malformed bytes it stops and finds nothing, and the parser that
follows says what is wrong.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import cast

from google.protobuf.descriptor import Descriptor, FieldDescriptor

from groundwire.contract import validation
from groundwire.contract.apis import Method
from groundwire.contract.spec import FACT_LISTS, LIMITED_TEXTS
from groundwire.contract.validation import Violation
from groundwire.emulator.limits import MAX_REQUEST_VALUES


class _Stop(Exception):
    """The scan has found enough: a list over its limit, or too many values."""


class _Malformed(Exception):
    """The bytes do not parse; the parser will say why."""


class _Checker:
    """Applies the limits to what a scan meets, collecting violations; raises `_Stop` when done."""

    def __init__(self, api_version: str, values: str) -> None:
        self.api_version = api_version
        self.values = values
        self.left = MAX_REQUEST_VALUES
        self.violations: list[Violation] = []

    def value(self) -> None:
        """Counts one field or value; past `MAX_REQUEST_VALUES`, the scan stops."""
        self.left -= 1
        if self.left < 0:
            limit = f"{MAX_REQUEST_VALUES:,} {self.values}"
            self.violations.append(("request", f"is past the emulator's limit of {limit}"))
            raise _Stop

    def element(self, key: str, path: str, count: int) -> None:
        """The `count`th element of a list; a fact list over its limit stops the scan."""
        if count > validation.MAX_FACTS and key in FACT_LISTS:
            self.violations.extend(validation.validate_fact_count(count, path, counted_all=False))
            raise _Stop

    def text(self, key: str, path: str, size: int, read: Callable[[], str]) -> None:
        """A string of `size` bytes; one that may be over its limit is read and checked."""
        rule = LIMITED_TEXTS.get(key)
        if rule is not None and size > rule[0]:
            self.violations.extend(rule[1](path, read(), self.api_version))


def _joined(parent: str, name: str) -> str:
    return f"{parent}.{name}" if parent else name


def wire_violations(method: Method, raw: bytes) -> list[Violation]:
    r"""What a request in protobuf wire format breaks, found without building it.

    Example:
        >>> from groundwire.contract.apis import method
        >>> check = method("discoveryengine", "v1", "CheckGrounding")
        >>> wire_violations(check, b"\x1a\x00" * 1_000)  # facts: 1,000 empty ones
        [('facts', 'has more than 200 facts; at most 200 are allowed')]
    """
    checker = _Checker(method.version, "fields")
    try:
        _scan_message(raw, 0, len(raw), _request_type(method), "", "", checker, 0)
    except _Stop:
        pass
    except _Malformed:
        return []
    return checker.violations


def _request_type(method: Method) -> Descriptor:
    return cast(Descriptor, method.request_class.DESCRIPTOR)


_MAX_DEPTH = 100
"""protobuf's own nesting limit; deeper messages are the parser's to refuse."""


def _scan_message(
    raw: bytes,
    position: int,
    end: int,
    message: Descriptor,
    key: str,
    path: str,
    checker: _Checker,
    depth: int,
) -> None:
    if depth > _MAX_DEPTH:
        raise _Malformed
    fields = message.fields_by_number
    counts: dict[int, int] = {}
    while position < end:
        checker.value()
        tag, position = _varint(raw, position, end)
        wire_type = tag & 7
        if wire_type == 0:
            _, position = _varint(raw, position, end)
        elif wire_type == 1:
            position += 8
        elif wire_type == 5:
            position += 4
        elif wire_type == 2:
            size, position = _varint(raw, position, end)
            if position + size > end:
                raise _Malformed
            field = fields.get(tag >> 3)
            if field is not None:
                _scan_field(
                    raw, position, position + size, field, key, path, counts, checker, depth
                )
            position += size
        else:
            raise _Malformed
    if position != end:
        raise _Malformed


def _scan_field(
    raw: bytes,
    start: int,
    end: int,
    field: FieldDescriptor,
    parent_key: str,
    parent_path: str,
    counts: dict[int, int],
    checker: _Checker,
    depth: int,
) -> None:
    key = _joined(parent_key, field.name)
    path = _joined(parent_path, field.name)
    if field.is_repeated:
        count = counts.get(field.number, 0) + 1
        counts[field.number] = count
        checker.element(key, path, count)
        path = f"{path}[{count - 1}]"
    if field.message_type is not None:
        _scan_message(raw, start, end, field.message_type, key, path, checker, depth + 1)
    elif field.type == FieldDescriptor.TYPE_STRING:
        checker.text(key, path, end - start, functools.partial(_utf8, raw, start, end))


def _utf8(raw: bytes, start: int, end: int) -> str:
    try:
        return str(memoryview(raw)[start:end], "utf-8")
    except UnicodeDecodeError:
        raise _Malformed from None


def _varint(raw: bytes, position: int, end: int) -> tuple[int, int]:
    result = shift = 0
    while position < end and shift < 64:
        byte = raw[position]
        position += 1
        result |= (byte & 0x7F) << shift
        if byte < 0x80:
            return result, position
        shift += 7
    raise _Malformed


_JSON_TOKEN = re.compile(
    rb'"[^"\\]*+(?:\\.[^"\\]*+)*+(?:"|\\?\Z)|[{}\[\],:]|[^\s{}\[\],:"]++', re.DOTALL
)
"""A string (to its end, or to the end of the body if it has none), a structural character, or
a number or literal. Every character but whitespace starts a token, and no quantifier gives
back, so one pass over the body finds them all."""


@dataclass
class _Value:
    """Where a JSON value sits: unindexed proto path, path for messages, and its message type."""

    key: str
    path: str
    message: Descriptor | None
    repeated: bool = False


@dataclass
class _Frame:
    """An open object (its field for the next value) or array (its elements' place and count)."""

    place: _Value
    is_array: bool
    next_value: _Value | None = None
    count: int = 0


def _unknown(place: _Value) -> _Value:
    """A value in no field the limits know, inside `place`: no rule, but its path for messages."""
    return _Value("", place.path, None)


def json_violations(method: Method, body: bytes) -> list[Violation]:
    """What a REST body breaks (one request, or an array of them for a stream), found unparsed.

    Example:
        >>> from groundwire.contract.apis import method
        >>> check = method("discoveryengine", "v1", "CheckGrounding")
        >>> json_violations(check, b'{"facts": [' + b"{}," * 300 + b'{}]}')
        [('facts', 'has more than 200 facts; at most 200 are allowed')]
    """
    checker = _Checker(method.version, "JSON values")
    root = _Value("", "", _request_type(method), repeated=method.server_streaming)
    try:
        _scan_json(body, root, checker)
    except _Stop:
        pass
    except _Malformed:
        return []
    return checker.violations


def _scan_json(body: bytes, root: _Value, checker: _Checker) -> None:
    stack: list[_Frame] = []
    done = False
    previous = 0x2C  # as if after a ",": a body may not start with ":" or ","
    for token in _JSON_TOKEN.finditer(body):
        start, end = token.span()
        first = body[start]
        if first in b":," and previous in b":,[{":
            raise _Malformed  # so every ":" and "," follows a value, which `checker` counts
        previous = first
        if first == 0x3A:  # ":" sits between a key and its value
            continue
        if first in b"}]":
            if not stack:
                raise _Malformed
            stack.pop()
            done = not stack
            continue
        if done:
            raise _Malformed
        frame = stack[-1] if stack else None
        if first == 0x2C:  # ","
            if frame is None:
                raise _Malformed
            frame.next_value = None
            continue
        if frame is not None and not frame.is_array and frame.next_value is None:
            frame.next_value = _field_place(frame.place, body, start, end)
            continue
        place = _element_place(frame, checker) if frame is not None else root
        checker.value()
        if first == 0x7B:  # "{"
            stack.append(_Frame(place, is_array=False))
        elif first == 0x5B:  # "["
            stack.append(_Frame(place, is_array=True))
        elif first == 0x22:  # '"'
            checker.text(
                place.key,
                place.path,
                end - start - 2,
                functools.partial(_json_text, body, start, end),
            )
            done = frame is None
        else:
            done = frame is None


def _element_place(frame: _Frame, checker: _Checker) -> _Value:
    """The place of the value starting now in `frame`: an object's field, or an array's element."""
    if not frame.is_array:
        assert frame.next_value is not None
        return frame.next_value
    frame.count += 1
    place = frame.place
    if not place.repeated:
        return _unknown(place)
    checker.element(place.key, place.path, frame.count)
    path = f"{place.path}[{frame.count - 1}]" if place.path else ""  # a stream's requests: ""
    return _Value(place.key, path, place.message)


def _field_place(place: _Value, body: bytes, start: int, end: int) -> _Value:
    """The place of the field a key names in an object at `place` (nowhere when unknown)."""
    if place.message is None or end - start > _LONGEST_KEY:
        return _unknown(place)
    field = _fields_by_json_key(place.message).get(_json_text(body, start, end))
    if field is None:
        return _unknown(place)
    message = field.message_type
    is_map = message is not None and message.GetOptions().map_entry
    return _Value(
        _joined(place.key, field.name),
        _joined(place.path, field.name),
        None if is_map else message,
        repeated=field.is_repeated and not is_map,
    )


_LONGEST_KEY = 200
_json_keys: dict[Descriptor, dict[str, FieldDescriptor]] = {}


def _fields_by_json_key(message: Descriptor) -> dict[str, FieldDescriptor]:
    """A message's fields by the keys proto3 JSON accepts for them: JSON name, then proto name."""
    found = _json_keys.get(message)
    if found is None:
        found = {field.name: field for field in message.fields}
        found.update({field.json_name: field for field in message.fields})
        _json_keys[message] = found
    return found


def _json_text(body: bytes, start: int, end: int) -> str:
    try:
        text = json.loads(body[start:end])
    except ValueError:
        raise _Malformed from None
    if not isinstance(text, str):
        raise _Malformed
    return text
