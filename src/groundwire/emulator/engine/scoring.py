"""Scores one claim against a request's facts: the best window, else a few windows together.

How (after MiniCheck, AlignScore and SummaC, without a model):

1. Candidates: sentences that share the claim's rarer terms, found through the inverted index,
   and every window of one to three consecutive sentences around them.
2. Coverage (:mod:`matching`): the share of the claim's term weight that a window contains.
3. Score: coverage mapped so that ``COVERAGE_AT_DEFAULT_BAR`` lands on 0.6, the default
   citation threshold, then cut by each veto that the window triggers (:mod:`vetoes`).
4. Composed evidence: a claim may join what distant sentences of one fact, or several facts,
   say. Up to ``MAX_COMPOSED`` windows that do not overlap are joined while each adds clearly
   to what the others cover (``PAIR_MIN_GAIN``) and is about the same thing (it holds one of
   the claim's names, or for a claim without names a term the others hold: pieces about other
   entities do not make a relation between the claim's); the union is scored as one piece of
   evidence, vetoes included, and every fact in it is cited. A piece that names none of the
   claim's names may join one that does from the same fact (or a record's), when it names
   nothing else: a document goes on about what it named earlier.

The claim's score does not depend on the threshold; the threshold only picks the citations, so
raising it never adds one.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from groundwire.emulator.engine.analysis import (
    Token,
    analyse,
    written_as_name,
)
from groundwire.emulator.engine.checks import key_tokens
from groundwire.emulator.engine.index import FactIndex, Window
from groundwire.emulator.engine.layout import named_sources, strip_layout
from groundwire.emulator.engine.matching import ClaimMatcher, ScoredWindow
from groundwire.emulator.engine.results import Citation
from groundwire.emulator.engine.vetoes import veto_factor

DEFAULT_BAR = 0.6
"""The default citation threshold (Google's), and the score a just-supported claim gets."""
COVERAGE_AT_DEFAULT_BAR = 0.66
"""Coverage that scores :data:`DEFAULT_BAR`; tuned on tuning data only (engine-dev tune part)."""
PAIR_MIN_GAIN = 0.06
MAX_COMPOSED = 3
"""The most windows one piece of composed evidence joins."""
CITABLE_FLOOR = 0.2
"""Support below this never yields a citation, whatever the threshold."""

_WINDOWS_TRIED_PER_FACT = 4
_PIECES_PER_FACT = 3
"""Windows of one fact that may join composed evidence: a summary's sentence may condense
three distant paragraphs of one article."""
_KEY_PIECES_PER_FACT = 2
"""More windows of one fact that may join composed evidence, each for a number the best ones
lack."""
_FACTS_TRIED = 8
_FACTS_COMPOSED = 6
_COMPOSITION_SEEDS = 3
_KNOWN_NAME_SAMPLES = 4


@dataclass(frozen=True, slots=True)
class Evidence:
    """A window that supports a claim, with its score after vetoes."""

    window: Window
    score: float


@dataclass(frozen=True, slots=True)
class ClaimSupport:
    """Everything found for one claim, before a threshold picks the citations.

    ``per_fact`` holds each considered fact's best window, strongest first; ``composed`` holds
    windows (of one fact or several) that together support the claim better than any one does.

    Example:
        >>> from groundwire.emulator.engine.index import build_index
        >>> from groundwire.emulator.engine.results import Fact
        >>> index = build_index([Fact("The Eiffel Tower was completed in 1889.")])
        >>> support_claim("The Eiffel Tower was completed in 1899.", index).contradicted
        True
        >>> support_claim("The Eiffel Tower was completed with iron.", index).contradicted
        False
    """

    score: float
    per_fact: tuple[Evidence, ...]
    composed: tuple[Evidence, ...]
    contradicted: bool = False
    """Whether some evidence would support the claim but speaks against it: a window whose
    words alone reach the default bar, and beat the claim's score, was cut by a veto (another
    number, a record's negation, swapped roles, a missing name), so the claim is contradicted,
    not only partly covered. A negation, opposite word or role order read in prose cuts the
    score but contradicts nothing (see :func:`_veto_factor`)."""

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
        if self.composed and self.score >= max(threshold, CITABLE_FLOOR):
            for evidence in self.composed:
                known = chosen.get(evidence.window.fact_index)
                if known is None or known.score < self.score:
                    chosen[evidence.window.fact_index] = Evidence(evidence.window, self.score)
        ranked = sorted(chosen.values(), key=lambda e: (-e.score, e.window.fact_index))
        return tuple(
            Citation(e.window.fact_index, index.window_text(e.window), e.score) for e in ranked
        )


NO_SUPPORT = ClaimSupport(score=0.0, per_fact=(), composed=())


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
    named = frozenset(fact for fact in named_sources(claim_text) if fact < len(index.facts))
    matcher = ClaimMatcher(claim, index, named if len(named) < len(index.facts) else frozenset())
    if not matcher.terms or index.sentence_count == 0:
        return NO_SUPPORT
    by_fact = _windows_by_fact(matcher)
    ranked_facts = sorted(by_fact, key=lambda fact: (-by_fact[fact][0].coverage, fact))
    keys = key_tokens(claim, lambda term: _is_known_name(term, index))
    citable = max(threshold, CITABLE_FLOOR)
    per_fact: list[Evidence] = []
    vetoed: list[float] = []
    best_single = 0.0
    for fact in ranked_facts[:_FACTS_TRIED]:
        upper = calibrate(by_fact[fact][0].coverage)
        if upper <= best_single and upper < citable:
            break
        evidence = _best_window(by_fact[fact], matcher, keys, vetoed)
        if evidence is not None:
            per_fact.append(evidence)
            best_single = max(best_single, evidence.score)
    per_fact.sort(key=lambda e: (-e.score, e.window.fact_index))
    numbers = matcher.bits([token.term for token in keys if token.numeric])
    pieces = _composable_windows(
        [by_fact[fact] for fact in ranked_facts[:_FACTS_COMPOSED]], numbers
    )
    composed = _best_composition(pieces, matcher, keys, best_single, vetoed)
    if composed is None:
        contradicted = _contradicts(vetoed, best_single)
        return ClaimSupport(best_single, tuple(per_fact), (), contradicted)
    score, windows = composed
    joined = tuple(Evidence(window, score) for window in windows)
    return ClaimSupport(score, tuple(per_fact), joined, _contradicts(vetoed, score))


def _windows_by_fact(matcher: ClaimMatcher) -> dict[int, list[ScoredWindow]]:
    """Candidate windows grouped by fact, each fact's best coverage first."""
    index = matcher.index
    windows = {
        window
        for sentence in matcher.candidate_sentences()
        for window in index.windows_around(sentence)
        if window.size == 1 or not matcher.has_idle_edge(window)
    }
    by_fact: dict[int, list[ScoredWindow]] = {}
    for window in sorted(windows, key=lambda w: (w.fact_index, w.first, w.last)):
        by_fact.setdefault(window.fact_index, []).append(matcher.score_window(window))
    for scored in by_fact.values():
        scored.sort(key=lambda s: (-s.coverage, s.window.size, s.window.first))
    return by_fact


def _best_window(
    scored: Sequence[ScoredWindow],
    matcher: ClaimMatcher,
    keys: Sequence[Token],
    vetoed: list[float],
) -> Evidence | None:
    """The fact's best window after vetoes.

    Each window a veto cut adds its score before the vetoes to ``vetoed``.
    """
    best: Evidence | None = None
    for candidate in scored[:_WINDOWS_TRIED_PER_FACT]:
        upper = calibrate(candidate.coverage)
        if upper < CITABLE_FLOOR or (best is not None and upper <= best.score):
            break
        factor, contradicted = veto_factor([candidate.window], matcher, keys)
        score = round(upper * factor, 4)
        if contradicted:
            vetoed.append(upper)
        if best is None or score > best.score:
            best = Evidence(candidate.window, score)
    return best


def _contradicts(vetoed: Sequence[float], score: float) -> bool:
    """Whether a window a veto cut would, on its words alone, be grounded and beat the claim."""
    best = max(vetoed, default=0.0)
    return best > score and best >= DEFAULT_BAR


def _composable_windows(
    by_fact: Sequence[Sequence[ScoredWindow]], numbers: int
) -> list[ScoredWindow]:
    """Each fact's best windows that do not overlap (``_PIECES_PER_FACT``), best coverage first.

    Then, for each number of the claim those windows lack, the fact's best window that holds
    it: an age or a count is often said once, far from the rest (``Holmes, 27,``). (Names
    gather enough windows already; more for them cited hallucinated claims on tuning data.)
    """
    pieces: list[ScoredWindow] = []
    for scored in by_fact:
        taken = [scored[0]]
        for candidate in scored[1:]:
            if len(taken) >= _PIECES_PER_FACT:
                break
            if not any(_overlap(candidate.window, t.window) for t in taken):
                taken.append(candidate)
        held = 0
        for piece in taken:
            held |= piece.exact | piece.related
        lacking = numbers & ~held
        for candidate in scored:
            if not lacking or len(taken) >= _PIECES_PER_FACT + _KEY_PIECES_PER_FACT:
                break
            found = (candidate.exact | candidate.related) & lacking
            if found and not any(_overlap(candidate.window, t.window) for t in taken):
                taken.append(candidate)
                lacking &= ~found
        pieces.extend(taken)
    pieces.sort(key=lambda s: (-s.coverage, s.window.fact_index, s.window.first))
    return pieces


def _best_composition(
    pieces: Sequence[ScoredWindow],
    matcher: ClaimMatcher,
    keys: Sequence[Token],
    best_single: float,
    vetoed: list[float],
) -> tuple[float, tuple[Window, ...]] | None:
    """The best union of up to ``MAX_COMPOSED`` windows.

    It is grown greedily from the strongest few, each window joined only when it adds
    ``PAIR_MIN_GAIN`` coverage. Each union a veto cut adds its score before to ``vetoed``.
    """
    best: tuple[float, tuple[Window, ...]] | None = None
    tried: set[tuple[Window, ...]] = set()
    names = matcher.bits([token.term for token in keys if not token.numeric])
    for seed in pieces[:_COMPOSITION_SEEDS]:
        if names and not (seed.exact | seed.related) & names:
            continue
        chosen = [seed]
        exact, related, coverage = seed.exact, seed.related, seed.coverage
        while len(chosen) < MAX_COMPOSED:
            step = _best_addition(pieces, chosen, exact, related, matcher, names)
            if step is None or step[2] < coverage + PAIR_MIN_GAIN:
                break
            piece, (exact, related), coverage = step[0], step[1], step[2]
            chosen.append(piece)
        if len(chosen) == 1:
            continue
        windows = tuple(sorted((p.window for p in chosen), key=lambda w: (w.fact_index, w.first)))
        bar = max(best_single, best[0] if best else 0.0)
        upper = calibrate(coverage)
        if windows in tried or upper <= bar:
            continue
        tried.add(windows)
        factor, contradicted = veto_factor(windows, matcher, keys)
        score = round(upper * factor, 4)
        if contradicted:
            vetoed.append(upper)
        if score > bar:
            best = (score, windows)
    return best


def _best_addition(
    pieces: Sequence[ScoredWindow],
    chosen: Sequence[ScoredWindow],
    exact: int,
    related: int,
    matcher: ClaimMatcher,
    names: int,
) -> tuple[ScoredWindow, tuple[int, int], float] | None:
    """The piece that adds most coverage and is about the same thing.

    It holds one of the claim's names (when the claim has names), else a claim term the
    chosen pieces hold. A piece that holds none of the claim's names may still join one that
    does when it speaks of the same topic (:func:`_joins_unnamed`).
    """
    best: tuple[ScoredWindow, tuple[int, int], float] | None = None
    held = exact | related
    for piece in pieces:
        if any(_overlap(piece.window, other.window) for other in chosen):
            continue
        if piece.exact & ~exact == 0 and piece.related & ~held == 0:
            continue
        found = piece.exact | piece.related
        if names and not found & names:
            if not _joins_unnamed(piece, chosen, held, matcher):
                continue
        elif not found & (names or held):
            continue
        union = (exact | piece.exact, related | piece.related)
        coverage = matcher.coverage(*union)
        if best is None or coverage > best[2]:
            best = (piece, union, coverage)
    return best


def _joins_unnamed(
    piece: ScoredWindow, chosen: Sequence[ScoredWindow], held: int, matcher: ClaimMatcher
) -> bool:
    """Whether a piece that names none of the claim's names may join the chosen ones.

    A document goes on about what it named earlier without naming it again (``By noon the
    wards were full`` after ``Harbor City opened a hospital``), and a review speaks of the
    record it comes with. So the piece may join when it shares a claim term with the chosen
    pieces, comes from one of their facts (or they hold a record), and names nothing the
    claim does not: a passage of its own, or one about another entity, makes no relation
    between the claim's.
    """
    index = matcher.index
    if not piece.exact & held and not piece.related & held:
        return False
    if not any(
        other.window.fact_index == piece.window.fact_index
        or index.is_record[other.window.fact_index]
        for other in chosen
    ):
        return False
    claim_terms = matcher.claim.terms
    for sentence in range(piece.window.first, piece.window.last + 1):
        reading = analyse(strip_layout(index.sentence_text(sentence)))
        if any(
            token.name_like and not token.sentence_initial and token.term not in claim_terms
            for token in reading.content_tokens
        ):
            return False
    return True


def _overlap(one: Window, other: Window) -> bool:
    return (
        one.fact_index == other.fact_index and one.first <= other.last and other.first <= one.last
    )


def _is_known_name(term: str, index: FactIndex) -> bool:
    """Whether the facts write this term as a name: capitalised mid-sentence, or in attributes."""
    if any(term in attributes for attributes in index.attribute_terms):
        return True
    return any(
        written_as_name(index.sentence_text(sentence), term)
        for sentence in index.postings.get(term, [])[:_KNOWN_NAME_SAMPLES]
    )
