"""What the official Google packages publish, read from their descriptors and transports.

These packages are test-only dependencies; they are the reference our hand-written
protos must match on the wire.
"""

from __future__ import annotations

import importlib
import importlib.util
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import grpc
from google.protobuf import descriptor

OURS = "groundwire_protos.google.cloud"


@dataclass(frozen=True)
class Package:
    """One proto package: our stub modules and the official proto-plus module."""

    proto_package: str  # e.g. google.cloud.discoveryengine.v1
    official_module: str  # e.g. google.cloud.discoveryengine_v1
    our_modules: tuple[str, ...]  # modules under groundwire_protos holding the messages
    service: str
    messages: tuple[str, ...]  # top-level messages compared field by field, with all nesting
    subset_messages: tuple[str, ...] = ()  # messages we define only in part

    def official(self) -> ModuleType:
        return importlib.import_module(self.official_module)

    def our_message(self, name: str) -> descriptor.Descriptor:
        for module_name in self.our_modules:
            module = importlib.import_module(f"{OURS}.{module_name}")
            if name in module.DESCRIPTOR.message_types_by_name:
                return module.DESCRIPTOR.message_types_by_name[name]
        raise KeyError(name)

    def our_service(self) -> descriptor.ServiceDescriptor:
        for module_name in self.our_modules:
            module = importlib.import_module(f"{OURS}.{module_name}")
            if self.service in module.DESCRIPTOR.services_by_name:
                return module.DESCRIPTOR.services_by_name[self.service]
        raise KeyError(self.service)

    def official_message(self, name: str) -> descriptor.Descriptor:
        official = self.official()
        proto_plus_type = getattr(official, name, None)
        if proto_plus_type is None:  # not re-exported at the package top
            types_module = importlib.import_module(
                f"{self.official_module}.types.grounded_generation_service"
            )
            proto_plus_type = getattr(types_module, name)
        return proto_plus_type.pb().DESCRIPTOR


DISCOVERY_MESSAGES = (
    "GroundingFact",
    "FactChunk",
    "CheckGroundingSpec",
    "CheckGroundingRequest",
    "CheckGroundingResponse",
    "GroundedGenerationContent",
    "GenerateGroundedContentRequest",
    "GenerateGroundedContentResponse",
)
DISCOVERY_MODULES = (
    "discoveryengine.{v}.grounding_pb2",
    "discoveryengine.{v}.check_grounding_pb2",
    "discoveryengine.{v}.grounded_generation_pb2",
    "discoveryengine.{v}.grounded_generation_service_pb2",
)


def _discovery(version: str, messages: tuple[str, ...]) -> Package:
    return Package(
        proto_package=f"google.cloud.discoveryengine.{version}",
        official_module=f"google.cloud.discoveryengine_{version}",
        our_modules=tuple(m.format(v=version) for m in DISCOVERY_MODULES),
        service="GroundedGenerationService",
        messages=messages,
    )


V1 = _discovery("v1", DISCOVERY_MESSAGES)
V1BETA = _discovery("v1beta", (*DISCOVERY_MESSAGES, "Citation", "CitationMetadata"))
# The official v1alpha package publishes CheckGrounding only; its generation
# messages are checked against v1 instead (see test_v1alpha_generation_agrees_with_v1).
V1ALPHA = _discovery("v1alpha", DISCOVERY_MESSAGES[:5])
AIPLATFORM = Package(
    proto_package="google.cloud.aiplatform.v1",
    official_module="google.cloud.aiplatform_v1",
    our_modules=(
        "aiplatform.v1.content_pb2",
        "aiplatform.v1.vertex_rag_data_pb2",
        "aiplatform.v1.vertex_rag_service_pb2",
    ),
    service="VertexRagService",
    messages=("CorroborateContentRequest", "CorroborateContentResponse", "Fact", "Claim"),
    subset_messages=("Content", "Part", "RagChunk"),
)
PACKAGES = (V1, V1BETA, V1ALPHA, AIPLATFORM)


class _RecordingChannel:
    """Stands in for a channel; records which stub kind and path a transport asks for."""

    def __init__(self) -> None:
        self.methods: dict[str, str] = {}

    def _record(self, kind: str) -> Any:
        def make_stub(path: str, **_: Any) -> object:
            self.methods[path] = kind
            return object()

        return make_stub

    def __getattr__(self, kind: str) -> Any:
        if kind in ("unary_unary", "unary_stream", "stream_unary", "stream_stream"):
            return self._record(kind)
        raise AttributeError(kind)


def official_methods(package: Package, names: tuple[str, ...]) -> dict[str, str]:
    """gRPC method path -> stub kind, as the official gRPC transport builds them."""
    services = importlib.import_module(f"{package.official_module}.services")
    service_module = next(
        importlib.import_module(f"{services.__name__}.{name}.transports.grpc")
        for name in ("grounded_generation_service", "vertex_rag_service")
        if importlib.util.find_spec(f"{services.__name__}.{name}") is not None
    )
    transport_class = next(
        v for k, v in vars(service_module).items() if k.endswith("GrpcTransport")
    )
    channel = grpc.insecure_channel("127.0.0.1:9")
    try:
        transport = transport_class(channel=channel, credentials=None)
    except TypeError:
        transport = transport_class(channel=channel)
    recorder = _RecordingChannel()
    transport._logged_channel = recorder
    transport._stubs = {}
    for name in names:
        if hasattr(type(transport), name):  # v1alpha's transport lacks generation
            getattr(transport, name)
    channel.close()
    return recorder.methods


def official_http_rule(package: Package, method: str) -> list[dict[str, str]]:
    """The REST transport's http options for one method (method, uri, body)."""
    services = importlib.import_module(f"{package.official_module}.services")
    for name in ("grounded_generation_service", "vertex_rag_service"):
        spec_name = f"{services.__name__}.{name}"
        if importlib.util.find_spec(spec_name) is None:
            continue
        rest_base = importlib.import_module(f"{spec_name}.transports.rest_base")
        base = next(
            v
            for k, v in vars(rest_base).items()
            if k.startswith("_Base") and k.endswith("RestTransport")
        )
        return list(getattr(base, f"_Base{method}")._get_http_options())
    raise KeyError(method)


CASES_FOR_ROUND_TRIP = [
    (package, name)
    for package in PACKAGES
    for name in (*package.messages, *package.subset_messages)
]
