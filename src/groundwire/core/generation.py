"""GenerateGroundedContent's results: answers, the chunks that ground them, read lazily.

They follow `groundwire.core.results`: building one joins the first candidate's text and reads
its score; candidates, support chunks, supports and search queries are each a `LazySequence`
built on the first read of an item (a support's position is found by searching its claim
text, all of a candidate's supports in one pass).

>>> from groundwire.core.apis import method
>>> response = method("discoveryengine", "v1", "GenerateGroundedContent").response_class()
>>> candidate = response.candidates.add(grounding_score=0.5)
>>> part = candidate.content.parts.add(text="Kyoto was the capital.")
>>> support = candidate.grounding_metadata.grounding_support.add(claim_text="the capital")
>>> result = generate_result(response)
>>> result.text, result.grounding_score, result.grounding_supports[0].start
('Kyoto was the capital.', 0.5, 10)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from operator import attrgetter
from typing import Any, final

from google.protobuf import message

from groundwire.core.chunks import Chunk, chunks_of
from groundwire.core.lazy import (
    LazySequence,
    PlacedRecord,
    Record,
    draft_class,
    freeze,
    optional,
    pick_each,
)
from groundwire.core.offsets import Utf16Offsets, place_claims
from groundwire.core.rendering import CitationRendering, ClaimSpan

_new = object.__new__


@dataclass(frozen=True, slots=True)
class _GivenScore:
    """What a hand-built support holds where one read from a response holds its raw support."""

    support_score: float | None


@final
class GroundingSupport(PlacedRecord):
    """The support for one claim of a generated answer, located in the answer text."""

    __slots__ = (
        "_raw",
        "_utf16",
        "chunk_indices",
        "chunks",
        "claim_text",
        "end",
        "located",
        "start",
    )
    _fields = (
        "claim_text",
        "start",
        "end",
        "start_utf16",
        "end_utf16",
        "chunks",
        "chunk_indices",
        "score",
        "located",
    )
    claim_text: str
    start: int
    end: int
    chunks: tuple[Chunk, ...]
    chunk_indices: tuple[int, ...]
    located: bool
    _raw: Any  # the raw support, or a _GivenScore
    _utf16: tuple[int, int] | Utf16Offsets

    def __new__(
        cls,
        claim_text: str,
        start: int,
        end: int,
        start_utf16: int,
        end_utf16: int,
        chunks: Sequence[Chunk],
        chunk_indices: Sequence[int],
        score: float | None,
        located: bool,
    ) -> GroundingSupport:
        """A support built by hand, every position given."""
        return _support(
            claim_text,
            start,
            end,
            tuple(chunks),
            tuple(chunk_indices),
            located,
            _GivenScore(score),
            (start_utf16, end_utf16),
        )

    @property
    def score(self) -> float | None:
        """How well the chunks support the claim (None when the API sent none)."""
        raw = self._raw
        return raw.support_score if isinstance(raw, _GivenScore) else optional(raw, "support_score")


_GroundingSupportDraft = draft_class(GroundingSupport)


def _support(
    claim_text: str,
    start: int,
    end: int,
    chunks: tuple[Chunk, ...],
    chunk_indices: tuple[int, ...],
    located: bool,
    raw: Any,
    utf16: tuple[int, int] | Utf16Offsets,
) -> GroundingSupport:
    support: Any = _new(_GroundingSupportDraft)
    support.claim_text, support.start, support.end = claim_text, start, end
    support.chunks, support.chunk_indices, support.located = chunks, chunk_indices, located
    support._raw, support._utf16 = raw, utf16
    return freeze(support, GroundingSupport)


@final
class Candidate(Record, CitationRendering):
    """One generated answer with its grounding.

    `with_citations`, `to_markdown`, `to_html` and `utf16_spans` put its supports into the
    text (see `groundwire.core.rendering`); ``{n}`` numbers `support_chunks` from 1.
    """

    __slots__ = (
        "grounding_score",
        "grounding_supports",
        "index",
        "support_chunks",
        "text",
        "web_search_queries",
    )
    _fields = (
        "index",
        "text",
        "grounding_score",
        "support_chunks",
        "grounding_supports",
        "web_search_queries",
    )
    index: int
    text: str
    grounding_score: float | None
    support_chunks: Sequence[Chunk]
    grounding_supports: Sequence[GroundingSupport]
    web_search_queries: Sequence[str]

    def __new__(
        cls,
        index: int,
        text: str,
        grounding_score: float | None,
        support_chunks: Sequence[Chunk],
        grounding_supports: Sequence[GroundingSupport],
        web_search_queries: Sequence[str],
    ) -> Candidate:
        """A candidate built by hand (its sequences are copied into tuples)."""
        return _candidate(
            index,
            text,
            grounding_score,
            tuple(support_chunks),
            tuple(grounding_supports),
            tuple(web_search_queries),
        )

    def _rendered_text(self) -> str:
        return self.text

    def claim_spans(self) -> tuple[ClaimSpan, ...]:
        """Each support's span, its chunks (indices into `support_chunks`), unsupported or not."""
        return support_spans(self.grounding_supports, len(self.support_chunks))


