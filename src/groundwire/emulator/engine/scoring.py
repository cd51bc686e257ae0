"""Scores one claim against a request's facts: the best window, else the best two facts together.

How (after MiniCheck, AlignScore and SummaC, without a model):

1. Candidates: sentences that share the claim's rarer terms, found through the inverted index,
   and every window of one to three consecutive sentences around them.
2. Coverage: the share of the claim's term weight (rarity over the request's facts) that a
   window contains; a term found only with another ending counts ``RELATED_TERM_CREDIT``. The
   fact's attributes (author, title, uri) count as part of each of its windows.
3. Score: coverage mapped so that ``COVERAGE_AT_DEFAULT_BAR`` lands on 0.6, the default
   citation threshold, then cut by each veto of :mod:`checks` that the window triggers.
4. Two facts: when the union of two facts' best windows covers clearly more than either alone
   (``PAIR_MIN_GAIN``), the pair is scored as one piece of evidence, and both are cited.

The claim's score does not depend on the threshold; the threshold only picks the citations, so
raising it never adds one.
"""

from __future__ import annotations

import heapq
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations

from groundwire.emulator.engine.analysis import (
    Analysis,
    Token,
    analyse,
    may_negate,
    written_as_name,
)
from groundwire.emulator.engine.checks import (
    OPPOSABLE_TERMS,
    conflicting_value,
    key_tokens,
    missing_key_terms,
    negation_conflict,
    opposite_meaning,
    roles_swapped,
    unbound_numbers,
)
from groundwire.emulator.engine.index import FactIndex, Window
from groundwire.emulator.engine.layout import strip_layout
from groundwire.emulator.engine.results import Citation

DEFAULT_BAR = 0.6
"""The default citation threshold (Google's), and the score a just-supported claim gets."""
COVERAGE_AT_DEFAULT_BAR = 0.65
"""Coverage that scores :data:`DEFAULT_BAR`; tuned on the development cases only."""
RELATED_TERM_CREDIT = 0.8
PAIR_MIN_GAIN = 0.1
CITABLE_FLOOR = 0.2
"""Support below this never yields a citation, whatever the threshold."""

# Each veto a window triggers multiplies its score by the veto's factor.
MISSING_KEY_FACTOR = 0.4
MORE_MISSING_KEYS_FACTOR = 0.7
OTHER_VALUE_FACTOR = 0.4
NEGATION_FACTOR = 0.35
OPPOSITE_MEANING_FACTOR = 0.35
SWAPPED_ROLES_FACTOR = 0.35

_CANDIDATE_SENTENCES = 16
_COMMON_TERM_MIN = 50
_COMMON_TERM_SHARE = 100
_WINDOWS_TRIED_PER_FACT = 4
_FACTS_TRIED = 8
_FACTS_PAIRED = 6
_KNOWN_NAME_SAMPLES = 4


@dataclass(frozen=True, slots=True)
class Evidence:
    """A window that supports a claim, with its score after vetoes."""

    window: Window
    score: float


@dataclass(frozen=True, slots=True)
class ClaimSupport:
    """Everything found for one claim, before a threshold picks the citations.

    ``per_fact`` holds each considered fact's best window, strongest first; ``pair`` holds two
    facts' windows that together support the claim better than any one fact does.
    """

    score: float
    per_fact: tuple[Evidence, ...]
    pair: tuple[Evidence, Evidence] | None

    def citations(self, index: FactIndex, threshold: float) -> tuple[Citation, ...]:
        """The facts to cite at a threshold, strongest first (empty when none reaches it).

        Example:
            >>> from groundwire.emulator.engine.index import build_index
            >>> from groundwire.emulator.engine.results import Fact
            >>> index = build_index([Fact("Rome was founded in 753 BC.")])
            >>> support = support_claim("Rome was founded in 753 BC.", index)
            >>> [c.fact_index for c in support.citations(index, 0.6)]
            [0]
        """
        chosen: dict[int, Evidence] = {}
        for evidence in self.per_fact:
            if evidence.score >= max(threshold, CITABLE_FLOOR):
                chosen[evidence.window.fact_index] = evidence
        if self.pair is not None and self.score >= max(threshold, CITABLE_FLOOR):
            for evidence in self.pair:
                known = chosen.get(evidence.window.fact_index)
                if known is None or known.score < self.score:
                    chosen[evidence.window.fact_index] = Evidence(evidence.window, self.score)
        ranked = sorted(chosen.values(), key=lambda e: (-e.score, e.window.fact_index))
        return tuple(
            Citation(e.window.fact_index, index.window_text(e.window), e.score) for e in ranked
        )


