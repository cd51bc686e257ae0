"""Citation markers and highlighted claims put into the original text, never splitting a character.

Pure: text and the claims' spans (str indices) in, a new string out (rules: docs/citations.md).
A span's ends move outward to grapheme cluster boundaries first; a span empty after that (no
usable position, claim text not found) gets no marker and no highlight: there is nowhere
truthful to put one.

>>> spans = [ClaimSpan(0, 5, (0, 2)), ClaimSpan(6, 11, ())]
>>> insert_markers("Tokyo Japan", spans)
'Tokyo[1][3] Japan'
>>> to_html("Tokyo <3", [ClaimSpan(0, 5, (0,))])
'<mark data-claim="0">Tokyo</mark>[1] &lt;3'
"""

from __future__ import annotations

import html
import re
import unicodedata
from bisect import bisect_left
from collections.abc import Iterable, Sequence
from itertools import pairwise
from typing import NamedTuple

from groundwire.contract.errors import InvalidArgument
from groundwire.contract.graphemes import cluster_end, cluster_start
from groundwire.contract.offsets import Utf16Offsets

__all__ = [
    "DEFAULT_MARKER",
    "CitationRendering",
    "ClaimSpan",
    "Utf16Span",
    "insert_markers",
    "to_html",
    "to_markdown",
    "utf16_spans",
]

DEFAULT_MARKER = "[{n}]"
"""The marker put after a cited claim for each chunk it cites; ``{n}`` counts from 1."""


class ClaimSpan(NamedTuple):
    """Where one claim sits in the text (str indices) and what it cites, as the renderers read it.

    `citations` index the result's cited chunks (or facts) from 0; `unsupported` marks a claim
    that needs a check and has none. One with neither (a greeting) is shown plain.
    """

    start: int
    end: int
    citations: tuple[int, ...]
    unsupported: bool = False


class Utf16Span(NamedTuple):
    """A claim's span in UTF-16 code units, `citations` numbered from 1; ``_asdict()`` is JSON."""

    start: int
    end: int
    citations: tuple[int, ...]
    unsupported: bool


def _snapped(text: str, spans: Iterable[ClaimSpan]) -> list[tuple[int, ClaimSpan]]:
    """Each non-empty span, numbered as given, its ends moved outward onto cluster bounds."""
    placed = []
    for number, span in enumerate(spans):
        start, end = cluster_start(text, span.start), cluster_end(text, span.end)
        if start < end:
            placed.append((number, span._replace(start=start, end=end)))
    return placed


def _check_marker(marker: str) -> None:
    try:
        marker.format(n=1, i=0)
    except (KeyError, IndexError, ValueError, AttributeError, TypeError) as error:
        raise InvalidArgument(
            f"marker must be a format string whose only placeholder is {{n}} (or {{i}}), "
            f"not {marker!r}"
        ) from error


def _markers_at(placed: Sequence[tuple[int, ClaimSpan]], marker: str) -> dict[int, str]:
    """The markers to insert at each str index, claims ending at the same place in order."""
    at: dict[int, str] = {}
    for _number, span in placed:
        if span.citations:
            citations = dict.fromkeys(span.citations)
            markers = "".join(marker.format(n=index + 1, i=index) for index in citations)
            at[span.end] = at.get(span.end, "") + markers
    return at


def insert_markers(text: str, spans: Iterable[ClaimSpan], marker: str = DEFAULT_MARKER) -> str:
    """``text`` with ``marker`` after each cited claim, once per chunk, and nothing else changed.

    ``{n}`` in ``marker`` is the cited chunk's 1-based number, ``{i}`` its 0-based index.

    Raises:
        InvalidArgument: ``marker`` has a placeholder other than ``{n}`` and ``{i}``.

    Example:
        >>> insert_markers("東京です。👍🏽", [ClaimSpan(0, 5, (1,)), ClaimSpan(5, 6, (0,))], "^{n}")
        '東京です。^2👍🏽^1'
        >>> insert_markers("Tokyo. Rome.", [ClaimSpan(0, 6, (1,)), ClaimSpan(7, 12, (0,))], "[{i}]")
        'Tokyo.[1] Rome.[0]'
    """
    _check_marker(marker)
    at = _markers_at(_snapped(text, spans), marker)
    pieces: list[str] = []
    previous = 0
    for index in sorted(at):
        pieces += (text[previous:index], at[index])
        previous = index
    pieces.append(text[previous:])
    return "".join(pieces)


def utf16_spans(text: str, spans: Iterable[ClaimSpan]) -> tuple[Utf16Span, ...]:
    """The non-empty spans in UTF-16 code units, ends on cluster bounds, citations from 1.

    Example:
        >>> utf16_spans("👋 hi", [ClaimSpan(2, 4, (0,))])
        (Utf16Span(start=3, end=5, citations=(1,), unsupported=False),)
    """
    placed = [span for _number, span in _snapped(text, spans)]
    utf16 = Utf16Offsets(text, [bound for span in placed for bound in span[:2]])
    return tuple(
        Utf16Span(
            utf16.at(span.start),
            utf16.at(span.end),
            tuple(index + 1 for index in dict.fromkeys(span.citations)),
            span.unsupported and not span.citations,
        )
        for span in placed
    )


