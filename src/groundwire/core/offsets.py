"""Turns the claim positions Google sends (UTF-8 byte offsets) into str indices and UTF-16 offsets.

Policy for positions that do not fit the text — never silently wrong, always flagged:

* an offset inside a multi-byte character snaps outward: a start to the first byte of that
  character, an end to the byte after it, so the span still covers the claim (``adjusted``);
* an offset past the end clamps to the end, a negative one to 0 (``adjusted``);
* a missing start or end means the claim text is searched for instead (``located``), first
  from the end of the previous claim (claims come in order), then from the start of the text;
* a start after its end is searched for the same way, and flagged ``adjusted`` as well;
* a claim that cannot be found (or has no text to search for) gets an empty span at the end of
  the previous claim (0 for the first), flagged both ``located`` and ``adjusted``.

Offsets inside a grapheme cluster but on a code point boundary (a ZWJ emoji sequence, a letter
and its combining accent) are valid code point positions and are kept as they are.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

OffsetUnit = Literal["utf8", "codepoint", "utf16"]
"""What an offset counts: UTF-8 bytes, code points (Python str indices) or UTF-16 code units."""

ClaimPosition = tuple[int | None, int | None, str]
"""One claim as the API sends it: (start, end, claim_text), end exclusive, None when omitted."""


@dataclass(frozen=True, slots=True)
class Span:
    """Where one claim sits in the answer text, in every unit a caller may need.

    ``text[span.start:span.end]`` is the claim. ``start_byte``/``end_byte`` are the positions
    exactly as the API sent them (in the unit given to :func:`resolve_spans`, UTF-8 bytes by
    default), None when omitted. ``adjusted`` says the span differs from what the API's
    positions literally said; ``located`` says the span was found by searching the claim text.

    Example:
        >>> span = resolve_byte_spans("Café au lait", [(0, 5, "Café")])[0]
        >>> (span.start, span.end, span.start_utf16, span.end_utf16, span.adjusted)
        (0, 4, 0, 4, False)
    """

    start: int
    end: int
    start_byte: int | None
    end_byte: int | None
    start_utf16: int
    end_utf16: int
    adjusted: bool
    located: bool


def resolve_byte_spans(text: str, spans: Sequence[ClaimPosition]) -> list[Span]:
    """Resolve claims given as UTF-8 byte offsets (end exclusive), in one pass over ``text``.

    Example:
        >>> [(s.start, s.end) for s in resolve_byte_spans("東京は首都", [(0, 6, "東京")])]
        [(0, 2)]
    """
    return resolve_spans(text, spans, "utf8")


def resolve_spans(
    text: str, spans: Sequence[ClaimPosition], unit: OffsetUnit = "utf8"
) -> list[Span]:
    """Resolve claims whose offsets count ``unit`` (UTF-8 bytes, code points or UTF-16 units).

    All spans are converted with one walk over the text, however many claims there are; see
    the module docstring for what happens to offsets that do not fit.

    Example:
        >>> span = resolve_spans("👋 hi", [(3, 5, "hi")], unit="utf16")[0]
        >>> (span.start, span.end, span.start_utf16)
        (2, 4, 3)
    """
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
        Span(
            start=start,
            end=end,
            start_byte=sent_start,
            end_byte=sent_end,
            start_utf16=utf16_at[start],
            end_utf16=utf16_at[end],
            adjusted=adjusted,
            located=located,
        )
        for (sent_start, sent_end, _claim), (start, end, adjusted, located) in zip(
            spans, placed, strict=True
        )
    ]


def _locate(text: str, claim_text: str, previous_end: int) -> tuple[int, int, bool]:
    """Find ``claim_text`` after the previous claim, else anywhere; (start, end, found)."""
    if not claim_text:
        return previous_end, previous_end, False
    start = text.find(claim_text, previous_end)
    if start < 0:
        start = text.find(claim_text)
    if start < 0:
        return previous_end, previous_end, False
    return start, start + len(claim_text), True


class _Measure:
    """The text seen in one offset unit: its length, its character starts, its code points."""

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

    @property
    def _identity(self) -> bool:
        return not self._encoded

    def fit(self, start: int | None, end: int | None) -> tuple[int, int, bool] | None:
        """Clamp and snap (start, end) onto character boundaries; None when unusable."""
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
        if self._identity or offset >= self.length:
            return False
        if self._unit == "utf8":
            return self._encoded[offset] & 0xC0 == 0x80
        return 0xDC <= self._encoded[2 * offset + 1] <= 0xDF

    def codepoints_at(self, offsets: Iterable[int]) -> dict[int, int]:
        """Map each offset on a character boundary to its code point index, in one walk."""
        if self._identity:
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
    """Map code point indices to UTF-16 offsets, walking the text once."""
    if text.isascii():
        return {index: index for index in indices}
    utf16_at: dict[int, int] = {}
    previous, utf16 = 0, 0
    for index in sorted(indices):
        utf16 += len(text[previous:index].encode("utf-16-le")) // 2
        utf16_at[index] = utf16
        previous = index
    return utf16_at
