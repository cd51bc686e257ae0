"""Our protos' field behaviors and resource references are Google's, pinned field by field."""

from __future__ import annotations

import importlib
import pkgutil

import groundwire_protos.google.cloud
import pytest
from google.api import field_behavior_pb2, resource_pb2
from google.protobuf import descriptor

from tests.protos.published_annotations import (
    COMMON_RESOURCES,
    FIELDS,
    RESOURCES,
    Messages,
    Published,
)


def our_files() -> list[descriptor.FileDescriptor]:
    """Every file of our protos, found by walking the generated package."""
    root = groundwire_protos.google.cloud
    return [
        importlib.import_module(module.name).DESCRIPTOR
        for module in pkgutil.walk_packages(root.__path__, f"{root.__name__}.")
        if module.name.endswith("_pb2")
    ]


def annotations_of(field: descriptor.FieldDescriptor) -> Published:
    """What our proto says about a field, in the table's terms."""
    options = field.GetOptions()
    behaviors = options.Extensions[field_behavior_pb2.field_behavior]
    reference = options.Extensions[resource_pb2.resource_reference]
    return Published(
        behavior=tuple(field_behavior_pb2.FieldBehavior.Name(b) for b in behaviors),
        type=reference.type,
        child_type=reference.child_type,
    )


def _add_message(message: descriptor.Descriptor, package: str, into: Messages) -> None:
    if message.GetOptions().map_entry:  # synthesised for map fields; cannot carry options
        return
    name = message.full_name.removeprefix(f"{package}.")
    into[name] = {field.name: annotations_of(field) for field in message.fields}
    for nested in message.nested_types:
        _add_message(nested, package, into)


def our_annotations() -> dict[str, Messages]:
    """Proto package -> message -> field -> annotations, for every message we define."""
    packages: dict[str, Messages] = {}
    for file in our_files():
        messages = packages.setdefault(file.package, {})
        for message in file.message_types_by_name.values():
            _add_message(message, file.package, messages)
    return packages


def our_resource_definitions() -> dict[str, dict[str, tuple[str, ...]]]:
    """Proto package -> resource type -> patterns, from our files' resource_definition."""
    packages: dict[str, dict[str, tuple[str, ...]]] = {}
    for file in our_files():
        definitions = packages.setdefault(file.package, {})
        for resource in file.GetOptions().Extensions[resource_pb2.resource_definition]:
            assert resource.type not in definitions, f"{resource.type} defined twice"
            definitions[resource.type] = tuple(resource.pattern)
    return packages


OURS = our_annotations()
PACKAGES = sorted(OURS)


def test_the_table_covers_every_package_we_define() -> None:
    assert sorted(FIELDS) == PACKAGES
    assert sorted(RESOURCES) == PACKAGES


@pytest.mark.parametrize("package", PACKAGES)
def test_every_field_of_every_message_has_a_published_entry(package: str) -> None:
    ours = {(message, field) for message, fields in OURS[package].items() for field in fields}
    table = {(message, field) for message, fields in FIELDS[package].items() for field in fields}
    assert sorted(ours - table) == [], "unpinned: add Google's values (or NONE) to the table"
    assert sorted(table - ours) == [], "pinned but not in our protos"
    assert sorted(OURS[package]) == sorted(FIELDS[package]), "messages without fields count too"


@pytest.mark.parametrize("package", PACKAGES)
def test_field_behaviors_and_resource_references_are_googles(package: str) -> None:
    differences = {
        f"{message}.{field}": f"ours {ours} != published {FIELDS[package][message][field]}"
        for message, fields in OURS[package].items()
        for field, ours in fields.items()
        if FIELDS[package].get(message, {}).get(field, ours) != ours
    }
    assert differences == {}


@pytest.mark.parametrize("package", PACKAGES)
def test_every_referenced_resource_is_defined_with_googles_patterns(package: str) -> None:
    defined = {**COMMON_RESOURCES, **our_resource_definitions().get(package, {})}
    referenced = {
        resource
        for fields in OURS[package].values()
        for annotations in fields.values()
        for resource in (annotations.type, annotations.child_type)
        if resource
    }
    assert sorted(referenced - defined.keys()) == []
    assert our_resource_definitions().get(package, {}) == RESOURCES[package]


def test_discovery_engine_locations_are_discovery_engines_own() -> None:
    for package, messages in OURS.items():
        if ".discoveryengine." in package:
            location = messages["GenerateGroundedContentRequest"]["location"]
            assert location.type == "discoveryengine.googleapis.com/Location", package
