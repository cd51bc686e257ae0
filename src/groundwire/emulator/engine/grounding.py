"""Checks an answer candidate against facts, claim by claim: the CheckGrounding computation."""

from __future__ import annotations

from collections.abc import Sequence

from groundwire.emulator.engine.check_required import needs_check
from groundwire.emulator.engine.index import build_index
from groundwire.emulator.engine.results import Claim, Fact, GroundingResult
from groundwire.emulator.engine.scoring import DEFAULT_BAR, support_claim
from groundwire.emulator.engine.sentences import split_claims


def check_grounding(
    answer: str, facts: Sequence[Fact], *, citation_threshold: float = DEFAULT_BAR
) -> GroundingResult:
    """Split the answer into claims and say, for each, whether and where the facts support it.

    A claim is grounded when its score reaches ``citation_threshold``; it then cites every fact
    whose support reaches the threshold too (a higher threshold: fewer, stronger citations).
    Support under ``CITABLE_FLOOR`` (0.2) is never cited, however low the threshold. Sentences
    that state no fact get ``check_required=False`` and count toward nothing.

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
    index = build_index(facts)
    encoded = answer.encode()
    claims: list[Claim] = []
    for start_byte, end_byte in split_claims(answer):
        text = encoded[start_byte:end_byte].decode()
        if not needs_check(text):
            claims.append(Claim(text, start_byte, end_byte, False, 0.0, False, ()))
            continue
        support = support_claim(text, index, citation_threshold)
        citations = support.citations(index, citation_threshold)
        claims.append(
            Claim(text, start_byte, end_byte, True, support.score, bool(citations), citations)
        )
    checked = [claim for claim in claims if claim.check_required]
    support_score = (
        round(sum(c.score for c in checked if c.grounded) / len(checked), 4) if checked else None
    )
    return GroundingResult(claims=tuple(claims), support_score=support_score)
