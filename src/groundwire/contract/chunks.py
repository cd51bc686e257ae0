"""The chunks of evidence that claims and generated answers cite, as views of the raw chunks.

A chunk holds its raw ``FactChunk`` and reads from it only what is read: a response's chunks
that its claims cite are decoded when the claims are built (readers read them most), others at
the first read of their ``text``; the rest of a chunk when read.

>>> chunk = Chunk("Tokyo is Japan's capital.", "0", source_metadata={"author": "atlas"})
>>> chunk.fact_index, chunk.source_metadata["author"], chunk.uri
(0, 'atlas', '')
"""

from __future__ import annotations

from collections.abc import Container, Iterable, Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, final

from groundwire.contract.lazy import Frozen, Given, draft_class, filled

_new = object.__new__
_NO_METADATA: Mapping[str, str] = MappingProxyType({})


@final
class Chunk(Frozen):
    """A piece of evidence a claim cites: the supporting text and where it came from.

    `source_metadata` is read-only. `uri`, `title` and `domain` are empty where the API
    version has none (v1alpha).
    """

    __slots__ = ("_metadata", "_raw", "text")
    text: str
    _raw: Any  # the raw chunk, or what a hand-built one was `Given`
    _metadata: Mapping[str, str] | None  # None until the first read of a raw chunk's

    def __new__(
        cls,
        text: str,
        source: str,
        index: int = 0,
        source_metadata: Mapping[str, str] = _NO_METADATA,
        uri: str = "",
        title: str = "",
        domain: str = "",
    ) -> Chunk:
        """A chunk built by hand; `source_metadata` is copied into a read-only mapping."""
        metadata = MappingProxyType(dict(source_metadata))
        given = Given(source=source, index=index, uri=uri, title=title, domain=domain)
        return filled(cls, text=text, _metadata=metadata, _raw=given)

    @property
    def source(self) -> str:
        """Where the chunk came from: a request's fact index as digits, or a source's name."""
        return self._raw.source

    @property
    def index(self) -> int:
        """The chunk's index, as the API numbers it."""
        return self._raw.index

    @property
    def source_metadata(self) -> Mapping[str, str]:
        """The fact's attributes as the API returned them (author, title, …), read-only."""
        metadata = self._metadata
        if metadata is None:
            metadata = MappingProxyType(dict(self._raw.source_metadata))
            # Converted once; two threads may both convert, equally, and either is kept.
            object.__setattr__(self, "_metadata", metadata)
        return metadata

    @property
    def uri(self) -> str:
        """The web page or document the chunk came from, when the API names one."""
        return getattr(self._raw, "uri", "")

    @property
    def title(self) -> str:
        """The title of that page or document, when the API names one."""
        return getattr(self._raw, "title", "")

    @property
    def domain(self) -> str:
        """The domain of that page, when the API names one."""
        return getattr(self._raw, "domain", "")

    if not TYPE_CHECKING:  # typed, `text` stays a str: no other name reaches here

        def __getattr__(self, name: str) -> str:
            # Only called for a slot never filled: a raw chunk's text not decoded yet.
            if name != "text":
                raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
            text = self._raw.chunk_text
            object.__setattr__(self, "text", text)  # decoded once; two threads store equal text
            return text

    def __reduce__(self) -> tuple[type[Chunk], tuple[Any, ...]]:
        # the metadata as a dict: a mapping proxy does not pickle
        fields = (self.text, self.source, self.index, dict(self.source_metadata))
        return Chunk, (*fields, self.uri, self.title, self.domain)

    @property
    def fact_index(self) -> int | None:
        """The index of the request's fact this chunk came from, when `source` is one."""
        source = self.source
        return int(source) if source.isdigit() else None


_ChunkDraft = draft_class(Chunk)


def chunks_of(
    raw_chunks: Iterable[Any], decoded: Container[int] | None = None
) -> tuple[Chunk, ...]:
    """Views of raw ``FactChunk`` messages; the texts at ``decoded`` (default all) read now.

    Any other chunk's text is decoded at its first read, and the rest of each chunk when read.
    """
    chunks = []
    for index, raw in enumerate(raw_chunks):
        chunk: Any = _new(_ChunkDraft)
        if decoded is None or index in decoded:
            chunk.text = raw.chunk_text
        chunk._raw, chunk._metadata = raw, None
        chunk.__class__ = Chunk  # read-only from here; a draft, not `filled`: once per chunk
        chunks.append(chunk)
    return tuple(chunks)
