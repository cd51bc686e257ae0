"""Quality on labelled LLM answers from outside the project, beside a word-overlap baseline.

Sets: ``tune`` and ``measure`` are the engine-dev data (RAGTruth's training part) split by a
hash of each source (``responses.in_measure_part``): the engine may be tuned on the first and
is only measured on the second. ``data-to-text`` is the project's own set of business records.
Each set is reported per task and in all, for the engine and for the overlap scorer, in the
same run.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bench.quality import metrics, responses, scorers

SCORERS = {
    "engine": (scorers.engine_scorer, scorers.ENGINE_RESPONSE_BAR),
    "overlap": (scorers.overlap_scorer, scorers.OVERLAP_RESPONSE_BAR),
}


def outside_sets(engine_dev: Path | None) -> dict[str, list[responses.Response]]:
    """The sets present: the two engine-dev parts when the folder has the data, and ours.

    Example:
        >>> sorted(outside_sets(None))
        ['data-to-text']
    """
    found: dict[str, list[responses.Response]] = {}
    dev = responses.read_engine_dev(engine_dev) if engine_dev is not None else []
    if dev:
        found["tune"] = [r for r in dev if not responses.in_measure_part(r.source_id)]
        found["measure"] = [r for r in dev if responses.in_measure_part(r.source_id)]
    found["data-to-text"] = responses.read_data_to_text()
    return found


def evaluate_set(answers: Sequence[responses.Response]) -> dict[str, dict[str, Any]]:
    """Every scorer's figures on one set, per task and for all tasks together.

    Example:
        >>> figures = evaluate_set(responses.read_data_to_text())
        >>> sorted(figures["all"])
        ['engine', 'overlap']
    """
    judged = {
        name: [scorers.judge(r, scorer, bar) for r in answers]
        for name, (scorer, bar) in SCORERS.items()
    }
    tasks = sorted({r.task for r in answers})
    figures: dict[str, dict[str, Any]] = {}
    for task in (*tasks, "all"):
        figures[task] = {
            name: metrics.summary([j for j in found if task in ("all", j.task)])
            for name, found in judged.items()
        }
    return figures


def evaluate_outside(engine_dev: Path | None) -> dict[str, Any]:
    """Figures of every set present, keyed by set, task and scorer.

    Example:
        >>> report = evaluate_outside(None)
        >>> report["data-to-text"]["all"]["engine"]["responses"] > 10
        True
    """
    return {name: evaluate_set(answers) for name, answers in outside_sets(engine_dev).items()}


def table(report: dict[str, Any]) -> list[tuple[object, ...]]:
    """Rows for a report table: set, task, then each figure for the engine and the overlap.

    Example:
        >>> table({"s": {"all": {n: {"responses": 1} for n in SCORERS}}})[0][:3]
        ('s', 'all', 1)
    """
    rows: list[tuple[object, ...]] = []
    for set_name, by_task in report.items():
        for task, by_scorer in by_task.items():
            engine, overlap = by_scorer["engine"], by_scorer["overlap"]
            rows.append(
                (
                    set_name,
                    task,
                    engine["responses"],
                    engine.get("hallucinated_responses"),
                    *(pair for key in COLUMNS for pair in (engine.get(key), overlap.get(key))),
                )
            )
    return rows


COLUMNS = (
    "balanced_accuracy",
    "auroc",
    "faithful_claims_cited",
    "hallucinated_claims_cited",
)
HEADER = (
    "set",
    "task",
    "responses",
    "hallucinated",
    "balanced acc. engine",
    "overlap",
    "AUROC engine",
    "overlap",
    "faithful claims cited, engine",
    "overlap",
    "hallucinated claims cited, engine",
    "overlap",
)
