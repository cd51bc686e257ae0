"""The eager result building groundwire had before results became lazy: the tests' oracle.

A copy, not an import: the offset walk (`resolve_spans`) and the builders read every field of
the response at once, exactly as they did, and give plain tuples of the fields each result type
lists, so the lazy results can be compared with them field by field.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from groundwire.contract.offsets import ClaimPosition, OffsetUnit

EagerSpan = tuple[int, int, int | None, int | None, int, int, bool, bool]
"""(start, end, start_byte, end_byte, start_utf16, end_utf16, adjusted, located)."""


def resolve_spans(text: str, spans: Sequence[ClaimPosition], unit: OffsetUnit) -> list[EagerSpan]:
    measure = _Measure(text, unit)
    fitted = [measure.fit(start, end) for start, end, _claim in spans]
    codepoint_at = measure.codepoints_at(
        {offset for fit in fitted if fit is not None for offset in fit[:2]}
    )
    placed: list[tuple[int, int, bool, bool]] = []
    previous_end = 0
    for (sent_start, sent_end, claim_text), fit in zip(spans, fitted, strict=True):
        if fit is None:
            start, end, found = _locate(text, claim_text, previous_end)
            reversed_positions = sent_start is not None and sent_end is not None
            placed.append((start, end, reversed_positions or not found, True))
        else:
            start, end = codepoint_at[fit[0]], codepoint_at[fit[1]]
            placed.append((start, end, fit[2], False))
        previous_end = end
    utf16_at = _utf16_offsets(text, {index for place in placed for index in place[:2]})
    return [
        (start, end, sent_start, sent_end, utf16_at[start], utf16_at[end], adjusted, located)
        for (sent_start, sent_end, _claim), (start, end, adjusted, located) in zip(
            spans, placed, strict=True
        )
    ]


def _locate(text: str, claim_text: str, previous_end: int) -> tuple[int, int, bool]:
    if not claim_text:
        return previous_end, previous_end, False
    start = text.find(claim_text, previous_end)
    if start < 0:
        start = text.find(claim_text)
    if start < 0:
        return previous_end, previous_end, False
    return start, start + len(claim_text), True


class _Measure:
    def __init__(self, text: str, unit: OffsetUnit) -> None:
        self._encoded = b""
        self._unit = unit
        if unit == "codepoint" or text.isascii():
            self.length = len(text)
        elif unit == "utf8":
            self._encoded = text.encode("utf-8")
            self.length = len(self._encoded)
        else:
            encoded = text.encode("utf-16-le")
            self.length = len(encoded) // 2
            if self.length != len(text):
                self._encoded = encoded

    def fit(self, start: int | None, end: int | None) -> tuple[int, int, bool] | None:
        if start is None or end is None or start > end:
            return None
        fitted_start = min(max(start, 0), self.length)
        fitted_end = min(max(end, 0), self.length)
        while self._inside_character(fitted_start):
            fitted_start -= 1
        while self._inside_character(fitted_end):
            fitted_end += 1
        return fitted_start, fitted_end, (fitted_start, fitted_end) != (start, end)

    def _inside_character(self, offset: int) -> bool:
        if not self._encoded or offset >= self.length:
            return False
        if self._unit == "utf8":
            return self._encoded[offset] & 0xC0 == 0x80
        return 0xDC <= self._encoded[2 * offset + 1] <= 0xDF

    def codepoints_at(self, offsets: Iterable[int]) -> dict[int, int]:
        if not self._encoded:
            return {offset: offset for offset in offsets}
        width, codec = (1, "utf-8") if self._unit == "utf8" else (2, "utf-16-le")
        codepoint_at: dict[int, int] = {}
        previous, codepoint = 0, 0
        for offset in sorted(offsets):
            segment = self._encoded[previous * width : offset * width]
            codepoint += len(segment.decode(codec))
            codepoint_at[offset] = codepoint
            previous = offset
        return codepoint_at


def _utf16_offsets(text: str, indices: Iterable[int]) -> dict[int, int]:
    if text.isascii():
        return {index: index for index in indices}
    utf16_at: dict[int, int] = {}
    previous, utf16 = 0, 0
    for index in sorted(indices):
        utf16 += len(text[previous:index].encode("utf-16-le")) // 2
        utf16_at[index] = utf16
        previous = index
    return utf16_at


def _optional(raw: Any, name: str) -> Any:
    fields = raw.DESCRIPTOR.fields_by_name
    return getattr(raw, name) if name in fields and raw.HasField(name) else None


def eager_chunks(raw_chunks: Sequence[Any]) -> list[tuple[object, ...]]:
    """Each chunk's (text, source, index, source_metadata, uri, title, domain)."""
    return [
        (
            raw.chunk_text,
            raw.source,
            raw.index,
            dict(raw.source_metadata),
            getattr(raw, "uri", ""),
            getattr(raw, "title", ""),
            getattr(raw, "domain", ""),
        )
        for raw in raw_chunks
    ]


def eager_check_claims(answer: str, response: Any) -> list[tuple[object, ...]]:
    """Each claim's fields in `Claim._fields` order, its citations as `eager_chunks` tuples."""
    chunks = eager_chunks(response.cited_chunks)
    raw_claims = list(response.claims)
    positions = [
        (_optional(c, "start_pos"), _optional(c, "end_pos"), c.claim_text) for c in raw_claims
    ]
    spans = resolve_spans(answer, positions, "utf8")
    return [
        (
            c.claim_text,
            span[0],
            span[1],
            span[2],
            span[3],
            span[4],
            span[5],
            tuple(chunks[i] for i in c.citation_indices if 0 <= i < len(chunks)),
            tuple(c.citation_indices),
            _optional(c, "score"),
            _optional(c, "grounding_check_required"),
            span[6],
            span[7],
        )
        for c, span in zip(raw_claims, spans, strict=True)
    ]


def eager_corroborated_claims(
    content: str, facts: Sequence[Any], response: Any, unit: OffsetUnit
) -> list[tuple[object, ...]]:
    """Each corroborated claim's fields in `CorroboratedClaim._fields` order."""
    raw_claims = list(response.claims)
    positions = [(_optional(c, "start_index"), _optional(c, "end_index"), "") for c in raw_claims]
    spans = resolve_spans(content, positions, unit)
    return [
        (
            content[span[0] : span[1]],
            *span[:6],
            tuple(c.fact_indexes),
            tuple(facts[i] for i in c.fact_indexes if 0 <= i < len(facts)),
            _optional(c, "score"),
            span[6],
        )
        for c, span in zip(raw_claims, spans, strict=True)
    ]


def eager_supports(raw_candidate: Any) -> list[tuple[object, ...]]:
    """Each grounding support's fields in `GroundingSupport._fields` order."""
    text = "".join(p.text for p in raw_candidate.content.parts)
    metadata = raw_candidate.grounding_metadata
    chunks = eager_chunks(metadata.support_chunks)
    supports = list(metadata.grounding_support)
    spans = resolve_spans(text, [(None, None, s.claim_text) for s in supports], "utf8")
    return [
        (
            s.claim_text,
            span[0],
            span[1],
            span[4],
            span[5],
            tuple(chunks[i] for i in s.support_chunk_indices if 0 <= i < len(chunks)),
            tuple(s.support_chunk_indices),
            _optional(s, "support_score"),
            not span[6],
        )
        for s, span in zip(supports, spans, strict=True)
    ]
