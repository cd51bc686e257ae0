from google.api import annotations_pb2 as _annotations_pb2
from google.api import client_pb2 as _client_pb2
from groundwire_protos.google.cloud.discoveryengine.v1 import check_grounding_pb2 as _check_grounding_pb2
from groundwire_protos.google.cloud.discoveryengine.v1 import grounded_generation_pb2 as _grounded_generation_pb2
from google.protobuf import descriptor as _descriptor
from typing import ClassVar as _ClassVar

DESCRIPTOR: _descriptor.FileDescriptor
