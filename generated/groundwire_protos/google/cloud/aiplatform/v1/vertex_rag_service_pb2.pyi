from google.api import annotations_pb2 as _annotations_pb2
from google.api import client_pb2 as _client_pb2
from google.api import field_behavior_pb2 as _field_behavior_pb2
from google.api import resource_pb2 as _resource_pb2
from groundwire_protos.google.cloud.aiplatform.v1 import content_pb2 as _content_pb2
from groundwire_protos.google.cloud.aiplatform.v1 import vertex_rag_data_pb2 as _vertex_rag_data_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class CorroborateContentRequest(_message.Message):
    __slots__ = ("parent", "content", "facts", "parameters")
    class Parameters(_message.Message):
        __slots__ = ("citation_threshold",)
        CITATION_THRESHOLD_FIELD_NUMBER: _ClassVar[int]
        citation_threshold: float
        def __init__(self, citation_threshold: _Optional[float] = ...) -> None: ...
    PARENT_FIELD_NUMBER: _ClassVar[int]
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    FACTS_FIELD_NUMBER: _ClassVar[int]
    PARAMETERS_FIELD_NUMBER: _ClassVar[int]
    parent: str
    content: _content_pb2.Content
    facts: _containers.RepeatedCompositeFieldContainer[Fact]
    parameters: CorroborateContentRequest.Parameters
    def __init__(self, parent: _Optional[str] = ..., content: _Optional[_Union[_content_pb2.Content, _Mapping]] = ..., facts: _Optional[_Iterable[_Union[Fact, _Mapping]]] = ..., parameters: _Optional[_Union[CorroborateContentRequest.Parameters, _Mapping]] = ...) -> None: ...

class CorroborateContentResponse(_message.Message):
    __slots__ = ("corroboration_score", "claims")
    CORROBORATION_SCORE_FIELD_NUMBER: _ClassVar[int]
    CLAIMS_FIELD_NUMBER: _ClassVar[int]
    corroboration_score: float
    claims: _containers.RepeatedCompositeFieldContainer[Claim]
    def __init__(self, corroboration_score: _Optional[float] = ..., claims: _Optional[_Iterable[_Union[Claim, _Mapping]]] = ...) -> None: ...

class Fact(_message.Message):
    __slots__ = ("query", "title", "uri", "summary", "vector_distance", "score", "chunk")
    QUERY_FIELD_NUMBER: _ClassVar[int]
    TITLE_FIELD_NUMBER: _ClassVar[int]
    URI_FIELD_NUMBER: _ClassVar[int]
    SUMMARY_FIELD_NUMBER: _ClassVar[int]
    VECTOR_DISTANCE_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    CHUNK_FIELD_NUMBER: _ClassVar[int]
    query: str
    title: str
    uri: str
    summary: str
    vector_distance: float
    score: float
    chunk: _vertex_rag_data_pb2.RagChunk
    def __init__(self, query: _Optional[str] = ..., title: _Optional[str] = ..., uri: _Optional[str] = ..., summary: _Optional[str] = ..., vector_distance: _Optional[float] = ..., score: _Optional[float] = ..., chunk: _Optional[_Union[_vertex_rag_data_pb2.RagChunk, _Mapping]] = ...) -> None: ...

class Claim(_message.Message):
    __slots__ = ("start_index", "end_index", "fact_indexes", "score")
    START_INDEX_FIELD_NUMBER: _ClassVar[int]
    END_INDEX_FIELD_NUMBER: _ClassVar[int]
    FACT_INDEXES_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    start_index: int
    end_index: int
    fact_indexes: _containers.RepeatedScalarFieldContainer[int]
    score: float
    def __init__(self, start_index: _Optional[int] = ..., end_index: _Optional[int] = ..., fact_indexes: _Optional[_Iterable[int]] = ..., score: _Optional[float] = ...) -> None: ...