_CandidateDraft = draft_class(Candidate)


def _candidate(
    index: int,
    text: str,
    grounding_score: float | None,
    support_chunks: Sequence[Chunk],
    grounding_supports: Sequence[GroundingSupport],
    web_search_queries: Sequence[str],
) -> Candidate:
    candidate: Any = _new(_CandidateDraft)
    candidate.index, candidate.text, candidate.grounding_score = index, text, grounding_score
    candidate.support_chunks, candidate.grounding_supports = support_chunks, grounding_supports
    candidate.web_search_queries = web_search_queries
    return freeze(candidate, Candidate)


_NO_CANDIDATE = Candidate(0, "", None, (), (), ())


@final
class GenerateResult(Record, CitationRendering):
    """A generated answer: the first candidate's text and grounding, all candidates, raw.

    `with_citations`, `to_markdown`, `to_html` and `utf16_spans` render the first candidate
    (see `groundwire.core.rendering`); ``{n}`` numbers `support_chunks` from 1.
    """

    __slots__ = (
        "candidates",
        "grounding_score",
        "grounding_supports",
        "raw",
        "support_chunks",
        "text",
    )
    _fields = (
        "text",
        "grounding_score",
        "support_chunks",
        "grounding_supports",
        "candidates",
        "raw",
    )
    text: str
    grounding_score: float | None
    support_chunks: Sequence[Chunk]
    grounding_supports: Sequence[GroundingSupport]
    candidates: Sequence[Candidate]
    raw: message.Message

    def __new__(
        cls,
        text: str,
        grounding_score: float | None,
        support_chunks: Sequence[Chunk],
        grounding_supports: Sequence[GroundingSupport],
        candidates: Sequence[Candidate],
        raw: message.Message,
    ) -> GenerateResult:
        """A result built by hand (its sequences are copied into tuples)."""
        result: Any = _new(_GenerateResultDraft)
        result.text, result.grounding_score, result.raw = text, grounding_score, raw
        result.support_chunks = tuple(support_chunks)
        result.grounding_supports = tuple(grounding_supports)
        result.candidates = tuple(candidates)
        return freeze(result, GenerateResult)

    def _rendered_text(self) -> str:
        return self.text

    def claim_spans(self) -> tuple[ClaimSpan, ...]:
        """Each support's span, its chunks (indices into `support_chunks`), unsupported or not."""
        return support_spans(self.grounding_supports, len(self.support_chunks))


