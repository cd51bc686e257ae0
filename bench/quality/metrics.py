"""Response- and claim-level figures shared by every quality report, so each set is judged alike."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypeVar

Unit = TypeVar("Unit")


@dataclass(frozen=True)
class Judged:
    """One response as a scorer judged it, beside its human label.

    ``faithful`` is the human verdict (no hallucinated span); ``score`` ranks responses (higher:
    more likely faithful); ``predicted_faithful`` is the scorer's yes/no; the claim lists hold,
    for each checked sentence, whether the scorer grounded it, split by the human label.
    """

    task: str
    faithful: bool
    score: float
    predicted_faithful: bool
    faithful_claims_grounded: tuple[bool, ...]
    hallucinated_claims_grounded: tuple[bool, ...]


def balanced_accuracy(judged: Sequence[Judged]) -> float | None:
    """The mean of the recall of faithful and of hallucinated responses.

    Example:
        >>> one = Judged("QA", True, 1.0, True, (), ())
        >>> two = Judged("QA", False, 0.0, True, (), ())
        >>> balanced_accuracy([one, two])
        0.5
    """
    faithful = [j.predicted_faithful for j in judged if j.faithful]
    hallucinated = [not j.predicted_faithful for j in judged if not j.faithful]
    if not faithful or not hallucinated:
        return None
    return (sum(faithful) / len(faithful) + sum(hallucinated) / len(hallucinated)) / 2


def auroc(judged: Sequence[Judged]) -> float | None:
    """The chance that a faithful response scores above a hallucinated one (ties count half).

    Example:
        >>> a, b = Judged("QA", True, 0.9, True, (), ()), Judged("QA", False, 0.2, False, (), ())
        >>> auroc([a, b])
        1.0
    """
    return ranked_auroc([(j.faithful, j.score) for j in judged])


def ranked_auroc(labelled: Sequence[tuple[bool, float]]) -> float | None:
    """AUROC of ``(faithful, score)`` pairs: the Mann-Whitney statistic, ties counting half.

    Example:
        >>> ranked_auroc([(True, 0.5), (False, 0.5), (True, 0.9)])
        0.75
    """
    ranked = sorted(labelled, key=lambda item: item[1])
    positives = sum(faithful for faithful, _ in labelled)
    negatives = len(labelled) - positives
    if not positives or not negatives:
        return None
    rank_sum = 0.0
    position = 0
    while position < len(ranked):
        tied_end = position
        while tied_end + 1 < len(ranked) and ranked[tied_end + 1][1] == ranked[position][1]:
            tied_end += 1
        mean_rank = (position + tied_end) / 2 + 1
        rank_sum += mean_rank * sum(faithful for faithful, _ in ranked[position : tied_end + 1])
        position = tied_end + 1
    return (rank_sum - positives * (positives + 1) / 2) / (positives * negatives)


RESAMPLES = 1_000
"""Bootstrap resamples: enough for a stable 95% interval at the third decimal."""
SEED = 42
"""The bootstrap's fixed seed, so a rerun on the same data prints the same interval."""


def paired_bootstrap(
    units: Sequence[Unit],
    difference: Callable[[Sequence[Unit]], float | None],
    resamples: int = RESAMPLES,
    seed: int = SEED,
) -> tuple[float, float]:
    """The 95% percentile interval of ``difference`` over resamples of ``units`` (with replacement).

    A unit holds both scorers' readings of one source, so both sides of the difference see the
    same resample (paired). Resamples where the difference is undefined are skipped.

    Example:
        >>> units = [(1.0, 0.0), (0.0, 0.0), (1.0, 1.0), (1.0, 0.0)]
        >>> gap = lambda chosen: sum(a - b for a, b in chosen) / len(chosen)
        >>> low, high = paired_bootstrap(units, gap, resamples=200)
        >>> 0.0 <= low < 0.5 < high <= 1.0
        True
    """
    rng = random.Random(seed)
    found: list[float] = []
    for _ in range(resamples):
        value = difference([units[rng.randrange(len(units))] for _ in units])
        if value is not None:
            found.append(value)
    found.sort()
    if not found:
        return (float("nan"), float("nan"))
    return found[int(0.025 * (len(found) - 1))], found[int(0.975 * (len(found) - 1))]


def share(flags: Sequence[bool]) -> float | None:
    """The share of true flags, or None for none.

    Example:
        >>> share([True, False, False, True])
        0.5
    """
    return sum(flags) / len(flags) if flags else None


def summary(judged: Sequence[Judged]) -> dict[str, float | int | None]:
    """Every figure of one scorer on one set of responses.

    Example:
        >>> summary([Judged("QA", True, 1.0, True, (True, False), ())])["faithful_claims_cited"]
        0.5
    """
    faithful_claims = [flag for j in judged for flag in j.faithful_claims_grounded]
    hallucinated_claims = [flag for j in judged for flag in j.hallucinated_claims_grounded]
    return {
        "responses": len(judged),
        "hallucinated_responses": sum(not j.faithful for j in judged),
        "balanced_accuracy": balanced_accuracy(judged),
        "auroc": auroc(judged),
        "faithful_claims_cited": share(faithful_claims),
        "hallucinated_claims_cited": share(hallucinated_claims),
    }
