"""The fast JSON decoder gives exactly what json_format.ParseDict gives, or raises what it raises.

Random responses of every type are written with `json_format.MessageToDict` in each of its
styles, sometimes with unknown keys or with values replaced by arbitrary JSON, and decoded
both ways; the messages (or the errors) must be identical.
"""

from __future__ import annotations

import json
from typing import Any, TypedDict

import pytest
from google.protobuf import descriptor, json_format
from google.protobuf.message import Message
from groundwire_protos.google.cloud.discoveryengine.v1.check_grounding_pb2 import (
    CheckGroundingResponse,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from groundwire.contract import apis
from groundwire.contract.errors import InvalidArgument
from groundwire.contract.json_decode import UNREADABLE_KEY, message_from_json, schema_for
from groundwire.contract.transcoding import decode_message
from tests.support.typed import descriptor_of, typed

RESPONSE_CLASSES = sorted(
    {method.response_class for method in apis.all_methods()},
    key=lambda cls: cls.DESCRIPTOR.full_name,
)
REQUEST_CLASSES = sorted(
    {method.request_class for method in apis.all_methods()},
    key=lambda cls: cls.DESCRIPTOR.full_name,
)
CHECK = apis.method("discoveryengine", "v1", "CheckGrounding").response_class
EXAMPLES = settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

Field = descriptor.FieldDescriptor
_INTEGER_RANGES = {
    Field.TYPE_INT32: (-(2**31), 2**31 - 1),
    Field.TYPE_SINT32: (-(2**31), 2**31 - 1),
    Field.TYPE_SFIXED32: (-(2**31), 2**31 - 1),
    Field.TYPE_UINT32: (0, 2**32 - 1),
    Field.TYPE_FIXED32: (0, 2**32 - 1),
    Field.TYPE_INT64: (-(2**63), 2**63 - 1),
    Field.TYPE_SINT64: (-(2**63), 2**63 - 1),
    Field.TYPE_SFIXED64: (-(2**63), 2**63 - 1),
    Field.TYPE_UINT64: (0, 2**64 - 1),
    Field.TYPE_FIXED64: (0, 2**64 - 1),
}
json_scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats()
    | st.text(max_size=8)
    | st.sampled_from(
        [
            "NaN",
            "Infinity",
            "-Infinity",
            "1",
            "1.5",
            "1e3",
            "true",
            "AAEC",
            "YWJj",
            "-_8",
            "ENUM_X",
            "\ud800",
        ]
    )
)
json_values = st.recursive(
    json_scalars,
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=8), children, max_size=3)
    ),
    max_leaves=8,
)


def _scalars(field: descriptor.FieldDescriptor) -> st.SearchStrategy[Any]:
    if field.type in _INTEGER_RANGES:
        low, high = _INTEGER_RANGES[field.type]
        return st.integers(low, high)
    if field.type == Field.TYPE_ENUM:
        enum = field.enum_type
        assert enum is not None, f"{field.full_name} is an enum field without an enum type"
        known = st.sampled_from([value.number for value in enum.values])
        return known if enum.is_closed else known | st.integers(-(2**31), 2**31 - 1)
    return {
        Field.TYPE_STRING: st.text(max_size=12),
        Field.TYPE_BYTES: st.binary(max_size=12),
        Field.TYPE_BOOL: st.booleans(),
        Field.TYPE_FLOAT: st.floats(width=32),
        Field.TYPE_DOUBLE: st.floats(),
    }[field.type]


def _values(field: descriptor.FieldDescriptor, depth: int) -> st.SearchStrategy[Any]:
    if field.message_type is None:
        return _scalars(field)
    return messages(field.message_type, depth + 1)


@st.composite
def _message(draw: st.DrawFn, message_type: descriptor.Descriptor, depth: int) -> Message:
    from google.protobuf import message_factory

    built = message_factory.GetMessageClass(message_type)()
    if depth > 4:
        return built
    for field in message_type.fields:
        if not draw(st.booleans()):
            continue
        target: Any = getattr(built, field.name) if field.is_repeated else None
        if field.message_type is not None and field.message_type.GetOptions().map_entry:
            key_field, value_field = (
                field.message_type.fields_by_name[name] for name in ("key", "value")
            )
            entries = draw(
                st.dictionaries(_scalars(key_field), _values(value_field, depth), max_size=3)
            )
            for key, value in entries.items():
                if value_field.message_type is None:
                    target[key] = value
                else:
                    target[key].CopyFrom(value)
        elif field.is_repeated:
            items = draw(st.lists(_values(field, depth), max_size=3))
            if field.message_type is None:
                target.extend(items)
            else:
                for item in items:
                    target.add().CopyFrom(item)
        elif field.message_type is not None:
            getattr(built, field.name).CopyFrom(draw(_values(field, depth)))
        else:
            setattr(built, field.name, draw(_values(field, depth)))
    return built