class _Run(NamedTuple):
    """A stretch of text covered by the same claims."""

    start: int
    end: int
    claims: tuple[int, ...]
    style: str  # "cited", "unsupported" or "unchecked"


_STYLES = ("unchecked", "cited", "unsupported")  # the last wins where claims overlap


def _strength(span: ClaimSpan) -> int:
    return 1 if span.citations else 2 if span.unsupported else 0


def _runs(placed: Sequence[tuple[int, ClaimSpan]]) -> list[_Run]:
    """The text cut at every claim boundary, as runs of the claims covering each piece.

    An overlap is one run naming both claims, so the markup nests.
    """
    bounds = sorted({bound for _number, span in placed for bound in span[:2]})
    by_start = sorted(placed, key=lambda numbered: numbered[1].start)
    active: dict[int, ClaimSpan] = {}  # the claims covering the piece, swept left to right
    runs, next_claim = [], 0
    for start, end in pairwise(bounds):
        while next_claim < len(by_start) and by_start[next_claim][1].start <= start:
            number, span = by_start[next_claim]
            active[number] = span
            next_claim += 1
        for number in [number for number, span in active.items() if span.end <= start]:
            del active[number]
        if active:
            covering = sorted(active)
            style = _STYLES[max(_strength(active[n]) for n in covering)]
            runs.append(_Run(start, end, tuple(covering), style))
    return runs


def _assemble(
    text: str, runs: Sequence[_Run], markers: dict[int, str], escape: _Html | _Markdown
) -> str:
    """Escaped text, runs wrapped by ``escape``, markers where runs end."""
    pieces: list[str] = []
    marker_positions = sorted(markers)

    def plain(start: int, end: int) -> None:
        pieces.append(markers.get(start, ""))
        previous = start
        for position in marker_positions:
            if start < position < end:
                pieces.extend((escape.text(text, previous, position), markers[position]))
                previous = position
        pieces.append(escape.text(text, previous, end))

    position = 0
    for run in runs:
        plain(position, run.start)
        pieces.append(escape.wrap(text, run))
        position = run.end
    plain(position, len(text))
    if position < len(text):
        pieces.append(markers.get(len(text), ""))
    return "".join(pieces)


class _Html:
    def text(self, text: str, start: int, end: int) -> str:
        return html.escape(text[start:end])

    def wrap(self, text: str, run: _Run) -> str:
        claims = " ".join(map(str, run.claims))
        inner = html.escape(text[run.start : run.end])
        if run.style == "unchecked":
            return f'<span data-claim="{claims}">{inner}</span>'
        attributes = ' class="unsupported"' if run.style == "unsupported" else ""
        return f'<mark{attributes} data-claim="{claims}">{inner}</mark>'


def to_html(text: str, spans: Iterable[ClaimSpan], marker: str = DEFAULT_MARKER) -> str:
    """``text`` as HTML, escaped, each claim wrapped in an element naming it, markers after.

    A cited claim is ``<mark data-claim="i">`` (``i`` counts the spans from 0), an unsupported
    one ``<mark class="unsupported" data-claim="i">``, one that needs no check ``<span>``; an
    overlap of claims is one element naming each. Markers are inserted as given.

    Raises:
        InvalidArgument: ``marker`` has a placeholder other than ``{n}`` and ``{i}``.

    Example:
        >>> to_html("a<b. c", [ClaimSpan(0, 4, (0,)), ClaimSpan(5, 6, (), unsupported=True)])
        '<mark data-claim="0">a&lt;b.</mark>[1] <mark class="unsupported" data-claim="1">c</mark>'
    """
    _check_marker(marker)
    placed = _snapped(text, spans)
    return _assemble(text, _runs(placed), _markers_at(placed, marker), _Html())


_MARKDOWN_INLINE = re.compile(r"[\\`*_\[\]<>|~&!]")  # CommonMark and GitHub's extensions
_MARKDOWN_LINE_START = re.compile(r"(?m)^[ \t]*(?:([#>+\-=])|\d+([.)]))")


def _markdown_escapes(text: str) -> list[int]:
    """The str indices of the characters Markdown would read as syntax."""
    escapes = {found.start() for found in _MARKDOWN_INLINE.finditer(text)}
    for found in _MARKDOWN_LINE_START.finditer(text):
        escapes.add(found.start(1) if found.group(1) else found.start(2))
    return sorted(escapes)


