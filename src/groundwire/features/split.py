"""Plans the calls that check an answer or facts past the API's limits, and merges their results.

Pure: `plan_split` cuts the answer and the facts into calls within the limits of
`groundwire.contract.validation`; `merge_checks` puts the calls' results back together. How it
splits and merges: docs/long-inputs.md.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple, TypeVar

from groundwire.contract.chunks import Chunk
from groundwire.contract.corroboration import CorroboratedClaim, CorroborationResult
from groundwire.contract.errors import bad_request
from groundwire.contract.facts import any_fact_parts
from groundwire.contract.offsets import Offsets, offsets_in, shifted
from groundwire.contract.results import CheckGroundingResult, Claim
from groundwire.contract.validation import (
    MAX_ANSWER_CHARACTERS_V1ALPHA,
    MAX_ANSWER_TOKENS,
    MAX_FACT_CHARACTERS,
    MAX_FACTS,
    count_tokens,
)
from groundwire.features.sentence_stream import SentenceGroup, SentenceGroups, moved_claim

ClaimT = TypeVar("ClaimT", Claim, CorroboratedClaim)

DEFAULT_MAX_CALLS = 16
"""The most calls one split check may make unless the caller says otherwise."""


class FactPiece(NamedTuple):
    """A piece of one of the caller's facts: which fact, where in it, its text and attributes."""

    fact_index: int
    start: int
    end: int
    text: str
    attributes: Mapping[str, str]
    given: Any = None  # the caller's fact itself when it is whole (sent as given)


class AnswerPart(NamedTuple):
    """A part of the answer sent in one call, with where it lies in the whole answer."""

    text: str
    offsets: Offsets


@dataclass(frozen=True)
class SplitPlan:
    """The calls of one split check: every answer part against every fact group."""

    answer: str
    parts: tuple[AnswerPart, ...]
    fact_groups: tuple[tuple[FactPiece, ...], ...]

    @property
    def calls(self) -> int:
        """How many calls the plan makes."""
        return len(self.parts) * len(self.fact_groups)

    def requests(self) -> list[tuple[AnswerPart, tuple[FactPiece, ...]]]:
        """Each call's (answer part, fact group), parts first: the batch's items in order."""
        return [(part, group) for part in self.parts for group in self.fact_groups]


class SplitCheckResult(CheckGroundingResult):
    """The merged result of a split check: a `CheckGroundingResult` of the whole answer.

    `cited_chunks` are the cited pieces of the caller's facts, each `source` the fact's index.
    `calls` is how many calls were made, `billed_characters` what they were billed for,
    `parts` the calls' own results in plan order; `raw` is the first call's response.
    """

    calls: int
    billed_characters: int
    parts: Sequence[CheckGroundingResult]


class SplitCorroborationResult(CorroborationResult):
    """The merged result of a split corroboration: a `CorroborationResult` of the whole content.

    A claim's `fact_indexes` are the caller's facts' indices and `facts` the pieces cited;
    `start_index`/`end_index` count UTF-8 bytes, whatever `corroborate_offset_unit` says.
    `calls`, `billed_characters` and `parts` are as in `SplitCheckResult`.
    """

    calls: int
    billed_characters: int
    parts: Sequence[CorroborationResult]


def plan_split(
    answer: str, facts: Iterable[Any], api_version: str, max_calls: int = DEFAULT_MAX_CALLS
) -> SplitPlan:
    """The calls that check `answer` against `facts` within the limits, or an InvalidArgument.

    >>> plan = plan_split("One. Two.", ["x" * 10_001], "v1")
    >>> [p.text for p in plan.parts], [[(f.start, f.end) for f in g] for g in plan.fact_groups]
    (['One. Two.'], [[(0, 10000), (10000, 10001)]])
    """
    if not isinstance(max_calls, int) or max_calls < 1:
        raise bad_request(
            [("max_calls", f"must be a whole number >= 1, not {max_calls!r}")],
            "max_calls must be a whole number >= 1",
        )
    parts = tuple(answer_parts(answer, api_version)) or (  # blank: sent as it is
        AnswerPart(answer, offsets_in(answer, 0, len(answer))),
    )
    pieces = [piece for index, fact in enumerate(facts) for piece in fact_pieces(fact, index)]
    groups = tuple(
        tuple(pieces[start : start + MAX_FACTS]) for start in range(0, len(pieces), MAX_FACTS)
    ) or ((),)
    plan = SplitPlan(answer, parts, groups)
    if plan.calls > max_calls:
        needs = f"the split needs {plan.calls:,} calls"
        shape = f"{len(parts):,} answer parts × {len(groups):,} fact groups"
        raise bad_request(
            [("max_calls", f"{needs} ({shape}); max_calls is {max_calls:,}")],
            f"{needs}, more than max_calls={max_calls:,}",
        )
    return plan


