"""Immutable result types built from raw responses, with offsets that slice Python strings.

Google reports claim positions as UTF-8 byte offsets; every result here also carries
code point indices (`answer[claim.start:claim.end] == claim.text`) and UTF-16 offsets,
all converted in one pass over the text (see `groundwire.core.offsets`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from google.protobuf import message

from groundwire.core.offsets import OffsetUnit, Span, resolve_spans


@dataclass(frozen=True, slots=True)
class Chunk:
    """A piece of evidence a claim cites: the supporting text and where it came from."""

    text: str
    source: str
    index: int = 0
    source_metadata: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    uri: str = ""
    title: str = ""
    domain: str = ""

    @property
    def fact_index(self) -> int | None:
        """The index of the request's fact this chunk came from, when `source` is one."""
        return int(self.source) if self.source.isdigit() else None


def _chunks(raw_chunks: Sequence[Any]) -> tuple[Chunk, ...]:
    if not raw_chunks:
        return ()
    fields = raw_chunks[0].DESCRIPTOR.fields_by_name
    has_links = "uri" in fields  # v1alpha's FactChunk has no uri, title or domain
    return tuple(
        Chunk(
            text=raw.chunk_text,
            source=raw.source,
            index=raw.index,
            source_metadata=MappingProxyType(dict(raw.source_metadata)),
            uri=raw.uri if has_links else "",
            title=raw.title if has_links else "",
            domain=raw.domain if has_links else "",
        )
        for raw in raw_chunks
    )


@dataclass(frozen=True, slots=True)
class Claim:
    """One claim of a checked answer.

    `start`/`end` index the answer as a Python str; `start_byte`/`end_byte` are what the
    API sent; `start_utf16`/`end_utf16` suit JavaScript. `offsets_adjusted` is True when the
    API's offsets fell inside a character or past the end and were snapped (see
    `groundwire.core.offsets`); `located` when the API sent no offsets and the claim text
    was found by searching.
    """

    text: str
    start: int
    end: int
    start_byte: int | None
    end_byte: int | None
    start_utf16: int
    end_utf16: int
    citations: tuple[Chunk, ...]
    citation_indices: tuple[int, ...]
    score: float | None
    grounding_check_required: bool | None
    offsets_adjusted: bool = False
    located: bool = False

    @property
    def supported(self) -> bool:
        """True when at least one fact supports the claim (it has citations)."""
        return bool(self.citations)


@dataclass(frozen=True, slots=True)
class CheckGroundingResult:
    """How well an answer is supported: overall score, claims, and the chunks they cite."""

    answer_candidate: str
    support_score: float | None
    claims: tuple[Claim, ...]
    cited_chunks: tuple[Chunk, ...]
    raw: message.Message

    @property
    def unsupported_claims(self) -> tuple[Claim, ...]:
        """Claims that need a check and that no fact supports."""
        return tuple(
            c for c in self.claims if c.grounding_check_required is not False and not c.supported
        )


def _optional(raw: Any, name: str) -> Any:
    fields = raw.DESCRIPTOR.fields_by_name
    return getattr(raw, name) if name in fields and raw.HasField(name) else None


def _optional_getter(message_class: Any, name: str) -> Callable[[Any], Any]:
    """Reads proto3 optional `name` (None when unset, or absent from this API version)."""
    if name not in message_class.DESCRIPTOR.fields_by_name:
        return lambda raw: None
    return lambda raw: getattr(raw, name) if raw.HasField(name) else None


def _spans(
    text: str,
    raw_claims: Sequence[Any],
    start: str,
    end: str,
    text_field: str | None,
    unit: OffsetUnit,
) -> list[Span]:
    if not raw_claims:
        return []
    start_of = _optional_getter(raw_claims[0], start)
    end_of = _optional_getter(raw_claims[0], end)
    positions = [
        (start_of(c), end_of(c), getattr(c, text_field) if text_field else "") for c in raw_claims
    ]
    return resolve_spans(text, positions, unit)


def check_grounding_result(
    answer_candidate: str, response: message.Message
) -> CheckGroundingResult:
    """Builds the result of a CheckGrounding call from its raw response.

    >>> from groundwire.core.apis import method
    >>> response = method("discoveryengine", "v1", "CheckGrounding").response_class()
    >>> claim = response.claims.add(start_pos=0, end_pos=6, claim_text="東京")
    >>> check_grounding_result("東京です", response).claims[0].end
    2
    """
    raw: Any = response
    chunks = _chunks(raw.cited_chunks)
    raw_claims = list(raw.claims)  # each pass over a repeated field makes new wrappers: one
    claims: tuple[Claim, ...] = ()
    if raw_claims:
        has_score = "score" in raw_claims[0].DESCRIPTOR.fields_by_name  # not in v1alpha
        read = [
            (
                c.start_pos if c.HasField("start_pos") else None,
                c.end_pos if c.HasField("end_pos") else None,
                c.claim_text,
                tuple(c.citation_indices),
                c.score if has_score and c.HasField("score") else None,
                c.grounding_check_required if c.HasField("grounding_check_required") else None,
            )
            for c in raw_claims
        ]
        spans = resolve_spans(answer_candidate, [r[:3] for r in read], "utf8")
        count = len(chunks)
        claims = tuple(
            [
                Claim(
                    text,
                    span.start,
                    span.end,
                    start_byte,
                    end_byte,
                    span.start_utf16,
                    span.end_utf16,
                    tuple([chunks[i] for i in indices if 0 <= i < count]),
                    indices,
                    score,
                    check_required,
                    span.adjusted,
                    span.located,
                )
                for (start_byte, end_byte, text, indices, score, check_required), span in zip(
                    read, spans, strict=True
                )
            ]
        )
    return CheckGroundingResult(
        answer_candidate, _optional(raw, "support_score"), claims, chunks, response
    )


