"""Terminal output: answers with their claims marked, scores, and citations, colored on a TTY."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import IO, TYPE_CHECKING, Any

if TYPE_CHECKING:
    from groundwire.contract.results import (
        CheckGroundingResult,
        Chunk,
        Claim,
        CorroborationResult,
        GenerateResult,
    )


SUPPORTED, UNSUPPORTED, NOT_CHECKED = "✓", "✗", "·"
DEFAULT_WIDTH = 100
_INDENT = "  "


@dataclass(frozen=True)
class Style:
    """ANSI colors when `color` is True; every method returns its text unchanged otherwise."""

    color: bool = False

    def _paint(self, text: str, code: str) -> str:
        return f"\x1b[{code}m{text}\x1b[0m" if self.color and text else text

    def bold(self, text: str) -> str:
        """Headings."""
        return self._paint(text, "1")

    def dim(self, text: str) -> str:
        """Secondary detail: scores, legends, claims that needed no check."""
        return self._paint(text, "2")

    def green(self, text: str) -> str:
        """Supported claims."""
        return self._paint(text, "32")

    def red(self, text: str) -> str:
        """Unsupported claims."""
        return self._paint(text, "31")

    def cyan(self, text: str) -> str:
        """Citation markers."""
        return self._paint(text, "36")


def style_for(stream: IO[Any], environ: Mapping[str, str] = os.environ) -> Style:
    """Colors for `stream`: only on a terminal, and never when NO_COLOR is set or TERM=dumb."""
    try:
        terminal = stream.isatty()
    except (OSError, ValueError):
        terminal = False
    return Style(terminal and not environ.get("NO_COLOR") and environ.get("TERM") != "dumb")


def width_for(stream: IO[Any]) -> int:
    """The terminal's width for `stream`, or DEFAULT_WIDTH when it is not a terminal."""
    try:
        terminal = stream.isatty()
    except (OSError, ValueError):
        terminal = False
    return shutil.get_terminal_size((DEFAULT_WIDTH, 24)).columns if terminal else DEFAULT_WIDTH


def shorten(text: str, limit: int) -> str:
    r"""`text` on one line, cut to at most `limit` characters with an ellipsis.

    >>> shorten("Tokyo is the capital\nof Japan.", 16)
    'Tokyo is the ca…'
    """
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: max(limit - 1, 0)].rstrip() + "…"


def score_text(score: float | None) -> str:
    """A score with two decimals, or `n/a` when the service sent none.

    >>> score_text(0.456), score_text(None)
    ('0.46', 'n/a')
    """
    return "n/a" if score is None else f"{score:.2f}"


def plural(count: int, noun: str) -> str:
    """`1 claim`, `2 claims`.

    >>> plural(1, "claim"), plural(0, "claim")
    ('1 claim', '0 claims')
    """
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def fact_label(chunk: Chunk) -> str:
    """How a citation names its fact: `facts[2]`, else the chunk's title, URI or source."""
    if chunk.fact_index is not None:
        return f"facts[{chunk.fact_index}]"
    return chunk.title or chunk.uri or chunk.source or "?"


def claim_mark(claim: Claim, style: Style) -> str:
    """✓ supported (green), ✗ unsupported (red), · needed no check (dim)."""
    if claim.grounding_check_required is False:
        return style.dim(NOT_CHECKED)
    return style.green(SUPPORTED) if claim.supported else style.red(UNSUPPORTED)


def _claim_paint(claim: Claim, style: Style) -> Callable[[str], str]:
    if claim.grounding_check_required is False:
        return style.dim
    return style.green if claim.supported else style.red


@dataclass(frozen=True)
class _Span:
    start: int
    end: int
    paint: Callable[[str], str]
    marker: str


def annotate(text: str, spans: Sequence[_Span]) -> str:
    """`text` with each span painted and followed by its marker; overlaps are not repainted."""
    pieces, cursor = [], 0
    for span in sorted(spans, key=lambda s: (s.start, s.end)):
        start, end = max(span.start, cursor), max(span.end, cursor)
        pieces.append(text[cursor:start])
        pieces.append(span.paint(text[start:end]) + span.marker)
        cursor = end
    pieces.append(text[cursor:])
    return "".join(pieces)


def _indented(text: str) -> list[str]:
    return [_INDENT + line if line else "" for line in text.splitlines()] or [_INDENT]


def _citation_marker(indexes: Sequence[int | None], style: Style) -> str:
    shown = [str(i) for i in indexes if i is not None]
    return style.cyan(f"[{','.join(shown)}]") if shown else ""


def _why_no_score(result: CheckGroundingResult) -> str:
    """Why a check has no support score, when it can be told from the result."""
    if result.claims and all(c.grounding_check_required is False for c in result.claims):
        return " (no claim needed a check)"
    return ""