def support_spans(supports: Sequence[GroundingSupport], chunk_count: int) -> tuple[ClaimSpan, ...]:
    """The rendering spans of some supports whose chunk indices count ``chunk_count`` chunks.

    A support that cites no chunk is unsupported; one whose claim text was not found in the
    answer has an empty span, which the renderers leave out.

    >>> support = GroundingSupport("capital", 10, 17, 10, 17, (), (0, 5), 0.9, True)
    >>> support_spans([support], 1)
    (ClaimSpan(start=10, end=17, citations=(0,), unsupported=False),)
    """
    spans = []
    for support in supports:
        cited = tuple(index for index in support.chunk_indices if 0 <= index < chunk_count)
        spans.append(ClaimSpan(support.start, support.end, cited, not cited))
    return tuple(spans)


_GenerateResultDraft = draft_class(GenerateResult)


def generate_result(response: message.Message) -> GenerateResult:
    """Builds the result of a GenerateGroundedContent call (or one streamed piece)."""
    raw: Any = response
    raw_candidates = raw.candidates
    first = _read_candidate(raw_candidates[0]) if raw_candidates else _NO_CANDIDATE
    result: Any = _new(_GenerateResultDraft)
    result.text, result.grounding_score, result.raw = first.text, first.grounding_score, raw
    result.support_chunks, result.grounding_supports = (
        first.support_chunks,
        first.grounding_supports,
    )
    result.candidates = LazySequence(_candidates, (raw, first), _count_candidates)
    return freeze(result, GenerateResult)


def _count_candidates(source: tuple[Any, Candidate]) -> int:
    return len(source[0].candidates)


def _candidates(source: tuple[Any, Candidate]) -> tuple[Candidate, ...]:
    raw, first = source
    raw_candidates = list(raw.candidates)  # new wrappers at each pass: one
    return (first, *map(_read_candidate, raw_candidates[1:])) if raw_candidates else ()


def _read_candidate(raw: Any) -> Candidate:
    """A view of a raw candidate: its text joined now, its grounding read on first read."""
    text = "".join([part.text for part in raw.content.parts])
    metadata = raw.grounding_metadata
    chunks = LazySequence(_support_chunks, metadata, _count_support_chunks)
    supports = LazySequence(_supports, (text, metadata, chunks), _count_supports)
    queries = LazySequence(_queries, metadata, _count_queries)
    return _candidate(raw.index, text, optional(raw, "grounding_score"), chunks, supports, queries)


def _support_chunks(metadata: Any) -> tuple[Chunk, ...]:
    return chunks_of(metadata.support_chunks)


def _count_support_chunks(metadata: Any) -> int:
    return len(metadata.support_chunks)


def _queries(metadata: Any) -> tuple[str, ...]:
    return tuple(metadata.web_search_queries)


def _count_queries(metadata: Any) -> int:
    return len(metadata.web_search_queries)


def _count_supports(source: tuple[str, Any, LazySequence[Chunk]]) -> int:
    return len(source[1].grounding_support)


def _supports(source: tuple[str, Any, LazySequence[Chunk]]) -> tuple[GroundingSupport, ...]:
    """A candidate's supports, each located by searching its claim text, in one pass."""
    text, metadata, support_chunks = source
    raw_supports = list(metadata.grounding_support)  # new wrappers at each pass: one
    if not raw_supports:
        return ()
    claim_texts = list(map(attrgetter("claim_text"), raw_supports))
    unsent = [None] * len(raw_supports)  # the API sends no offsets for supports
    bounds, flags = place_claims(text, unsent, unsent, claim_texts, "utf8")
    indices = [tuple(raw.support_chunk_indices[:]) for raw in raw_supports]
    utf16 = Utf16Offsets(text, bounds)
    positions = iter(bounds)
    return tuple(
        _support(claim_text, start, end, cited, chunk_indices, not adjusted, raw, utf16)
        for raw, claim_text, start, end, cited, chunk_indices, (adjusted, _located) in zip(
            raw_supports,
            claim_texts,
            positions,
            positions,
            pick_each(support_chunks[:], indices),
            indices,
            flags or (),
            strict=True,
        )
    )
