"""GenerateGroundedContent's results: answers, the chunks that ground them, read lazily.

As `groundwire.contract.results`; a support is placed by searching its claim text.

>>> from groundwire.contract.apis import method
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
from operator import attrgetter
from typing import Any, final

from google.protobuf import message

from groundwire.contract.chunks import Chunk, chunks_of
from groundwire.contract.lazy import (
    LazySequence,
    Placed,
    Record,
    filled,
    optional,
    pick_each,
    raw_field,
    utf16_field,
)
from groundwire.contract.offsets import Utf16Offsets, place_claims
from groundwire.contract.rendering import CitationRendering, ClaimSpan


@final
class GroundingSupport(Record, Placed):
    """The support for one claim of a generated answer, located in the answer text."""

    claim_text: str
    start: int
    end: int
    start_utf16: int = utf16_field()
    end_utf16: int = utf16_field()
    chunks: Sequence[Chunk]
    chunk_indices: Sequence[int]
    score: float | None = raw_field("support_score")
    """How well the chunks support the claim (None when the API sent none)."""
    located: bool


class _GroundedText(CitationRendering):
    """A text and the supports that ground it: what is rendered."""

    __slots__ = ()
    text: str
    support_chunks: Sequence[Chunk]
    grounding_supports: Sequence[GroundingSupport]

    def _rendered_text(self) -> str:
        return self.text

    def claim_spans(self) -> tuple[ClaimSpan, ...]:
        """Each support's span and chunks (indices into `support_chunks`); citing none: unsupported.

        >>> support = GroundingSupport("capital", 10, 17, 10, 17, (), (0, 5), 0.9, True)
        >>> Candidate(0, "The capital.", None, (Chunk("Kyoto", "0"),), (support,), ()).claim_spans()
        (ClaimSpan(start=10, end=17, citations=(0,), unsupported=False),)
        """
        chunk_count = len(self.support_chunks)
        spans = []
        for support in self.grounding_supports:
            cited = tuple(index for index in support.chunk_indices if 0 <= index < chunk_count)
            spans.append(ClaimSpan(support.start, support.end, cited, not cited))
        return tuple(spans)


@final
class Candidate(Record, _GroundedText):
    """One generated answer with its grounding.

    The rendering methods (`with_citations`, ...) number `support_chunks` from 1.
    """

    index: int
    text: str
    grounding_score: float | None
    support_chunks: Sequence[Chunk]
    grounding_supports: Sequence[GroundingSupport]
    web_search_queries: Sequence[str]


_NO_CANDIDATE = Candidate(0, "", None, (), (), ())


@final
class GenerateResult(Record, _GroundedText):
    """A generated answer: the first candidate's text and grounding, all candidates, raw.

    The rendering methods (`with_citations`, ...) render the first candidate and number
    `support_chunks` from 1.
    """

    text: str
    grounding_score: float | None
    support_chunks: Sequence[Chunk]
    grounding_supports: Sequence[GroundingSupport]
    candidates: Sequence[Candidate]
    raw: message.Message


def generate_result(response: message.Message) -> GenerateResult:
    """Builds the result of a GenerateGroundedContent call (or one streamed piece)."""
    raw: Any = response
    raw_candidates = raw.candidates
    first = _read_candidate(raw_candidates[0]) if raw_candidates else _NO_CANDIDATE
    return filled(
        GenerateResult,
        text=first.text,
        grounding_score=first.grounding_score,
        support_chunks=first.support_chunks,
        grounding_supports=first.grounding_supports,
        candidates=LazySequence(
            _candidates, (raw, first), lambda source: len(source[0].candidates)
        ),
        raw=raw,
    )


def _candidates(source: tuple[Any, Candidate]) -> tuple[Candidate, ...]:
    raw, first = source
    raw_candidates = list(raw.candidates)  # new wrappers at each pass: one
    return (first, *map(_read_candidate, raw_candidates[1:])) if raw_candidates else ()


def _read_candidate(raw: Any) -> Candidate:
    """A view of a raw candidate: its text joined now, its grounding read on first read."""
    text = "".join([part.text for part in raw.content.parts])
    metadata = raw.grounding_metadata
    chunks = LazySequence(
        lambda metadata: chunks_of(metadata.support_chunks),
        metadata,
        lambda metadata: len(metadata.support_chunks),
    )
    return filled(
        Candidate,
        index=raw.index,
        text=text,
        grounding_score=optional(raw, "grounding_score"),
        support_chunks=chunks,
        grounding_supports=LazySequence(
            _supports, (text, metadata, chunks), lambda source: len(source[1].grounding_support)
        ),
        web_search_queries=LazySequence(
            lambda metadata: tuple(metadata.web_search_queries),
            metadata,
            lambda metadata: len(metadata.web_search_queries),
        ),
    )


def _supports(source: tuple[str, Any, LazySequence[Chunk]]) -> tuple[GroundingSupport, ...]:
    text, metadata, support_chunks = source
    raw_supports = list(metadata.grounding_support)  # new wrappers at each pass: one
    if not raw_supports:
        return ()
    claim_texts = list(map(attrgetter("claim_text"), raw_supports))
    indices = [tuple(raw.support_chunk_indices[:]) for raw in raw_supports]
    return placed_supports(text, claim_texts, indices, support_chunks[:], raw_supports)


def placed_supports(
    text: str,
    claim_texts: Sequence[str],
    chunk_indices: list[tuple[int, ...]],
    chunks: tuple[Chunk, ...],
    raws: Sequence[Any],
) -> tuple[GroundingSupport, ...]:
    """Supports placed in `text` by their claim texts, in one pass; `raws` hold their scores.

    >>> from groundwire.contract.lazy import Given
    >>> unscored = [Given(support_score=None)] * 2
    >>> [s.start for s in placed_supports("Paris. Paris.", ["Paris."] * 2, [(), ()], (), unscored)]
    [0, 7]
    """
    unsent = [None] * len(claim_texts)  # the API sends no offsets for supports
    bounds, flags = place_claims(text, unsent, unsent, claim_texts, "utf8")
    utf16 = Utf16Offsets(text, bounds)
    positions = iter(bounds)
    return tuple(
        filled(
            GroundingSupport,
            claim_text=claim_text,
            start=start,
            end=end,
            chunks=cited,
            chunk_indices=indices,
            located=not adjusted,
            _raw=raw,
            _utf16=utf16,
        )
        for raw, claim_text, start, end, cited, indices, (adjusted, _located) in zip(
            raws,
            claim_texts,
            positions,
            positions,
            pick_each(chunks, chunk_indices),
            chunk_indices,
            flags or (),
            strict=True,
        )
    )
