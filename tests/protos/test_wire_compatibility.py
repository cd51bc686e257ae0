"""Our hand-written protos match Google's published API on the wire, field by field."""

from __future__ import annotations

import importlib

import pytest
from google.protobuf import descriptor

from tests.protos.reference import (
    AIPLATFORM,
    PACKAGES,
    V1,
    V1ALPHA,
    Package,
    official_http_rule,
    official_methods,
)

FieldDescriptor = descriptor.FieldDescriptor


def field_facts(field: descriptor.FieldDescriptor) -> dict[str, object]:
    """Everything about a field that the binary or JSON wire format depends on."""
    oneof = field.containing_oneof
    synthetic = oneof is not None and oneof.name == f"_{field.name}"
    return {
        # proto-plus renames fields that clash with Python keywords ("license" -> "license_")
        "name": field.name.removesuffix("_"),
        "number": field.number,
        "type": field.type,
        "repeated": field.is_repeated,
        "type_name": (field.message_type or field.enum_type or field).full_name
        if field.message_type or field.enum_type
        else None,
        "oneof": None if oneof is None or synthetic else oneof.name,
        "proto3_optional": synthetic,
        "json_name": field.json_name,
    }


def compare_messages(
    ours: descriptor.Descriptor, theirs: descriptor.Descriptor, *, subset: bool = False
) -> list[str]:
    """Differences between two message descriptors, recursing into nested types."""
    problems: list[str] = []
    where = ours.full_name
    if ours.full_name != theirs.full_name:
        problems.append(f"{where}: named {theirs.full_name} officially")
    our_fields = {f.number: f for f in ours.fields}
    their_fields = {f.number: f for f in theirs.fields}
    for number, field in our_fields.items():
        if number not in their_fields:
            problems.append(f"{where}.{field.name} = {number}: not in the official API")
        elif field_facts(field) != field_facts(their_fields[number]):
            problems.append(
                f"{where}.{field.name}: {field_facts(field)} != {field_facts(their_fields[number])}"
            )
    if not subset:
        for number in their_fields.keys() - our_fields.keys():
            problems.append(f"{where}: missing {their_fields[number].name} = {number}")
    our_enums = {e.name: e for e in ours.enum_types}
    their_enums = {e.name: e for e in theirs.enum_types}
    for name in sorted(their_enums.keys() | our_enums.keys()):
        if name not in their_enums:
            problems.append(f"{where}.{name}: enum not in the official API")
        elif name not in our_enums:
            if not subset:
                problems.append(f"{where}: missing enum {name}")
        else:
            ours_values = [(v.name, v.number) for v in our_enums[name].values]
            theirs_values = [(v.name, v.number) for v in their_enums[name].values]
            if ours_values != theirs_values:
                problems.append(f"{where}.{name}: {ours_values} != {theirs_values}")
    our_nested = {m.name: m for m in ours.nested_types}
    their_nested = {m.name: m for m in theirs.nested_types}
    for name in sorted(our_nested.keys() | their_nested.keys()):
        if name not in their_nested:
            problems.append(f"{where}.{name}: message not in the official API")
        elif name not in our_nested:
            if not subset:
                problems.append(f"{where}: missing message {name}")
        else:
            problems += compare_messages(our_nested[name], their_nested[name], subset=subset)
    return problems


CASES = [(p, m, False) for p in PACKAGES for m in p.messages] + [
    (p, m, True) for p in PACKAGES for m in p.subset_messages
]


@pytest.mark.official
@pytest.mark.parametrize(
    ("package", "message", "subset"),
    CASES,
    ids=[f"{p.proto_package}.{m}" for p, m, _ in CASES],
)
def test_message_matches_the_official_descriptor(
    package: Package, message: str, subset: bool
) -> None:
    problems = compare_messages(
        package.our_message(message), package.official_message(message), subset=subset
    )
    assert problems == []


def test_v1alpha_check_grounding_lacks_what_v1alpha_lacks() -> None:
    spec = V1ALPHA.our_message("CheckGroundingSpec")
    response = V1ALPHA.our_message("CheckGroundingResponse")
    assert "enable_claim_level_score" not in spec.fields_by_name
    assert "cited_facts" not in response.fields_by_name
    assert "score" not in response.nested_types_by_name["Claim"].fields_by_name


GENERATION = (
    "GroundedGenerationContent",
    "GenerateGroundedContentRequest",
    "GenerateGroundedContentResponse",
)


