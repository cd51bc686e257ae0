"""Pairwise accuracy: how often a right answer outscores a hallucinated one to the same question.

The issue's HaluEval target (support of the right answer above the hallucinated one's, in at
least 95% of pairs) cannot be measured here, so two proxies stand in for it, each beside the
overlap scorer in the same run:

- on the engine-dev data, every pair (faithful response, hallucinated response) to the same QA
  source, the tune and measure parts apart;
- on ``cases_pairwise.jsonl``, the project's own triples: a knowledge paragraph, a question, a
  right answer and a hallucinated one. The request is the knowledge as one fact and the answer
  as the answer text (the question is not sent).

A pair counts 1 when the right answer's score is strictly higher and 0 otherwise: a tie is a
loss, as in the issue's definition. Each row also says how many pairs tie.

How ``cases_pairwise.jsonl`` was written: 58 triples over 34 knowledge paragraphs of two or
three sentences about invented people, places, works and firms, written for this project (no
dataset was read or copied). Each hallucinated answer is of one kind, named in its ``kind``:
``role`` (another entity of the knowledge in the wrong role), ``absent`` (an entity or word the
knowledge does not hold), ``number`` and ``date`` (a wrong value, sometimes another value of
the knowledge), ``swap`` (the relation reversed or changed) and ``extra`` (a right answer with
an invented detail added); and three kinds where the right answer is not written as the
knowledge writes it: ``alias`` (a country or body by its acronym or full name, the other form in
the knowledge), ``form`` (a number with a thousands separator, a title or article added) and
``qualifier`` (a place with its region or country, which the knowledge leaves out). Right
answers are short: a name, a value, or one sentence.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.quality import responses, scorers

HERE = Path(__file__).resolve().parent
PAIRWISE_CASES = HERE / "cases_pairwise.jsonl"
SCORERS = {"engine": scorers.engine_scorer, "overlap": scorers.overlap_scorer}


@dataclass(frozen=True)
class Triple:
    """One written case: the knowledge, a question, its right answer and a hallucinated one."""

    id: str
    kind: str
    knowledge: str
    question: str
    right: str
    hallucinated: str


def read_triples(path: Path = PAIRWISE_CASES) -> list[Triple]:
    """The project's written pairwise cases.

    Example:
        >>> len(read_triples()) >= 40
        True
    """
    with open(path, encoding="utf-8") as lines:
        return [Triple(**json.loads(line)) for line in lines if line.strip()]


def pair_share(pairs: Sequence[tuple[float, float]]) -> float | None:
    """The share of pairs whose first score is strictly higher than the second (a tie is a loss).

    Example:
        >>> pair_share([(0.9, 0.2), (0.5, 0.5), (0.1, 0.3), (0.6, 0.4)])
        0.5
    """
    if not pairs:
        return None
    return sum(1 for a, b in pairs if a > b) / len(pairs)


def pair_ties(pairs: Sequence[tuple[float, float]]) -> int:
    """How many pairs score the same on both sides.

    Example:
        >>> pair_ties([(0.9, 0.2), (0.5, 0.5), (0.0, 0.0)])
        2
    """
    return sum(1 for a, b in pairs if a == b)


def _entry(found: dict[str, list[tuple[float, float]]]) -> dict[str, Any]:
    """One report row: the pair count, then per scorer its accuracy and its ties."""
    entry: dict[str, Any] = {"pairs": len(found["engine"])}
    entry |= {key: pair_share(pairs) for key, pairs in found.items()}
    entry |= {f"{key} ties": pair_ties(pairs) for key, pairs in found.items()}
    return entry


def source_pairs(
    answers: Sequence[responses.Response], scorer: scorers.Scorer
) -> list[tuple[float, float]]:
    """Every (faithful, hallucinated) pair of scores among the QA responses to one source.

    Example:
        >>> facts = ("Rome is in Italy.",)
        >>> right = responses.Response("QA", "1", facts, "Rome is in Italy.", ())
        >>> wrong = responses.Response("QA", "1", facts, "Rome is in Spain.", ((11, 16),))
        >>> [(r, round(w, 2)) for r, w in source_pairs([right, wrong], scorers.engine_scorer)]
        [(1.0, 0.23)]
    """
    by_source: dict[str, list[responses.Response]] = defaultdict(list)
    for answer in answers:
        if answer.task == "QA":
            by_source[answer.source_id].append(answer)
    pairs: list[tuple[float, float]] = []
    for group in by_source.values():
        scores = [(a.faithful, scorer(a.text, a.facts).score) for a in group]
        right = [score for faithful, score in scores if faithful]
        wrong = [score for faithful, score in scores if not faithful]
        pairs += [(r, w) for r in right for w in wrong]
    return pairs


def triple_pairs(triples: Sequence[Triple], scorer: scorers.Scorer) -> list[tuple[float, float]]:
    """Per written triple, the scores of its right and of its hallucinated answer.

    Example:
        >>> triple = Triple("t", "absent", "Ada Vale founded Norn.", "Who?", "Ada Vale", "Ed Moss")
        >>> triple_pairs([triple], scorers.engine_scorer)[0][0] > 0.5
        True
    """
    return [
        (
            scorer(t.right, (t.knowledge,)).score,
            scorer(t.hallucinated, (t.knowledge,)).score,
        )
        for t in triples
    ]


def evaluate_pairwise(engine_dev: Path | None) -> dict[str, dict[str, Any]]:
    """Pairwise accuracy of each scorer on every set present, keyed by set.

    Sets: ``tune QA`` and ``measure QA`` when the engine-dev data is found, ``written`` (the
    project's triples) always, and ``written, <kind>`` per kind of hallucination.

    Example:
        >>> report = evaluate_pairwise(None)
        >>> report["written"]["pairs"] >= 40, sorted(report["written"])
        (True, ['engine', 'engine ties', 'overlap', 'overlap ties', 'pairs'])
    """
    report: dict[str, dict[str, Any]] = {}
    dev = responses.read_engine_dev(engine_dev) if engine_dev is not None else []
    if dev:
        parts = {
            "tune QA": [r for r in dev if not responses.in_measure_part(r.source_id)],
            "measure QA": [r for r in dev if responses.in_measure_part(r.source_id)],
        }
        for name, answers in parts.items():
            found = {key: source_pairs(answers, scorer) for key, scorer in SCORERS.items()}
            report[name] = _entry(found)
    triples = read_triples()
    written = {key: triple_pairs(triples, scorer) for key, scorer in SCORERS.items()}
    report["written"] = _entry(written)
    for kind in sorted({t.kind for t in triples}):
        chosen = [i for i, t in enumerate(triples) if t.kind == kind]
        report[f"written, {kind}"] = _entry(
            {key: [pairs[i] for i in chosen] for key, pairs in written.items()}
        )
    return report


def table(report: dict[str, dict[str, Any]]) -> list[tuple[object, ...]]:
    """Rows for the report table: set, pairs, then per scorer (engine, overlap) accuracy and ties.

    Example:
        >>> row = {"pairs": 2, "engine": 1.0, "engine ties": 0, "overlap": 0.5, "overlap ties": 1}
        >>> table({"written": row})
        [('written', 2, 1.0, 0, 0.5, 1)]
    """
    return [
        (name, e["pairs"], e["engine"], e["engine ties"], e["overlap"], e["overlap ties"])
        for name, e in report.items()
    ]


HEADER = ("set", "pairs", "pairwise acc. engine", "engine ties", "overlap", "overlap ties")
