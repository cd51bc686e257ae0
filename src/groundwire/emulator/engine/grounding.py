"""Checks an answer candidate against facts, claim by claim: the CheckGrounding computation."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from groundwire.emulator.engine.budget import WorkBudget
from groundwire.emulator.engine.check_required import needs_check
from groundwire.emulator.engine.index import FactIndex, build_index
from groundwire.emulator.engine.results import Citation, Claim, Fact, GroundingResult
from groundwire.emulator.engine.scoring import DEFAULT_BAR, support_claim
from groundwire.emulator.engine.sentences import split_claims
from groundwire.emulator.engine.text import content_terms

WEAKEST_CLAIM_WEIGHT = 0.4
"""The share of the support score that the answer's least supported claim decides.

One unsupported sentence makes an answer unfaithful however well the rest is grounded, so the
mean over claims alone lets a long answer hide an invented detail; tuned on the tune part of
the engine-dev data only.
"""
PARTIAL_CREDIT = 0.5
"""How much of the bar's credit a claim the facts only partly cover earns (one they contradict
earns none); tuned on the tune part of the engine-dev data and our data-to-text set."""
BARELY_TOUCHED = 0.3
"""A claim scoring under this is one the facts barely touch."""
MORE_BARELY_TOUCHED_FACTOR = 0.9
"""The support score's factor for each barely touched claim after the first.

