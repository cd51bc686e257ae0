from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class RagChunk(_message.Message):
    __slots__ = ("text", "page_span")
    class PageSpan(_message.Message):
        __slots__ = ("first_page", "last_page")
        FIRST_PAGE_FIELD_NUMBER: _ClassVar[int]
        LAST_PAGE_FIELD_NUMBER: _ClassVar[int]
        first_page: int
        last_page: int
        def __init__(self, first_page: _Optional[int] = ..., last_page: _Optional[int] = ...) -> None: ...
    TEXT_FIELD_NUMBER: _ClassVar[int]
    PAGE_SPAN_FIELD_NUMBER: _ClassVar[int]
    text: str
    page_span: RagChunk.PageSpan
    def __init__(self, text: _Optional[str] = ..., page_span: _Optional[_Union[RagChunk.PageSpan, _Mapping]] = ...) -> None: ...