def answer_parts(answer: str, api_version: str) -> list[AnswerPart]:
    """`answer` in parts within the answer limit, cut at sentence ends where possible."""
    by_characters = api_version == "v1alpha"
    limit = MAX_ANSWER_CHARACTERS_V1ALPHA if by_characters else MAX_ANSWER_TOKENS
    sentences = _sentence_groups(answer)
    spans: list[tuple[int, int]] = []
    first = last = used = 0
    for sentence in sentences:
        for start, end in _within(answer, sentence.offsets.start, sentence.offsets.end, limit):
            # characters count the spaces between sentences too; tokens never count a space
            cost = end - last if by_characters else max(count_tokens(answer[start:end]), 1)
            if used and used + cost > limit:
                spans.append((first, last))
                used = 0
            if not used:
                first, cost = start, (end - start if by_characters else cost)
            last, used = end, used + cost
    if used:
        spans.append((first, last))
    return [AnswerPart(answer[s:e], offsets_in(answer, s, e)) for s, e in spans]


def _sentence_groups(text: str) -> list[SentenceGroup]:
    """The sentences of `text`, fed in slices: the cutter's cost grows with what it holds."""
    cutter = SentenceGroups()
    sentences = []
    for start in range(0, len(text), _FEED):
        sentences += cutter.feed(text[start : start + _FEED])
    return sentences + cutter.finish()


_FEED = 4_096


def _within(text: str, start: int, end: int, limit: int) -> Iterable[tuple[int, int]]:
    """`text[start:end]` in spans of at most `limit` characters, cut at a space where one is."""
    while end - start > limit:
        cut = text.rfind(" ", start + 1, start + limit)
        cut = cut if cut > start else start + limit
        yield start, cut
        start = cut
        while start < end and text[start].isspace():
            start += 1
    if end > start:
        yield start, end


def fact_pieces(fact: Any, index: int) -> list[FactPiece]:
    """One fact as pieces of at most 10,000 characters, each with the fact's attributes."""
    text, attributes = any_fact_parts(fact, index)
    if len(text) <= MAX_FACT_CHARACTERS:
        return [FactPiece(index, 0, len(text), text, attributes, fact)]
    spans = _pack(_paragraphs(text), MAX_FACT_CHARACTERS)
    return [FactPiece(index, s, e, text[s:e], attributes) for s, e in spans]


def _paragraphs(text: str) -> list[tuple[int, int]]:
    """The paragraphs of `text`; one longer than a fact may be, in its sentences, then cut."""
    spans: list[tuple[int, int]] = []
    start = 0
    while start < len(text):
        blank = text.find("\n\n", start)
        end = len(text) if blank < 0 else blank + 2
        if end - start <= MAX_FACT_CHARACTERS:
            spans.append((start, end))
        else:
            spans.extend(_sentences(text, start, end))
        start = end
    return spans


