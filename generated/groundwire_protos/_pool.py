"""The private descriptor pool of groundwire's stubs (written by make generate).

Google's official clients register the same proto names (for example
`google.cloud.discoveryengine.v1.GroundingFact`) in protobuf's default pool;
a second registration there fails with "duplicate symbol". Our stubs register
here instead, so both libraries can live in one process and still exchange
messages through their (identical) wire format.
"""

from google.api import annotations_pb2, client_pb2, field_behavior_pb2, resource_pb2
from google.protobuf import descriptor, descriptor_pool
from google.type import date_pb2

POOL = descriptor_pool.DescriptorPool()


def _add_with_dependencies(file: descriptor.FileDescriptor, added: set[str]) -> None:
    if file.name in added:
        return
    for dependency in file.dependencies:
        _add_with_dependencies(dependency, added)
    POOL.AddSerializedFile(file.serialized_pb)
    added.add(file.name)


def _add_common_protos() -> None:
    added: set[str] = set()
    for module in (annotations_pb2, client_pb2, field_behavior_pb2, resource_pb2, date_pb2):
        _add_with_dependencies(module.DESCRIPTOR, added)


_add_common_protos()