@dataclass(frozen=True, slots=True)
class CorroboratedClaim:
    """A claim of corroborated content and the facts that support it.

    `start_index`/`end_index` are what the API sent, in the unit the client was told
    (UTF-8 bytes by default); `start`/`end` index the content text as a Python str.
    """

    text: str
    start: int
    end: int
    start_index: int | None
    end_index: int | None
    start_utf16: int
    end_utf16: int
    fact_indexes: tuple[int, ...]
    facts: tuple[message.Message, ...]
    score: float | None
    offsets_adjusted: bool = False


@dataclass(frozen=True, slots=True)
class CorroborationResult:
    """How well facts corroborate content: overall score and the corroborated claims."""

    content_text: str
    corroboration_score: float | None
    claims: tuple[CorroboratedClaim, ...]
    raw: message.Message


def corroboration_result(
    content_text: str,
    facts: Sequence[message.Message],
    response: message.Message,
    unit: OffsetUnit = "utf8",
) -> CorroborationResult:
    """Builds the result of a CorroborateContent call; `unit` says what its indexes count."""
    raw: Any = response
    spans = _spans(content_text, raw.claims, "start_index", "end_index", None, unit)
    claims = tuple(
        CorroboratedClaim(
            text=content_text[span.start : span.end],
            start=span.start,
            end=span.end,
            start_index=span.start_byte,
            end_index=span.end_byte,
            start_utf16=span.start_utf16,
            end_utf16=span.end_utf16,
            fact_indexes=tuple(c.fact_indexes),
            facts=tuple(facts[i] for i in c.fact_indexes if 0 <= i < len(facts)),
            score=_optional(c, "score"),
            offsets_adjusted=span.adjusted,
        )
        for c, span in zip(raw.claims, spans, strict=True)
    )
    return CorroborationResult(
        content_text, _optional(raw, "corroboration_score"), claims, response
    )


@dataclass(frozen=True, slots=True)
class GroundingSupport:
    """The support for one claim of a generated answer, located in the answer text."""

    claim_text: str
    start: int
    end: int
    start_utf16: int
    end_utf16: int
    chunks: tuple[Chunk, ...]
    chunk_indices: tuple[int, ...]
    score: float | None
    located: bool


@dataclass(frozen=True, slots=True)
class Candidate:
    """One generated answer with its grounding."""

    index: int
    text: str
    grounding_score: float | None
    support_chunks: tuple[Chunk, ...]
    grounding_supports: tuple[GroundingSupport, ...]
    web_search_queries: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class GenerateResult:
    """A generated answer: the first candidate's text and grounding, all candidates, raw."""

    text: str
    grounding_score: float | None
    support_chunks: tuple[Chunk, ...]
    grounding_supports: tuple[GroundingSupport, ...]
    candidates: tuple[Candidate, ...]
    raw: message.Message


def _candidate(raw: Any) -> Candidate:
    text = "".join(p.text for p in raw.content.parts)
    metadata = raw.grounding_metadata
    chunks = _chunks(metadata.support_chunks)
    supports_raw = list(metadata.grounding_support)
    # The API sends no offsets for supports: locate each claim text in order.
    spans = resolve_spans(text, [(None, None, s.claim_text) for s in supports_raw], "utf8")
    supports = tuple(
        GroundingSupport(
            claim_text=s.claim_text,
            start=span.start,
            end=span.end,
            start_utf16=span.start_utf16,
            end_utf16=span.end_utf16,
            chunks=tuple(chunks[i] for i in s.support_chunk_indices if 0 <= i < len(chunks)),
            chunk_indices=tuple(s.support_chunk_indices),
            score=_optional(s, "support_score"),
            located=not span.adjusted,
        )
        for s, span in zip(supports_raw, spans, strict=True)
    )
    return Candidate(
        raw.index,
        text,
        _optional(raw, "grounding_score"),
        chunks,
        supports,
        tuple(metadata.web_search_queries),
    )


def generate_result(response: message.Message) -> GenerateResult:
    """Builds the result of a GenerateGroundedContent call (or one streamed piece)."""
    raw: Any = response
    candidates = tuple(_candidate(c) for c in raw.candidates)
    first = candidates[0] if candidates else Candidate(0, "", None, (), (), ())
    return GenerateResult(
        first.text,
        first.grounding_score,
        first.support_chunks,
        first.grounding_supports,
        candidates,
        response,
    )
