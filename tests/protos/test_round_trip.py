"""Bytes and JSON written by the official clients parse with our stubs, and back."""

from __future__ import annotations

import pytest
from google.protobuf import descriptor, json_format, message

from tests.protos.reference import CASES_FOR_ROUND_TRIP, Package

FieldDescriptor = descriptor.FieldDescriptor

SCALARS: dict[int, object] = {
    FieldDescriptor.TYPE_STRING: "東京 – café 👩‍👩‍👧",
    FieldDescriptor.TYPE_BYTES: b"\x00\xffgroundwire",
    FieldDescriptor.TYPE_BOOL: True,
    FieldDescriptor.TYPE_INT32: -7,
    FieldDescriptor.TYPE_INT64: 1 << 40,
    FieldDescriptor.TYPE_DOUBLE: 0.625,
    FieldDescriptor.TYPE_FLOAT: 0.5,
}


def fill(
    target: message.Message, allowed: descriptor.Descriptor, oneof_choice: int, depth: int = 0
) -> None:
    """Sets every field of `target` that `allowed` (our descriptor) also has.

    For each real oneof, the member at position `oneof_choice` (modulo its size) is set,
    so that running with several choices covers every member.
    """
    for field in target.DESCRIPTOR.fields:
        field_name = field.name.removesuffix("_")
        ours = next((f for f in allowed.fields if f.name == field_name), None)
        if ours is None:
            continue
        oneof = field.containing_oneof
        if oneof is not None and oneof.name != f"_{field.name}":
            members = [m for m in oneof.fields if m.name in allowed.fields_by_name]
            if members[oneof_choice % len(members)] is not field:
                continue
        if field.message_type is not None and field.message_type.GetOptions().map_entry:
            getattr(target, field.name)["key-1"] = "value ✓"
            continue
        if field.message_type is not None:
            if depth > 6:
                continue
            assert ours.message_type is not None, f"{ours.full_name} is a message field"
            child = (
                getattr(target, field.name).add()
                if field.is_repeated
                else getattr(target, field.name)
            )
            fill(child, ours.message_type, oneof_choice, depth + 1)
            if not field.is_repeated:
                child.SetInParent()
            continue
        value = field.enum_type.values[-1].number if field.enum_type else SCALARS[field.type]
        if field.is_repeated:
            getattr(target, field.name).extend([value, value])
        else:
            setattr(target, field.name, value)


def python_class(descriptor_: descriptor.Descriptor) -> type[message.Message]:
    from google.protobuf import message_factory

    return message_factory.GetMessageClass(descriptor_)


@pytest.mark.official
@pytest.mark.parametrize("oneof_choice", [0, 1, 2, 3])
@pytest.mark.parametrize(
    ("package", "name"),
    CASES_FOR_ROUND_TRIP,
    ids=[f"{p.proto_package}.{n}" for p, n in CASES_FOR_ROUND_TRIP],
)
def test_official_bytes_parse_with_ours_and_back(
    package: Package, name: str, oneof_choice: int
) -> None:
    ours_descriptor = package.our_message(name)
    theirs = python_class(package.official_message(name))()
    fill(theirs, ours_descriptor, oneof_choice)
    wire = theirs.SerializeToString(deterministic=True)
    assert wire, "the filler set fields"

    ours = python_class(ours_descriptor).FromString(wire)
    assert ours.SerializeToString(deterministic=True) == wire
    # JSON leaves unknown fields out, so equal JSON means we know every field they sent.
    assert json_format.MessageToDict(ours) == json_format.MessageToDict(theirs)

    back = type(theirs).FromString(ours.SerializeToString())
    assert back == theirs


@pytest.mark.official
@pytest.mark.parametrize(
    ("package", "name"),
    CASES_FOR_ROUND_TRIP,
    ids=[f"{p.proto_package}.{n}" for p, n in CASES_FOR_ROUND_TRIP],
)
def test_our_json_parses_with_the_official_types(package: Package, name: str) -> None:
    ours_descriptor = package.our_message(name)
    ours = python_class(ours_descriptor)()
    fill(ours, ours_descriptor, 0)
    theirs = python_class(package.official_message(name))()
    json_format.Parse(json_format.MessageToJson(ours), theirs)
    assert theirs.SerializeToString(deterministic=True) == ours.SerializeToString(
        deterministic=True
    )