@pytest.mark.official
@pytest.mark.parametrize("message", GENERATION)
def test_v1alpha_generation_agrees_with_v1_wherever_names_match(message: str) -> None:
    """v1alpha generation follows its REST reference; numbers and types are v1's."""

    def walk(ours: descriptor.Descriptor, v1: descriptor.Descriptor) -> list[str]:
        problems = []
        for field in ours.fields:
            counterpart = v1.fields_by_name.get(field.name)
            if counterpart is None:
                continue
            mine, theirs = field_facts(field), field_facts(counterpart)
            for facts in (mine, theirs):
                if facts["type_name"]:
                    facts["type_name"] = str(facts["type_name"]).replace(".v1alpha.", ".v1.")
            if mine != theirs:
                problems.append(f"{ours.full_name}.{field.name}: {mine} != {theirs}")
        for nested in ours.nested_types:
            if nested.name in v1.nested_types_by_name:
                problems += walk(nested, v1.nested_types_by_name[nested.name])
        return problems

    ours = V1ALPHA.our_message(message)
    v1 = V1.official_message(message)
    assert walk(ours, v1) == []
    assert ours.fields, "v1alpha defines the generation messages"


METHODS = {
    "GroundedGenerationService": {
        "CheckGrounding": ("check_grounding", "unary_unary"),
        "GenerateGroundedContent": ("generate_grounded_content", "unary_unary"),
        "StreamGenerateGroundedContent": ("stream_generate_grounded_content", "stream_stream"),
    },
    "VertexRagService": {"CorroborateContent": ("corroborate_content", "unary_unary")},
}


def our_kind(method: descriptor.MethodDescriptor) -> str:
    client = "stream" if method.client_streaming else "unary"
    server = "stream" if method.server_streaming else "unary"
    return f"{client}_{server}"


@pytest.mark.official
@pytest.mark.parametrize("package", PACKAGES, ids=[p.proto_package for p in PACKAGES])
def test_methods_match_the_official_grpc_transport(package: Package) -> None:
    service = package.our_service()
    expected = METHODS[service.name]
    assert sorted(m.name for m in service.methods) == sorted(expected)
    official_names = tuple(python_name for python_name, _ in expected.values())
    published = official_methods(package, official_names)
    assert published, "the official transport publishes methods"
    for method in service.methods:
        path = f"/{service.full_name}/{method.name}"
        if path in published:
            assert our_kind(method) == published[path], path
        else:  # only v1alpha generation, which the official v1alpha package lacks
            assert package is V1ALPHA
            assert method.name != "CheckGrounding"
            assert our_kind(method) == expected[method.name][1]


def our_http_rule(method: descriptor.MethodDescriptor) -> list[dict[str, str]]:
    from google.api import annotations_pb2

    rule = method.GetOptions().Extensions[annotations_pb2.http]
    verb = rule.WhichOneof("pattern")
    return [{"method": verb, "uri": getattr(rule, verb), "body": rule.body}]


@pytest.mark.official
@pytest.mark.parametrize("package", PACKAGES, ids=[p.proto_package for p in PACKAGES])
def test_http_rules_match_the_official_rest_transport(package: Package) -> None:
    service = package.our_service()
    version = package.proto_package.rsplit(".", 1)[1]
    for method in service.methods:
        ours = our_http_rule(method)
        try:
            theirs = official_http_rule(package, method.name)
        except AttributeError:  # no REST rule published (streaming, or v1alpha generation)
            v1_rule = V1.our_service().methods_by_name.get(method.name)
            reference = our_http_rule(v1_rule) if v1_rule else our_http_rule(method)
            theirs = [{**r, "uri": r["uri"].replace("/v1/", f"/{version}/", 1)} for r in reference]
        assert ours == theirs, method.full_name


def test_stream_rule_is_generate_rule_with_the_streaming_verb() -> None:
    for package in (p for p in PACKAGES if p is not AIPLATFORM):
        methods = package.our_service().methods_by_name
        unary = our_http_rule(methods["GenerateGroundedContent"])[0]["uri"]
        stream = our_http_rule(methods["StreamGenerateGroundedContent"])[0]["uri"]
        assert stream == unary.replace(":generateGroundedContent", ":streamGenerateGroundedContent")


def test_service_options_name_host_and_scope() -> None:
    from google.api import client_pb2

    for package, host in [
        (V1, "discoveryengine.googleapis.com"),
        (AIPLATFORM, "aiplatform.googleapis.com"),
    ]:
        options = package.our_service().GetOptions()
        assert options.Extensions[client_pb2.default_host] == host
        assert options.Extensions[client_pb2.oauth_scopes] == (
            "https://www.googleapis.com/auth/cloud-platform"
        )


def test_other_language_options_name_groundwire_packages() -> None:
    for package in PACKAGES:
        for module_name in package.our_modules:
            module = importlib.import_module(f"groundwire_protos.google.cloud.{module_name}")
            options = module.DESCRIPTOR.GetOptions()
            assert options.go_package.startswith("github.com/groundwire/groundwire/genproto/"), (
                module_name
            )
            assert options.java_package.startswith("dev.groundwire."), module_name
            assert options.csharp_namespace.startswith("Groundwire."), module_name