def render_check(result: CheckGroundingResult, style: Style, width: int = DEFAULT_WIDTH) -> str:
    """The answer with its claims marked, each claim's score and citations, the support score.

    >>> from groundwire.contract.results import CheckGroundingResult
    >>> print(render_check(CheckGroundingResult("Hi.", None, (), (), None), Style()))
    Answer
      Hi.
    <BLANKLINE>
    Claims
      (none)
    <BLANKLINE>
    Support score n/a
    """
    spans = [
        _Span(
            c.start,
            c.end,
            _claim_paint(c, style),
            _citation_marker([ch.fact_index for ch in c.citations], style),
        )
        for c in result.claims
    ]
    lines = [
        style.bold("Answer"),
        *_indented(annotate(result.answer_candidate, spans)),
        "",
        style.bold("Claims"),
    ]
    excerpt = max(width - 20, 20)
    for claim in result.claims:
        score = style.dim(f"  score {score_text(claim.score)}") if claim.score is not None else ""
        lines.append(f"{_INDENT}{claim_mark(claim, style)} {' '.join(claim.text.split())}{score}")
        for chunk in claim.citations:
            lines.append(
                f"{_INDENT}    {style.dim('↳')} {style.cyan(fact_label(chunk))} "
                f"“{shorten(chunk.text, excerpt)}”"
            )
    if not result.claims:
        lines.append(f"{_INDENT}(none)")
    checked = [c for c in result.claims if c.grounding_check_required is not False]
    supported = sum(1 for c in checked if c.supported)
    tally = f" · {supported} of {plural(len(checked), 'claim')} supported" if checked else ""
    why = _why_no_score(result) if result.support_score is None else ""
    lines += ["", f"{style.bold('Support score')} {score_text(result.support_score)}{tally}{why}"]
    if result.claims:
        lines.append(
            style.dim(
                f"{SUPPORTED} supported  {UNSUPPORTED} unsupported  {NOT_CHECKED} needed no check"
            )
        )
    return "\n".join(lines)


def render_corroboration(result: CorroborationResult, style: Style) -> str:
    """The content with its corroborated claims marked, their fact indexes and scores."""
    spans = [
        _Span(
            c.start,
            c.end,
            style.green if c.fact_indexes else style.red,
            _citation_marker(list(c.fact_indexes), style),
        )
        for c in result.claims
    ]
    lines = [
        style.bold("Content"),
        *_indented(annotate(result.content_text, spans)),
        "",
        style.bold("Claims"),
    ]
    for claim in result.claims:
        mark = style.green(SUPPORTED) if claim.fact_indexes else style.red(UNSUPPORTED)
        facts = ", ".join(str(i) for i in claim.fact_indexes) or "none"
        score = f"  score {score_text(claim.score)}" if claim.score is not None else ""
        lines.append(
            f"{_INDENT}{mark} {' '.join(claim.text.split())}  "
            f"{style.cyan(f'facts[{facts}]')}{style.dim(score)}"
        )
    if not result.claims:
        lines.append(f"{_INDENT}(none above the citation threshold)")
    score = score_text(result.corroboration_score)
    lines += [
        "",
        f"{style.bold('Corroboration score')} {score} · {plural(len(result.claims), 'claim')}",
    ]
    return "\n".join(lines)


def render_grounding(result: GenerateResult, style: Style, width: int = DEFAULT_WIDTH) -> str:
    """What grounds a generated answer (a whole one, or a stream's pieces merged).

    That is the sources, numbered as the merge numbers them; each claim with its sources
    and score; and the grounding score.
    """
    lines = [style.bold("Sources")]
    excerpt = max(width - 24, 20)
    for index, chunk in enumerate(result.support_chunks):
        lines.append(
            f"{_INDENT}{style.cyan(f'[{index}]')} {fact_label(chunk)} "
            f"“{shorten(chunk.text, excerpt)}”"
        )
    if not result.support_chunks:
        lines.append(f"{_INDENT}(none)")
    lines += ["", style.bold("Supports")]
    for support in result.grounding_supports:
        cited = list(support.chunk_indices)
        mark = style.green(SUPPORTED) if cited else style.red(UNSUPPORTED)
        shown = (
            style.dim(f"  score {score_text(support.score)}") if support.score is not None else ""
        )
        lines.append(
            f"{_INDENT}{mark} {' '.join(support.claim_text.split())} "
            f"{_citation_marker(cited, style)}{shown}"
        )
    if not result.grounding_supports:
        lines.append(f"{_INDENT}(none)")
    lines += ["", f"{style.bold('Grounding score')} {score_text(result.grounding_score)}"]
    return "\n".join(lines)