def _emphasis_bounds(text: str, start: int, end: int) -> tuple[int, int]:
    """The run shrunk past spaces, punctuation and symbols at either end, a cluster at a time.

    CommonMark opens and closes emphasis only beside a character that is neither space nor
    punctuation: "東京です。" followed by "大阪" could not close its ``**`` after the "。".
    """
    while start < end and not _is_word_cluster(text, start):
        start = cluster_end(text, start + 1)
    while end > start and not _is_word_cluster(text, cluster_start(text, end - 1)):
        end = cluster_start(text, end - 1)
    return start, end


def _is_word_cluster(text: str, start: int) -> bool:
    """Whether the cluster at ``start`` begins with a letter or digit."""
    return unicodedata.category(text[start])[0] in "LN"


class _Markdown:
    def __init__(self, text: str) -> None:
        self._escapes = _markdown_escapes(text)

    def text(self, text: str, start: int, end: int) -> str:
        escapes = self._escapes[bisect_left(self._escapes, start) : bisect_left(self._escapes, end)]
        if not escapes:
            return text[start:end]
        pieces: list[str] = []
        previous = start
        for index in escapes:
            pieces += (text[previous:index], "\\")
            previous = index
        pieces.append(text[previous:end])
        return "".join(pieces)

    def wrap(self, text: str, run: _Run) -> str:
        delimiter = {"cited": "**", "unsupported": "*", "unchecked": ""}[run.style]
        pieces: list[str] = []
        position = run.start
        for line_end in [*_line_ends(text, run.start, run.end), run.end]:
            inner_start, inner_end = _emphasis_bounds(text, position, line_end)
            if delimiter and inner_start < inner_end:
                pieces += (
                    self.text(text, position, inner_start),
                    delimiter,
                    self.text(text, inner_start, inner_end),
                    delimiter,
                    self.text(text, inner_end, line_end),
                )
            else:
                pieces.append(self.text(text, position, line_end))
            position = line_end
        return "".join(pieces)


def _line_ends(text: str, start: int, end: int) -> list[int]:
    """Where each line inside [start, end) ends: emphasis never spans a line break."""
    ends, position = [], text.find("\n", start, end)
    while position >= 0:
        ends.append(position)
        position = text.find("\n", position + 1, end)
    return ends


def to_markdown(text: str, spans: Iterable[ClaimSpan], marker: str = DEFAULT_MARKER) -> str:
    r"""``text`` as Markdown, escaped, cited claims in bold, unsupported ones in italics.

    Inline metacharacters (``\ ` * _ [ ] < > | ~ & !``) are backslash-escaped, and what would
    start a block at a line's start (``#``, ``>``, ``-``, ``+``, ``=``, ``1.``). Emphasis never
    spans a line break and sits inside a claim's edge punctuation, symbols and spaces, where
    CommonMark can open and close it; touching claims of one style merge. Markers as given.

    Raises:
        InvalidArgument: ``marker`` has a placeholder other than ``{n}`` and ``{i}``.

    Example:
        >>> spans = [ClaimSpan(0, 15, (0,)), ClaimSpan(16, 20, (), unsupported=True)]
        >>> print(to_markdown("Tokyo is *big*. Rome", spans))
        **Tokyo is \*big**\*.[1] *Rome*
    """
    _check_marker(marker)
    placed = _snapped(text, spans)
    markers = _markers_at(placed, marker)
    return _assemble(text, _merged(_runs(placed), markers), markers, _Markdown(text))


def _merged(runs: list[_Run], markers: dict[int, str]) -> list[_Run]:
    """Touching runs of the same style with no marker between them, as one run."""
    merged: list[_Run] = []
    for run in runs:
        last = merged[-1] if merged else None
        if last and last.end == run.start and last.style == run.style and run.start not in markers:
            merged[-1] = last._replace(end=run.end, claims=last.claims + run.claims)
        else:
            merged.append(run)
    return merged


class CitationRendering:
    """The rendering methods of every result with claims: its `_rendered_text`, `claim_spans`."""

    __slots__ = ()

    def _rendered_text(self) -> str:
        raise NotImplementedError

    def claim_spans(self) -> tuple[ClaimSpan, ...]:
        """Each claim's span and citations, as this module's functions take them."""
        raise NotImplementedError

    def with_citations(self, marker: str = DEFAULT_MARKER) -> str:
        """The text with citation markers (see `groundwire.contract.rendering.insert_markers`)."""
        return insert_markers(self._rendered_text(), self.claim_spans(), marker)

    def to_markdown(self, marker: str = DEFAULT_MARKER) -> str:
        """The text as escaped Markdown (see `groundwire.contract.rendering.to_markdown`)."""
        return to_markdown(self._rendered_text(), self.claim_spans(), marker)

    def to_html(self, marker: str = DEFAULT_MARKER) -> str:
        """The text as escaped HTML (see `groundwire.contract.rendering.to_html`)."""
        return to_html(self._rendered_text(), self.claim_spans(), marker)

    def utf16_spans(self) -> tuple[Utf16Span, ...]:
        """The claims' spans in UTF-16 code units (see `utf16_spans`)."""
        return utf16_spans(self._rendered_text(), self.claim_spans())
