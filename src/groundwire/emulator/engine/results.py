"""The values the grounding engine takes and gives back, shaped like the API's messages."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import NamedTuple


@dataclass(frozen=True)
class Fact:
    """One grounding fact: its text, and attributes that count as evidence too.

    Example:
        >>> Fact("The capital is Toronto.", {"author": "Wikipedia"}).attributes["author"]
        'Wikipedia'
    """

    text: str
    attributes: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Citation:
    """Support for a claim: which fact, the supporting part of it, and how strongly it supports.

    Example:
        >>> Citation(fact_index=0, text="The capital is Toronto.", score=1.0).fact_index
        0
    """

    fact_index: int
    text: str
    score: float


@dataclass(frozen=True)
class Claim:
    """One sentence of the answer candidate and whether the facts support it.

    ``text`` is exactly ``answer.encode()[start_byte:end_byte].decode()``. ``score`` is the
    support found (0..1, the same whatever the citation threshold); ``grounded`` says it reached
    the threshold, and then ``citations`` (strongest first) say where.

    Example:
        >>> claim = Claim("Hi!", 0, 3, check_required=False, score=0.0, grounded=False,
        ...               citations=())
        >>> "Hi! Rome is old.".encode()[claim.start_byte:claim.end_byte].decode() == claim.text
        True
    """

    text: str
    start_byte: int
    end_byte: int
    check_required: bool
    score: float
    grounded: bool
    citations: tuple[Citation, ...]


@dataclass(frozen=True)
class GroundingResult:
    """Every claim of an answer candidate, and how well the answer as a whole is supported.

    ``support_score`` blends the mean, over claims that need a check, of the claim's score when
    it is grounded, half its share of the default bar when the facts only partly cover it, and
    0 when they contradict it, with the least supported claim's score (weight 0.4); None when
    no claim needs a check. ``unfinished_claims`` counts the claims a work budget did not reach:
    they are unsupported and uncited.

    Example:
        >>> GroundingResult(claims=(), support_score=None).support_score is None
        True
    """

    claims: tuple[Claim, ...]
    support_score: float | None
    unfinished_claims: int = 0


class AnswerSupport(NamedTuple):
    """One sentence of a generated answer and the facts that support it (grounding metadata).

    Example:
        >>> AnswerSupport("Paris is in France.", 0, 19, (0,), 1.0).fact_indices
        (0,)
    """

    claim_text: str
    start_byte: int
    end_byte: int
    fact_indices: tuple[int, ...]
    score: float


@dataclass(frozen=True)
class GeneratedAnswer:
    """An extractive answer and, per sentence, the facts that support it.

    Example:
        >>> GeneratedAnswer(text="", supports=()).supports
        ()
    """

    text: str
    supports: tuple[AnswerSupport, ...]
