"""Checks an answer candidate against facts, claim by claim: the CheckGrounding computation.

A claim (a sentence that needs a check) is compared with windows of up to
``MAX_WINDOW_SENTENCES`` consecutive sentences of one fact, around the fact sentences that hold
most of its weight. A window's score starts from the overlap count: the share of the claim's
terms it holds, with the fact's attributes (a number weighs ``numbers``); it is then multiplied
by ``1 - weight`` of each veto that fires on it (rules.RULES). The claim's score is its best
window's; every fact whose best window reaches the citation threshold is cited. With a judge,
the judge scores those windows.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Sequence
from typing import NamedTuple

from groundwire.emulator.engine.budget import WorkBudget
from groundwire.emulator.engine.check_required import needs_check
from groundwire.emulator.engine.index import FactIndex, build_index
from groundwire.emulator.engine.results import Citation, Claim, Fact, GroundingResult
from groundwire.emulator.engine.rules import (
    CANDIDATE_LIMIT,
    CANDIDATE_SENTENCES,
    CITABLE_FLOOR,
    CLAIM_UNITS,
    DEFAULT_BAR,
    MAX_WINDOW_SENTENCES,
    WHOLE_FACT_CHARACTERS,
    rule_weight,
)
from groundwire.emulator.engine.sentences import split_claims
from groundwire.emulator.engine.terms import NAME, NUMBER, Reading, read

ClaimsAndPassages = list[tuple[str, list[str]]]
"""Each claim that needs a check, with the passages it may be supported by."""
BatchJudge = Callable[[ClaimsAndPassages], list[list[float]]]
"""A judge of the user's own, batch form: ``[(claim, [passage, ...]), ...]`` in, one list of
scores in [0, 1] per claim out, one score per passage."""


class Window(NamedTuple):
    """A run of sentences of one fact and how well it supports a claim (``score``, vetoes in)."""

    score: float
    fact_index: int
    first: int
    last: int


class Support(NamedTuple):
    """What the facts say of one claim: its score and its citations."""

    score: float
    citations: tuple[Citation, ...]


NO_SUPPORT = Support(0.0, ())
"""A claim no window supports: score 0, no citation."""


def check_grounding(
    answer: str,
    facts: Sequence[Fact],
    *,
    citation_threshold: float = DEFAULT_BAR,
    budget: WorkBudget | None = None,
    judge: BatchJudge | None = None,
) -> GroundingResult:
    """Split the answer into claims and say, for each, whether and where the facts support it.

    A claim is grounded when its score reaches ``citation_threshold``; it then cites every fact
    whose best window reaches the threshold too, strongest first. Support under
    ``CITABLE_FLOOR`` (0.2) is never cited. Sentences that state no fact get
    ``check_required=False`` and count toward nothing. With a ``budget``, each claim checked
    spends :func:`claim_work`; claims reached once it is spent are unsupported, uncited and
    counted in ``unfinished_claims``. With a ``judge``, it is called once with every checked
    claim that has candidate windows, and its scores replace the lexical score and the vetoes.

    Example:
        >>> facts = [Fact("The capital is Toronto.", {"author": "Wikipedia"})]
        >>> result = check_grounding("Hi! Wikipedia says the capital is Toronto.", facts)
        >>> [(c.text, c.check_required, c.grounded) for c in result.claims]
        [('Hi!', False, False), ('Wikipedia says the capital is Toronto.', True, True)]
        >>> result.support_score
        1.0
    """
    if not 0.0 <= citation_threshold <= 1.0:
        raise ValueError(f"citation_threshold must be within [0, 1], got {citation_threshold}")
    encoded = answer.encode()
    spans = split_claims(answer)
    texts = [encoded[start:end].decode() for start, end in spans]
    checked = {number for number, text in enumerate(texts) if needs_check(text)}
    index = build_index(facts, {term for n in checked for term, _ in read(texts[n]).terms})
    supports: dict[int, Support] = {}
    unfinished: set[int] = set()
    judged: dict[int, list[Window]] = {}
    known: dict[str, Support | list[Window]] = {}
    for number in sorted(checked):
        text = texts[number]
        if budget is not None:
            if budget.exhausted:
                unfinished.add(number)
                continue
            budget.spend(claim_work(text, index))
        if text not in known:
            windows = candidate_windows(read(text), index, vetoes=judge is None)
            known[text] = windows if judge else support_of(windows, index, citation_threshold)
        found = known[text]
        if isinstance(found, Support):
            supports[number] = found
        elif found:
            judged[number] = found
    if judge is not None and judged:
        supports.update(judged_supports(judge, texts, judged, index, citation_threshold))
    claims: list[Claim] = []
    for number, ((start, end), text) in enumerate(zip(spans, texts, strict=True)):
        score, cited = supports.get(number, NO_SUPPORT)
        claims.append(Claim(text, start, end, number in checked, score, bool(cited), cited))
    checked_claims = [claim for claim in claims if claim.check_required]
    return GroundingResult(
        claims=tuple(claims),
        support_score=answer_support(checked_claims),
        unfinished_claims=len(unfinished),
    )


def claim_work(claim_text: str, index: FactIndex) -> int:
    """The work units of checking one claim: ``CLAIM_UNITS``, plus one per term match.

    A term match is a fact sentence holding one of the claim's terms, counted for each term.

    Example:
        >>> index = build_index([Fact("Rome is old. Rome is big.")])
        >>> claim_work("Rome is old.", index) - CLAIM_UNITS  # rom twice, old once
        3
    """
    postings = index.postings
    return CLAIM_UNITS + sum(len(postings.get(term, ())) for term, _ in read(claim_text).terms)


def candidate_windows(claim: Reading, index: FactIndex, *, vetoes: bool = True) -> list[Window]:
    """Each fact's best window for a claim, best first (without vetoes: the windows a judge sees).

    Windows are read around the ``CANDIDATE_SENTENCES`` fact sentences holding most of the
    claim's weight, among those holding its rarest terms (up to ``CANDIDATE_LIMIT`` sentences,
    rarest term first); a fact none of whose sentences is among them has no window.

    Example:
        >>> index = build_index([Fact("Rome is old."), Fact("Rome is big.")])
        >>> [(w.fact_index, w.score) for w in candidate_windows(read("Rome is big."), index)]
        [(1, 1.0), (0, 0.5)]
    """
    wanted = frozenset(term for term, _ in claim.terms)
    numbers = frozenset(term for term, kind in claim.terms if kind == NUMBER)
    number_weight = rule_weight("numbers")

    def weight(held: frozenset[str] | set[str]) -> float:
        return len(held) + (number_weight - 1.0) * len(held & numbers) if numbers else len(held)

    total = weight(wanted)
    if not total:
        return []
    candidates: set[int] = set()
    for term in sorted(wanted, key=lambda term: (len(index.postings.get(term, ())), term)):
        found = index.postings.get(term, [])
        if candidates and len(candidates) + len(found) > CANDIDATE_LIMIT:
            break
        candidates.update(found[:CANDIDATE_LIMIT])
    sentences = index.sentences
    ranked = heapq.nsmallest(
        CANDIDATE_SENTENCES,
        ((-weight(wanted & sentences[s].terms), s) for s in candidates),
    )
    spans: set[tuple[int, int]] = set()
    for _, sentence in ranked:
        bounds = index.fact_sentences[index.sentence_fact[sentence]]
        for first in range(max(bounds.start, sentence - MAX_WINDOW_SENTENCES + 1), sentence + 1):
            stop = min(bounds.stop, first + MAX_WINDOW_SENTENCES)
            spans.update((first, last) for last in range(sentence, stop))
        if len(index.facts[index.sentence_fact[sentence]].text) <= WHOLE_FACT_CHARACTERS:
            spans.add((bounds.start, bounds.stop - 1))
    held_by_sentence: dict[int, frozenset[str]] = {}
    shares = []
    for first, last in spans:
        fact_index = index.sentence_fact[first]
        bounds = index.fact_sentences[fact_index]
        if last - first >= MAX_WINDOW_SENTENCES and (first, last + 1) == (
            bounds.start,
            bounds.stop,
        ):
            shares.append(
                (-weight(wanted & index.fact_terms[fact_index]) / total, last - first, first, last)
            )
            continue
        held = set(wanted.intersection(index.attribute_terms[fact_index]))
        for n in range(first, last + 1):
            if n not in held_by_sentence:
                held_by_sentence[n] = wanted.intersection(sentences[n].terms)
            held.update(held_by_sentence[n])
        shares.append((-weight(held) / total, last - first, first, last))
    best: dict[int, Window] = {}
    veto = _Vetoes(claim, index) if vetoes else None
    for negative_share, _, first, last in sorted(shares):
        fact_index = index.sentence_fact[first]
        if fact_index in best and best[fact_index].score >= -negative_share:
            continue  # vetoes only lower a share: this window cannot do better
        factor = veto.factor(fact_index, first, last) if veto else 1.0
        window = Window(round(-negative_share * factor, 4), fact_index, first, last)
        if fact_index not in best or window.score > best[fact_index].score:
            best[fact_index] = window
    return sorted(best.values(), key=lambda w: (-w.score, w.fact_index))


def support_of(windows: Sequence[Window], index: FactIndex, threshold: float) -> Support:
    """A claim's score (its best window's) and the facts it cites."""
    if not windows:
        return NO_SUPPORT
    bar = max(threshold, CITABLE_FLOOR)
    citations = tuple(
        Citation(w.fact_index, index.window_text(w.fact_index, w.first, w.last), w.score)
        for w in windows
        if w.score >= bar
    )
    return Support(windows[0].score, citations)


def answer_support(checked: Sequence[Claim]) -> float | None:
    """How well the answer as a whole is supported, from the claims that need a check.

    The weakest claim's score, blended at the ``weakest_claim`` weight with the mean of the
    claims' credits (a grounded claim's credit is its score, an ungrounded one's 0): an answer is
    only as faithful as its least supported sentence. None when no claim needs a check.

    Example:
        >>> grounded = Claim("Rome is old.", 0, 12, True, 1.0, True, ())
        >>> invented = Claim("Rome has 9 moons.", 13, 30, True, 0.3, False, ())
        >>> answer_support([grounded, grounded, grounded, invented])
        0.345
        >>> answer_support([]) is None
        True
    """
    if not checked:
        return None
    mean = sum(claim.score for claim in checked if claim.grounded) / len(checked)
    weakest = rule_weight("weakest_claim")
    return round((1.0 - weakest) * mean + weakest * min(claim.score for claim in checked), 4)


class _Vetoes:
    """The vetoes of one claim, as a factor on a window's share."""

    def __init__(self, claim: Reading, index: FactIndex) -> None:
        self.index = index
        self.numbers = frozenset(term for term, kind in claim.terms if kind == NUMBER)
        self.negated = claim.negated
        self.terms = frozenset(term for term, _ in claim.terms)
        unknown = any(kind == NAME and not index.knows(term) for term, kind in claim.terms)
        self.base = 1.0 - rule_weight("unknown_name") if unknown else 1.0

    def factor(self, fact_index: int, first: int, last: int) -> float:
        """The product of ``1 - weight`` of each veto that fires on the window."""
        sentences = self.index.sentences[first : last + 1]
        factor = self.base
        if self.numbers:
            held = self.index.attribute_numbers[fact_index].union(*(s.numbers for s in sentences))
            if held and not self.numbers <= held:
                factor *= 1.0 - rule_weight("number_differs")
        negated = any(s.negated for s in sentences if not s.terms.isdisjoint(self.terms))
        if negated != self.negated:
            factor *= 1.0 - rule_weight("negation_flipped")
        return factor


def judged_supports(
    judge: BatchJudge,
    texts: Sequence[str],
    judged: dict[int, list[Window]],
    index: FactIndex,
    threshold: float,
) -> dict[int, Support]:
    """Ask the judge once about every claim with windows; its scores replace the windows'."""
    order = sorted(judged)
    passages = [
        [index.window_text(w.fact_index, w.first, w.last) for w in judged[n]] for n in order
    ]
    scores = judge([(texts[n], found) for n, found in zip(order, passages, strict=True)])
    supports: dict[int, Support] = {}
    for number, claim_scores in zip(order, scores, strict=True):
        windows = [w._replace(score=s) for s, w in zip(claim_scores, judged[number], strict=True)]
        windows.sort(key=lambda w: (-w.score, w.fact_index))
        supports[number] = support_of(windows, index, threshold)
    return supports