def messages(message_type: descriptor.Descriptor, depth: int = 0) -> st.SearchStrategy[Message]:
    """Random messages of a type: every field maybe set, nested ones and maps included."""
    return _message(message_type, depth)


class JsonStyle(TypedDict):
    """The `json_format.MessageToDict` options that change how a message is written."""

    use_integers_for_enums: bool
    preserving_proto_field_name: bool
    always_print_fields_with_no_presence: bool


json_styles = st.fixed_dictionaries(
    {
        "use_integers_for_enums": st.booleans(),
        "preserving_proto_field_name": st.booleans(),
        "always_print_fields_with_no_presence": st.booleans(),
    }
)


def _reference(json_object: Any, message_class: type[Message]) -> Message:
    """json_format's answer, but for the one failure ours types: upb's SystemError on a key."""
    target = message_class()
    try:
        json_format.ParseDict(json_object, target, ignore_unknown_fields=True)
    except (SystemError, UnicodeError):
        raise json_format.ParseError(UNREADABLE_KEY) from None
    return target


def _outcome(decode: Any, json_object: Any, message_class: type[Message]) -> tuple[Any, ...]:
    try:
        decoded = decode(json_object, message_class)
    except Exception as error:
        return ("raised", type(error), str(error))
    return (
        "decoded",
        decoded.SerializeToString(deterministic=True),
        [field.name for field, _ in decoded.ListFields()],
    )


def _objects(json_value: Any) -> list[dict[str, Any]]:
    """Every JSON object in a decoded document, outermost first."""
    found: list[dict[str, Any]] = []
    pending = [json_value]
    while pending:
        item = pending.pop()
        if isinstance(item, dict):
            found.append(item)
            pending.extend(item.values())
        elif isinstance(item, list):
            pending.extend(item)
    return found


def _assert_same(json_object: Any, message_class: type[Message]) -> None:
    expected = _outcome(_reference, json_object, message_class)
    assert _outcome(message_from_json, json_object, message_class) == expected


@pytest.mark.parametrize(
    "message_class", RESPONSE_CLASSES, ids=lambda cls: cls.DESCRIPTOR.full_name
)
@EXAMPLES
@given(data=st.data(), style=json_styles)
def test_every_response_decodes_exactly_as_json_format_does(
    message_class: type[Message], data: st.DataObject, style: JsonStyle
) -> None:
    original = data.draw(messages(descriptor_of(message_class)))
    json_object = json.loads(json.dumps(json_format.MessageToDict(original, **style)))
    _assert_same(json_object, message_class)


@pytest.mark.parametrize("message_class", REQUEST_CLASSES, ids=lambda cls: cls.DESCRIPTOR.full_name)
@settings(EXAMPLES, max_examples=40)
@given(data=st.data(), style=json_styles)
def test_requests_decode_exactly_as_json_format_does_too(
    message_class: type[Message], data: st.DataObject, style: JsonStyle
) -> None:
    original = data.draw(messages(descriptor_of(message_class)))
    json_object = json.loads(json.dumps(json_format.MessageToDict(original, **style)))
    _assert_same(json_object, message_class)


@pytest.mark.parametrize(
    "message_class", RESPONSE_CLASSES, ids=lambda cls: cls.DESCRIPTOR.full_name
)
@EXAMPLES
@given(data=st.data(), style=json_styles)
def test_unknown_keys_anywhere_are_ignored_alike(
    message_class: type[Message], data: st.DataObject, style: JsonStyle
) -> None:
    original = data.draw(messages(descriptor_of(message_class)))
    json_object = json_format.MessageToDict(original, **style)
    for target in _objects(json_object):
        extra = data.draw(st.dictionaries(st.text(max_size=10), json_values, max_size=2))
        target.update({f"x{key}": value for key, value in extra.items()})
    _assert_same(json_object, message_class)