def _sentences(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """The sentences of `text[start:end]`, each cut to the fact limit; they cover it all."""
    sentences = _sentence_groups(text[start:end])
    bounds = [start + group.offsets.end for group in sentences[:-1]]
    spans = []
    for sentence_start, sentence_end in zip([start, *bounds], [*bounds, end], strict=True):
        position = sentence_start
        while sentence_end - position > MAX_FACT_CHARACTERS:
            spans.append((position, position + MAX_FACT_CHARACTERS))
            position += MAX_FACT_CHARACTERS
        spans.append((position, sentence_end))
    return spans


def _pack(spans: Sequence[tuple[int, int]], limit: int) -> list[tuple[int, int]]:
    """Adjacent spans joined while the joined span stays within `limit` characters."""
    packed: list[tuple[int, int]] = []
    for start, end in spans:
        if packed and end - packed[-1][0] <= limit:
            packed[-1] = (packed[-1][0], end)
        else:
            packed.append((start, end))
    return packed


def fact_arguments(group: Sequence[FactPiece]) -> list[Any]:
    """A fact group as the call's facts: whole facts as given, pieces as (text, attributes)."""
    return [
        piece.given if piece.given is not None else (piece.text, dict(piece.attributes))
        for piece in group
    ]


def merge_checks(plan: SplitPlan, results: Sequence[CheckGroundingResult]) -> SplitCheckResult:
    """The calls' `results` (in `plan.requests()` order) as one result of the whole answer."""
    chunks: dict[tuple[int, int], Chunk] = {}

    def placed(part: AnswerPart, claim: Claim, group: tuple[FactPiece, ...]) -> Claim:
        cited = []
        for citation in claim.citations:  # its source: the fact's index in the call's list
            if citation.source.isdigit() and int(citation.source) < len(group):
                piece = group[int(citation.source)]
                key = (piece.fact_index, piece.start)
                if key not in chunks:  # numbered once, in order of first citation
                    chunks[key] = Chunk(
                        piece.text, str(piece.fact_index), len(chunks), piece.attributes
                    )
                cited.append(chunks[key])
        return moved_claim(claim, shifted(_claim_offsets(part.text, claim), part.offsets), cited)

    claims, score = _merged(plan, results, placed, "citations", "support_score")
    return SplitCheckResult(
        plan.answer,
        score,
        claims,
        list(chunks.values()),
        results[0].raw,
        plan.calls,
        _billed(plan),
        results,
    )


def merge_corroborations(
    plan: SplitPlan, results: Sequence[CorroborationResult]
) -> SplitCorroborationResult:
    """The calls' `results` (in `plan.requests()` order) as one result of the whole content."""
    claims, score = _merged(
        plan, results, _corroboration_placed, "fact_indexes", "corroboration_score"
    )
    return SplitCorroborationResult(
        plan.answer, score, claims, results[0].raw, plan.calls, _billed(plan), results
    )


def _merged(
    plan: SplitPlan,
    results: Sequence[Any],
    placed: Callable[[AnswerPart, Any, tuple[FactPiece, ...]], ClaimT],
    cited: str,
    score: str,
) -> tuple[list[ClaimT], float | None]:
    """The claims of every part, placed, each its best result, and the weighted score.

    `cited` names the claims' citations, `score` the results' overall score.
    """
    groups = len(plan.fact_groups)
    claims: list[ClaimT] = []
    weighted = weight = 0.0
    for part_index, part in enumerate(plan.parts):
        part_results = results[part_index * groups : (part_index + 1) * groups]
        best: dict[tuple[int, int], tuple[Any, tuple[FactPiece, ...]]] = {}
        for result, group in zip(part_results, plan.fact_groups, strict=True):
            for claim in result.claims:
                key = (claim.start, claim.end)
                if key not in best or _rank(claim, cited) > _rank(best[key][0], cited):
                    best[key] = (claim, group)
        part_claims = [placed(part, *best[key]) for key in sorted(best)]
        claims.extend(part_claims)
        scores = [found for result in part_results if (found := getattr(result, score)) is not None]
        if scores:
            part_weight = sum(len(c.text) for c in part_claims) or len(part.text)
            weighted += max(scores) * part_weight
            weight += part_weight
    return claims, weighted / weight if weight else None


def _rank(claim: Any, cited: str) -> tuple[bool, float]:
    return bool(getattr(claim, cited)), -1.0 if claim.score is None else claim.score


def _claim_offsets(text: str, claim: Claim) -> Offsets:
    """`claim`'s span in its part: the offsets it holds, unless the API's bytes were off."""
    if claim.start_byte is None or claim.end_byte is None or claim.offsets_adjusted:
        return offsets_in(text, claim.start, claim.end)
    start_utf16, end_utf16 = claim.start_utf16, claim.end_utf16
    return Offsets(claim.start, claim.end, start_utf16, end_utf16, claim.start_byte, claim.end_byte)


def _billed(plan: SplitPlan) -> int:
    """The characters of every call: its answer part's and its fact group's."""
    facts_characters = [sum(len(piece.text) for piece in group) for group in plan.fact_groups]
    return sum(len(part.text) + chars for part in plan.parts for chars in facts_characters)


def _corroboration_placed(
    part: AnswerPart, claim: CorroboratedClaim, group: tuple[FactPiece, ...]
) -> CorroboratedClaim:
    """`claim` of `part` in the whole content's offsets, naming the caller's facts."""
    at = shifted(offsets_in(part.text, claim.start, claim.end), part.offsets)
    cited = dict(zip(claim.fact_indexes, claim.facts, strict=False))
    kept = [i for i in cited if 0 <= i < len(group)]
    return CorroboratedClaim(
        claim.text,
        *at.claim_order(),
        [group[i].fact_index for i in kept],
        [cited[i] for i in kept],
        claim.score,
        claim.offsets_adjusted,
    )