The weakest claim already weighs in once; a second and a third such claim are less likely
to be unlucky paraphrases than invented steps (a long answer that adds several). Tuned on
the tune part of the engine-dev data (bar 0.2..0.4 by factor 0.85..0.95 all raise it)."""

CLAIM_UNITS = 40_000
"""What a claim costs however few fact sentences share its terms: reading it, scoring the
windows around its candidate sentences and running the vetoes on the best of them (a few
milliseconds, about what comparing it with 40,000 fact sentences costs). With the emulator's
budget, an answer is checked up to some 600 claims (a 4,096-token answer of prose holds 230 to
330)."""


def check_grounding(
    answer: str,
    facts: Sequence[Fact],
    *,
    citation_threshold: float = DEFAULT_BAR,
    budget: WorkBudget | None = None,
    judge: Callable[[list[tuple[str, list[str]]]], list[list[float]]] | None = None,
) -> GroundingResult:
    """Split the answer into claims and say, for each, whether and where the facts support it.

    A claim is grounded when its score reaches ``citation_threshold``; it then cites every fact
    whose support reaches the threshold too (a higher threshold: fewer, stronger citations).
    Support under ``CITABLE_FLOOR`` (0.2) is never cited, however low the threshold. Sentences
    that state no fact get ``check_required=False`` and count toward nothing.

    With a ``budget``, each claim checked spends :func:`claim_work`, a count that depends on the
    request alone. Claims reached once it is spent are unsupported, uncited and counted in
    ``unfinished_claims``. A ``judge`` (called once, with each claim and the facts' texts)
    scores instead: a claim's score is its best fact's, and facts at the threshold are cited.

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
    if judge is not None:
        return _judged(answer, facts, citation_threshold, judge)
    index = build_index(facts)
    encoded = answer.encode()
    claims: list[Claim] = []
    contradicted: list[bool] = []
    unfinished = 0
    for start_byte, end_byte in split_claims(answer):
        text = encoded[start_byte:end_byte].decode()
        if not needs_check(text):
            claims.append(Claim(text, start_byte, end_byte, False, 0.0, False, ()))
            continue
        if budget is not None:
            if budget.exhausted:
                unfinished += 1
                contradicted.append(False)
                claims.append(Claim(text, start_byte, end_byte, True, 0.0, False, ()))
                continue
            budget.spend(claim_work(text, index))
        support = support_claim(text, index, citation_threshold)
        citations = support.citations(index, citation_threshold)
        contradicted.append(support.contradicted)
        claims.append(
            Claim(text, start_byte, end_byte, True, support.score, bool(citations), citations)
        )
    checked = [claim for claim in claims if claim.check_required]
    return GroundingResult(
        claims=tuple(claims),
        support_score=answer_support(checked, contradicted),
        unfinished_claims=unfinished,
    )


def _judged(
    answer: str,
    facts: Sequence[Fact],
    threshold: float,
    judge: Callable[[list[tuple[str, list[str]]]], list[list[float]]],
) -> GroundingResult:
    encoded = answer.encode()
    spans = [(start, end, encoded[start:end].decode()) for start, end in split_claims(answer)]
    checked = [text for _, _, text in spans if needs_check(text)]
    judged = iter(judge([(text, [fact.text for fact in facts]) for text in checked]))
    claims = []
    for start, end, text in spans:
        scores = next(judged) if needs_check(text) else []
        cited = sorted((-score, i) for i, score in enumerate(scores) if score >= threshold)
        citations = tuple(Citation(i, facts[i].text, -score) for score, i in cited)
        score = max(scores, default=0.0)
        claims.append(Claim(text, start, end, needs_check(text), score, bool(cited), citations))
    judged_claims = [claim for claim in claims if claim.check_required]
    return GroundingResult(tuple(claims), answer_support(judged_claims, [False] * len(checked)))


def claim_work(claim_text: str, index: FactIndex) -> int:
    """The work units of checking one claim: ``CLAIM_UNITS``, plus one per term match.

    A term match is a fact sentence holding one of the claim's terms, counted for each term.

    Example:
        >>> index = build_index([Fact("Rome is old. Rome is big.")])
        >>> claim_work("Rome is old.", index) - CLAIM_UNITS  # rom twice, old once
        3
    """
    postings = index.postings
    matches = sum(len(postings.get(term, ())) for term in content_terms(claim_text))
    return CLAIM_UNITS + matches


def answer_support(
    checked: Sequence[Claim], contradicted: Sequence[bool] | None = None
) -> float | None:
    """How well the answer as a whole is supported, from the claims that need a check.

    A blend: the mean of the claims' credits and, with weight ``WEAKEST_CLAIM_WEIGHT``, the
    least supported claim's score; an answer is only as faithful as its weakest sentence lets
    it be. Each claim the facts barely touch after the first (``BARELY_TOUCHED``) multiplies
    the blend by ``MORE_BARELY_TOUCHED_FACTOR``. A grounded claim's credit is its score. A
    claim that is not grounded gets partial credit, ``PARTIAL_CREDIT`` times its share of the
    default bar, when the facts only cover part of it (a paraphrase says more than its source
    in other words), and none when its evidence contradicts it (``contradicted``, per claim;
    when not given, no claim gets partial credit). None when no claim needs a check.

    Example:
        >>> grounded = Claim("Rome is old.", 0, 12, True, 1.0, True, ())
        >>> invented = Claim("Rome has 9 moons.", 13, 30, True, 0.3, False, ())
        >>> answer_support([grounded, grounded, grounded])
        1.0
        >>> answer_support([grounded, grounded, grounded, invented])
        0.57
        >>> answer_support([grounded, grounded, grounded, invented], [False] * 4)
        0.6075
        >>> answer_support([]) is None
        True
    """
    if not checked:
        return None
    flags = [True] * len(checked) if contradicted is None else list(contradicted)
    credits = [
        claim.score
        if claim.grounded
        else 0.0
        if against
        else PARTIAL_CREDIT * min(1.0, claim.score / DEFAULT_BAR)
        for claim, against in zip(checked, flags, strict=True)
    ]
    mean = sum(credits) / len(checked)
    weakest = min(c.score for c in checked)
    touched = sum(claim.score < BARELY_TOUCHED for claim in checked)
    blend = (1.0 - WEAKEST_CLAIM_WEIGHT) * mean + WEAKEST_CLAIM_WEIGHT * weakest
    return round(blend * MORE_BARELY_TOUCHED_FACTOR ** max(0, touched - 1), 4)
