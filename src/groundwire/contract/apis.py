"""Where each API's methods are, read from the stubs' descriptors: one registry for all code."""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from functools import cache
from typing import Literal

from google.protobuf import descriptor, message, message_factory

from groundwire.contract.paths import PathTemplate, parse_template
from groundwire.contract.version import DISCOVERY_VERSIONS

Api = Literal["discoveryengine", "aiplatform"]

_SERVICE_MODULES: dict[tuple[str, str], str] = {
    **{
        ("discoveryengine", version): (
            f"groundwire_protos.google.cloud.discoveryengine.{version}"
            ".grounded_generation_service_pb2"
        )
        for version in DISCOVERY_VERSIONS
    },
    ("aiplatform", "v1"): "groundwire_protos.google.cloud.aiplatform.v1.vertex_rag_service_pb2",
}


@dataclass(frozen=True)
class HttpRule:
    """A method's `google.api.http` rule: `POST /v1/{location=projects/*/locations/*}:verb`."""

    verb: str
    template: str
    body: str
    path: PathTemplate
    """The template, parsed."""


@dataclass(frozen=True)
class Method:
    """Everything a transport needs to call one RPC, derived from its descriptor."""

    api: str
    version: str
    name: str
    grpc_path: str
    request_class: type[message.Message]
    response_class: type[message.Message]
    client_streaming: bool
    server_streaming: bool
    http: HttpRule
    default_host: str
    routing_field: str
    """The request field bound in the URL path (`grounding_config`, `location`, `parent`)."""


def _http_rule(method_descriptor: descriptor.MethodDescriptor) -> HttpRule:
    from google.api import annotations_pb2

    rule = method_descriptor.GetOptions().Extensions[annotations_pb2.http]
    verb = rule.WhichOneof("pattern")
    if verb is None or verb == "custom":
        raise ValueError(f"{method_descriptor.full_name} has no plain google.api.http rule")
    template = getattr(rule, verb)
    return HttpRule(verb.upper(), template, rule.body, parse_template(template))


@cache
def service_descriptor(api: str, version: str) -> descriptor.ServiceDescriptor:
    """The service descriptor of `api` at `version`, importing its stubs on first use.

    >>> service_descriptor("discoveryengine", "v1").name
    'GroundedGenerationService'
    """
    try:
        module_name = _SERVICE_MODULES[(api, version)]
    except KeyError:
        known = ", ".join(f"{a} {v}" for a, v in _SERVICE_MODULES)
        raise ValueError(f"unknown API {api} {version}; known: {known}") from None
    module = importlib.import_module(module_name)
    (service,) = module.DESCRIPTOR.services_by_name.values()
    found: descriptor.ServiceDescriptor = service
    return found


@cache
def method(api: str, version: str, name: str) -> Method:
    """Looks up one RPC, e.g. `method("discoveryengine", "v1", "CheckGrounding")`.

    >>> method("aiplatform", "v1", "CorroborateContent").http.verb
    'POST'
    """
    from google.api import client_pb2

    service = service_descriptor(api, version)
    found = service.methods_by_name.get(name)
    if found is None:
        raise ValueError(f"{service.full_name} has no method {name}")
    http = _http_rule(found)
    return Method(
        api=api,
        version=version,
        name=name,
        grpc_path=f"/{service.full_name}/{name}",
        request_class=message_factory.GetMessageClass(found.input_type),
        response_class=message_factory.GetMessageClass(found.output_type),
        client_streaming=found.client_streaming,
        server_streaming=found.server_streaming,
        http=http,
        default_host=service.GetOptions().Extensions[client_pb2.default_host],
        routing_field=http.path.fields[0],
    )


def all_methods() -> list[Method]:
    """Every RPC groundwire knows, across APIs and versions (the emulator serves them all)."""
    return [
        method(api, version, m.name)
        for (api, version) in _SERVICE_MODULES
        for m in service_descriptor(api, version).methods
    ]
