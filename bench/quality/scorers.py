"""The two scorers the quality report compares: the engine, and plain shared-word counting.

Both read a response as the engine splits it (sentences, as UTF-8 byte spans) and say, per
sentence, whether it is grounded, and give the response a score; a response is predicted
faithful when its score reaches the scorer's response bar. The engine's score is its support
score, its bar 0.5 (as the held-out check reads it). The overlap scorer is the baseline any
engine must beat: a sentence's score is the share of its words (lowercased) that some fact
contains, grounded at 0.6 or more, a response's score the mean of its sentences', and its bar
0.82, the best for it on the tune part (a baseline given its best chance).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from bench.quality.metrics import Judged
from bench.quality.responses import Response
from groundwire.emulator.engine import Fact, check_grounding, split_claims

OVERLAP_BAR = 0.6
ENGINE_RESPONSE_BAR = 0.5
OVERLAP_RESPONSE_BAR = 0.82
_WORD = re.compile(r"\w+")


@dataclass(frozen=True)
class Reading:
    """A scorer's view of one response: per checked sentence, its byte span and verdict."""

    score: float
    claims: tuple[tuple[int, int, bool], ...]


Scorer = Callable[[str, Sequence[str]], Reading]


def engine_scorer(answer: str, facts: Sequence[str]) -> Reading:
    """The engine's verdicts; the response score is its support score (1 when nothing is checked).

    Example:
        >>> engine_scorer("Rome is old.", ["Rome is old."]).claims
        ((0, 12, True),)
    """
    result = check_grounding(answer, [Fact(text) for text in facts])
    claims = tuple(
        (c.start_byte, c.end_byte, c.grounded) for c in result.claims if c.check_required
    )
    score = 1.0 if result.support_score is None else result.support_score
    return Reading(score, claims)


def overlap_scorer(answer: str, facts: Sequence[str]) -> Reading:
    """Shared-word counting: each sentence's share of words found in the facts.

    Example:
        >>> overlap_scorer("Rome is very old.", ["Rome is old."]).claims
        ((0, 17, True),)
    """
    known = {word.casefold() for text in facts for word in _WORD.findall(text)}
    encoded = answer.encode()
    claims: list[tuple[int, int, bool]] = []
    shares: list[float] = []
    for start, end in split_claims(answer):
        words = [word.casefold() for word in _WORD.findall(encoded[start:end].decode())]
        if not words:
            continue
        found = sum(word in known for word in words) / len(words)
        shares.append(found)
        claims.append((start, end, found >= OVERLAP_BAR))
    return Reading(sum(shares) / len(shares) if shares else 1.0, tuple(claims))


def judge(response: Response, scorer: Scorer, response_bar: float = ENGINE_RESPONSE_BAR) -> Judged:
    """Score one response and sort its sentences by the human label (any overlap with a span).

    Example:
        >>> from bench.quality.responses import Response
        >>> response = Response("QA", "1", ("Rome is old.",), "Rome is old.", ())
        >>> judged = judge(response, engine_scorer)
        >>> judged.predicted_faithful, judged.faithful_claims_grounded
        (True, (True,))
    """
    reading = scorer(response.text, response.facts)
    spans = [
        (len(response.text[:start].encode()), len(response.text[:end].encode()))
        for start, end in response.hallucinated_spans
    ]
    faithful: list[bool] = []
    hallucinated: list[bool] = []
    for start, end, grounded in reading.claims:
        marked = any(start < span_end and span_start < end for span_start, span_end in spans)
        (hallucinated if marked else faithful).append(grounded)
    return Judged(
        task=response.task,
        faithful=response.faithful,
        score=reading.score,
        predicted_faithful=reading.score >= response_bar,
        faithful_claims_grounded=tuple(faithful),
        hallucinated_claims_grounded=tuple(hallucinated),
    )