NO_SUPPORT = ClaimSupport(score=0.0, per_fact=(), pair=None)


def calibrate(coverage: float) -> float:
    """Map coverage (0..1) to a support score, so that the default bar sits where it should.

    Example:
        >>> calibrate(0.0), calibrate(COVERAGE_AT_DEFAULT_BAR), calibrate(1.0)
        (0.0, 0.6, 1.0)
    """
    if coverage >= COVERAGE_AT_DEFAULT_BAR:
        above = (coverage - COVERAGE_AT_DEFAULT_BAR) / (1.0 - COVERAGE_AT_DEFAULT_BAR)
        return round(DEFAULT_BAR + (1.0 - DEFAULT_BAR) * above, 4)
    return round(DEFAULT_BAR * coverage / COVERAGE_AT_DEFAULT_BAR, 4)


@dataclass(frozen=True, slots=True)
class _Scored:
    window: Window
    exact: int
    related: int
    coverage: float


class _ClaimMatcher:
    """A claim's terms as bits, so that covering a window is OR-ing a few integers."""

    def __init__(self, claim: Analysis, index: FactIndex) -> None:
        self.claim = claim
        self.index = index
        self.terms = list(dict.fromkeys(token.term for token in claim.content_tokens))
        self.weights = [index.weight(term) for term in self.terms]
        self.total = sum(self.weights)
        self.related = [index.related_terms(term) for term in self.terms]
        self._exact_bits = {term: 1 << bit for bit, term in enumerate(self.terms)}
        self._related_bits: dict[str, int] = {}
        for bit, others in enumerate(self.related):
            for other in others:
                self._related_bits[other] = self._related_bits.get(other, 0) | 1 << bit
        self._sentence_masks: dict[int, tuple[int, int]] = {}
        self._claim_needs_readings = (
            bool(claim.negated_clauses)
            or sum(token.name_like for token in claim.tokens) >= 2
            or any(token.term in OPPOSABLE_TERMS for token in claim.tokens)
            or any(token.numeric for token in claim.tokens)
        )

    def masks(self, terms: frozenset[str]) -> tuple[int, int]:
        """The claim terms found in a set of terms: exactly, and only with another ending."""
        exact = related = 0
        for term in terms.intersection(self._exact_bits):
            exact |= self._exact_bits[term]
        for term in terms.intersection(self._related_bits):
            related |= self._related_bits[term]
        return exact, related & ~exact

    def needs_readings(self, evidence_texts: Sequence[str]) -> bool:
        """Whether the checks that read sentences closely could object: the claim has a
        negation, names, a quantity or a word with an opposite, or the evidence may negate."""
        return self._claim_needs_readings or any(may_negate(text) for text in evidence_texts)

    def has_idle_edge(self, window: Window) -> bool:
        """Whether the first or last sentence adds none of the claim's terms to the rest (then
        the smaller window covers as much, and is the better citation)."""
        masks = [self.sentence_masks(s) for s in range(window.first, window.last + 1)]
        merged = [exact | related for exact, related in masks]
        inner_first = _union(merged[1:])
        inner_last = _union(merged[:-1])
        return merged[0] & ~inner_first == 0 or merged[-1] & ~inner_last == 0

    def sentence_masks(self, sentence: int) -> tuple[int, int]:
        """The masks of one indexed sentence, computed once."""
        if sentence not in self._sentence_masks:
            self._sentence_masks[sentence] = self.masks(self.index.sentence_terms[sentence])
        return self._sentence_masks[sentence]

    def coverage(self, exact: int, related: int) -> float:
        """The share of the claim's term weight that the masks cover."""
        found = 0.0
        for bit, weight in enumerate(self.weights):
            if exact >> bit & 1:
                found += weight
            elif related >> bit & 1:
                found += RELATED_TERM_CREDIT * weight
        return found / self.total if self.total else 0.0

    def score_window(self, window: Window) -> _Scored:
        """A window's masks and coverage, its fact's attributes included."""
        exact, related = self.masks(self.index.attribute_terms[window.fact_index])
        for sentence in range(window.first, window.last + 1):
            sentence_exact, sentence_related = self.sentence_masks(sentence)
            exact, related = exact | sentence_exact, related | sentence_related
        return _Scored(window, exact, related, self.coverage(exact, related))

    def candidate_sentences(self) -> list[int]:
        """Sentences sharing the claim's rarer terms, best first: a term found in more than a
        small share of sentences only gathers candidates when no rarer term has any."""
        postings = self.index.postings
        common = max(_COMMON_TERM_MIN, self.index.sentence_count // _COMMON_TERM_SHARE)
        scores: dict[int, float] = {}
        variants = [
            (variant, self.weights[bit] * (1.0 if variant == term else RELATED_TERM_CREDIT))
            for bit, term in enumerate(self.terms)
            for variant in (term, *self.related[bit])
            if variant in postings
        ]
        variants.sort(key=lambda variant: (len(postings[variant[0]]), variant[0]))
        for variant, gain in variants:
            sentences = postings[variant]
            if len(sentences) > common and scores:
                break
            for sentence in sentences:
                scores[sentence] = scores.get(sentence, 0.0) + gain
        best = heapq.nlargest(_CANDIDATE_SENTENCES, scores.items(), key=lambda kv: (kv[1], -kv[0]))
        return [sentence for sentence, _ in best]


def support_claim(
    claim_text: str, index: FactIndex, threshold: float = DEFAULT_BAR
) -> ClaimSupport:
    """Find how well, and by which windows of which facts, the facts support one claim.

    The score does not depend on ``threshold``; facts that cannot reach it are not examined in
    full, since they will not be cited.

    Example:
        >>> from groundwire.emulator.engine.index import build_index
        >>> from groundwire.emulator.engine.results import Fact
        >>> index = build_index([Fact("The Eiffel Tower was completed in 1889.")])
        >>> support_claim("The Eiffel Tower was completed in 1889.", index).score
        1.0
        >>> support_claim("The Eiffel Tower was completed in 1899.", index).score < 0.6
        True
    """
    claim = analyse(strip_layout(claim_text))
    matcher = _ClaimMatcher(claim, index)
    if not matcher.terms or index.sentence_count == 0:
        return NO_SUPPORT
    by_fact = _windows_by_fact(matcher)
    ranked_facts = sorted(by_fact, key=lambda fact: (-by_fact[fact][0].coverage, fact))
    keys = key_tokens(claim, lambda term: _is_known_name(term, index))
    citable = max(threshold, CITABLE_FLOOR)
    per_fact: list[Evidence] = []
    best_single = 0.0
    for fact in ranked_facts[:_FACTS_TRIED]:
        upper = calibrate(by_fact[fact][0].coverage)
        if upper <= best_single and upper < citable:
            break
        evidence = _best_window(by_fact[fact], matcher, keys)
        if evidence is not None:
            per_fact.append(evidence)
            best_single = max(best_single, evidence.score)
    per_fact.sort(key=lambda e: (-e.score, e.window.fact_index))
    pair_candidates = [by_fact[fact][0] for fact in ranked_facts[:_FACTS_PAIRED]]
    pair = _best_pair(pair_candidates, matcher, keys, best_single)
    if pair is None:
        return ClaimSupport(score=best_single, per_fact=tuple(per_fact), pair=None)
    pair_score, first, second = pair
    return ClaimSupport(score=pair_score, per_fact=tuple(per_fact), pair=(first, second))


def _windows_by_fact(matcher: _ClaimMatcher) -> dict[int, list[_Scored]]:
    """Candidate windows grouped by fact, each fact's best coverage first."""
    index = matcher.index
    windows = {
        window
        for sentence in matcher.candidate_sentences()
        for window in index.windows_around(sentence)
        if window.size == 1 or not matcher.has_idle_edge(window)
    }
    by_fact: dict[int, list[_Scored]] = {}
    for window in sorted(windows, key=lambda w: (w.fact_index, w.first, w.last)):
        by_fact.setdefault(window.fact_index, []).append(matcher.score_window(window))
    for scored in by_fact.values():
        scored.sort(key=lambda s: (-s.coverage, s.window.size, s.window.first))
    return by_fact


def _best_window(
    scored: Sequence[_Scored], matcher: _ClaimMatcher, keys: Sequence[Token]
) -> Evidence | None:
    best: Evidence | None = None
    for candidate in scored[:_WINDOWS_TRIED_PER_FACT]:
        upper = calibrate(candidate.coverage)
        if upper < CITABLE_FLOOR or (best is not None and upper <= best.score):
            break
        score = round(upper * _veto_factor([candidate.window], matcher, keys), 4)
        if best is None or score > best.score:
            best = Evidence(candidate.window, score)
    return best


def _best_pair(
    candidates: Sequence[_Scored],
    matcher: _ClaimMatcher,
    keys: Sequence[Token],
    best_single: float,
) -> tuple[float, Evidence, Evidence] | None:
    best: tuple[float, Evidence, Evidence] | None = None
    for first, second in combinations(candidates, 2):
        coverage = matcher.coverage(first.exact | second.exact, first.related | second.related)
        if coverage < max(first.coverage, second.coverage) + PAIR_MIN_GAIN:
            continue
        bar = max(best_single, best[0] if best else 0.0)
        upper = calibrate(coverage)
        if upper <= bar:
            continue
        windows = sorted((first.window, second.window), key=lambda w: w.fact_index)
        score = round(upper * _veto_factor(windows, matcher, keys), 4)
        if score > bar:
            best = (score, Evidence(windows[0], score), Evidence(windows[1], score))
    return best


def _union(masks: Sequence[int]) -> int:
    merged = 0
    for mask in masks:
        merged |= mask
    return merged


def _veto_factor(windows: Sequence[Window], matcher: _ClaimMatcher, keys: Sequence[Token]) -> float:
    index = matcher.index
    evidence_terms = frozenset().union(
        *(index.attribute_terms[w.fact_index] for w in windows),
        *(index.sentence_terms[s] for w in windows for s in range(w.first, w.last + 1)),
    )
    texts = [index.sentence_text(s) for w in windows for s in range(w.first, w.last + 1)]
    readings = (
        [analyse(strip_layout(text)) for text in texts] if matcher.needs_readings(texts) else []
    )
    factor = 1.0
    missing = missing_key_terms(keys, evidence_terms, index.related_terms)
    if readings:
        missing += [n for n in unbound_numbers(matcher.claim, readings) if n not in missing]
    if missing:
        factor *= MISSING_KEY_FACTOR * MORE_MISSING_KEYS_FACTOR ** (len(missing) - 1)
    elif len(readings) > 1 and conflicting_value(matcher.claim, keys, readings):
        factor *= OTHER_VALUE_FACTOR
    if readings and negation_conflict(matcher.claim, readings, index.weight):
        factor *= NEGATION_FACTOR
    if readings and opposite_meaning(matcher.claim, readings):
        factor *= OPPOSITE_MEANING_FACTOR
    if readings and roles_swapped(matcher.claim, readings):
        factor *= SWAPPED_ROLES_FACTOR
    return factor


def _is_known_name(term: str, index: FactIndex) -> bool:
    """Whether the facts write this term as a name: capitalised mid-sentence, or in attributes."""
    if any(term in attributes for attributes in index.attribute_terms):
        return True
    return any(
        written_as_name(index.sentence_text(sentence), term)
        for sentence in index.postings.get(term, [])[:_KNOWN_NAME_SAMPLES]
    )