@pytest.mark.parametrize(
    "message_class", RESPONSE_CLASSES, ids=lambda cls: cls.DESCRIPTOR.full_name
)
@EXAMPLES
@given(data=st.data(), style=json_styles)
def test_values_replaced_by_any_json_give_the_same_message_or_the_same_error(
    message_class: type[Message], data: st.DataObject, style: JsonStyle
) -> None:
    original = data.draw(messages(descriptor_of(message_class)))
    json_object = json_format.MessageToDict(original, **style)
    for target in _objects(json_object):
        for key in list(target):
            if data.draw(st.integers(0, 3)) == 0:
                target[key] = data.draw(json_values)
        if data.draw(st.integers(0, 5)) == 0:
            target.update(
                data.draw(
                    st.dictionaries(
                        st.sampled_from(
                            [
                                *sorted(schema_for(descriptor_of(message_class)) or {}),
                                "[ext]",
                                "_support_score",
                                "data",
                            ]
                        ),
                        json_values,
                        max_size=2,
                    )
                )
            )
    _assert_same(json_object, message_class)


@pytest.mark.parametrize(
    ("json_object", "why"),
    [
        ({"supportScore": "0.5"}, "a number in a string"),
        ({"supportScore": "NaN"}, "a non-finite float"),
        ({"supportScore": float("inf")}, "an infinite float"),
        ({"supportScore": 1e39}, "a float beyond float32"),
        ({"supportScore": 10**400}, "an integer too large for a float"),
        ({"supportScore": True}, "a bool where a float is due"),
        ({"supportScore": None}, "null"),
        ({"supportScore": 0.5, "support_score": 0.25}, "a field by both its names"),
        ({"claims": [{"startPos": "3"}]}, "an integer in a string"),
        ({"claims": [{"startPos": 3.0}]}, "an integral float"),
        ({"claims": [{"startPos": 2**31}]}, "an integer out of range"),
        ({"claims": [None]}, "null in a list"),
        ({"claims": {"claimText": "a"}}, "an object for a list"),
        ({"citedChunks": [{"sourceMetadata": {"k": 1}}]}, "a number in a string map"),
        ({"citedChunks": [{"chunkText": "\ud800"}]}, "an unpaired surrogate"),
        ({"[google.ext]": 1}, "an extension-like key"),
    ],
)
def test_doubtful_inputs_are_left_to_json_format(json_object: dict[str, Any], why: str) -> None:
    _assert_same(json_object, CHECK)


def test_a_response_by_enum_names_or_numbers_decodes_alike() -> None:
    method = apis.method("discoveryengine", "v1", "GenerateGroundedContent")
    source = {
        "candidates": [
            {
                "groundingMetadata": {
                    "retrievalMetadata": [
                        {"source": "VERTEX_AI_SEARCH"},
                        {"source": 2},
                        {"source": 99},
                        {"source": "NEW_ONE"},
                    ]
                }
            }
        ]
    }
    _assert_same(source, method.response_class)


def test_a_typical_response_never_needs_json_format(monkeypatch: pytest.MonkeyPatch) -> None:
    response = typed(CheckGroundingResponse, CHECK(support_score=0.75))
    response.cited_chunks.add(chunk_text="東京タワー 🗼", source="0", source_metadata={"a": "b"})
    response.claims.add(
        start_pos=0,
        end_pos=12,
        claim_text="東京",
        citation_indices=[0, 1],
        grounding_check_required=True,
        score=0.5,
    )
    json_object = json.loads(json.dumps(json_format.MessageToDict(response)))

    def refuse(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("json_format was used")

    monkeypatch.setattr(json_format, "ParseDict", refuse)
    assert message_from_json(json_object, CHECK) == response


def test_a_rejected_body_is_the_same_groundwire_error_as_before() -> None:
    with pytest.raises(InvalidArgument, match="invalid JSON for CheckGroundingResponse") as fast:
        decode_message({"claims": [{"startPos": "x"}]}, CHECK)
    with pytest.raises(json_format.ParseError) as reference:
        _reference({"claims": [{"startPos": "x"}]}, CHECK)
    assert str(reference.value) in fast.value.message
