"""What a batch output holds and what one run did: counts, scores, failures and characters."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from groundwire.cli.progress import duration_text

HISTOGRAM_BINS = 10
_BAR = "█"
_BAR_WIDTH = 30


@dataclass
class Tally:
    """Records counted: successes with their scores, failures by code."""

    ok: int = 0
    failed: int = 0
    scores: list[float] = field(default_factory=list)
    failures: Counter[str] = field(default_factory=Counter)

    def succeeded(self, score: float | None) -> None:
        """Counts one result."""
        self.ok += 1
        if score is not None:
            self.scores.append(score)

    def failed_with(self, code: str) -> None:
        """Counts one failure."""
        self.failed += 1
        self.failures[code] += 1


@dataclass
class BatchStats:
    """What the output holds for the input (`whole`), and what this run did (`run`).

    `lines` counts the input's records (its non-blank lines); `done_before` those an earlier
    run answered for good; `retried` the failures of earlier runs done again now.
    `characters` adds up the text and fact characters of this run's successful requests: the
    unit Google bills grounding checks by.
    """

    lines: int = 0
    done_before: int = 0
    retried: int = 0
    whole: Tally = field(default_factory=Tally)
    run: Tally = field(default_factory=Tally)
    characters: int = 0
    throttled_seconds: float = 0.0

    @property
    def remaining(self) -> int:
        """Input lines that still have no record."""
        return self.lines - self.whole.ok - self.whole.failed

    def succeeded(self, score: float | None, characters: int) -> None:
        """Counts one line this run did well."""
        self.run.succeeded(score)
        self.whole.succeeded(score)
        self.characters += characters

    def failed_with(self, code: str) -> None:
        """Counts one line this run failed."""
        self.run.failed_with(code)
        self.whole.failed_with(code)


def percentile(ordered: Sequence[float], fraction: float) -> float:
    """The nearest-rank percentile of sorted, non-empty `ordered`.

    >>> percentile([0.1, 0.2, 0.3, 0.4], 0.5), percentile([0.1, 0.2, 0.3, 0.4], 0.9)
    (0.2, 0.4)
    """
    rank = max(math.ceil(fraction * len(ordered)), 1)
    return ordered[rank - 1]


def histogram(scores: Sequence[float], bins: int = HISTOGRAM_BINS) -> list[int]:
    """How many scores fall in each of `bins` equal ranges of 0–1 (1.0 in the last).

    >>> histogram([0.05, 0.5, 0.55, 1.0], bins=4)
    [1, 0, 2, 1]
    """
    counts = [0] * bins
    for score in scores:
        counts[min(max(int(score * bins), 0), bins - 1)] += 1
    return counts


def _distribution(scores: Sequence[float]) -> dict[str, Any]:
    ordered = sorted(scores)
    distribution: dict[str, Any] = {"count": len(ordered)}
    if ordered:
        distribution.update(
            min=ordered[0],
            p50=percentile(ordered, 0.5),
            p90=percentile(ordered, 0.9),
            max=ordered[-1],
            histogram=histogram(ordered),
        )
    return distribution


def summary_record(
    stats: BatchStats, *, score_name: str, elapsed: float, interrupted: bool
) -> dict[str, Any]:
    """The summary as JSON (what --json-summary prints).

    The counts, the score distribution and the failures describe the whole output (every
    record of the input's lines, earlier runs' too); `this_run` says what this run did.
    """
    return {
        "lines": stats.lines,
        "ok": stats.whole.ok,
        "failed": stats.whole.failed,
        "remaining": stats.remaining,
        "interrupted": interrupted,
        score_name: _distribution(stats.whole.scores),
        "failures_by_code": dict(stats.whole.failures.most_common()),
        "this_run": {
            "ok": stats.run.ok,
            "failed": stats.run.failed,
            "skipped_as_done": stats.done_before,
            "retried": stats.retried,
            "characters_sent": stats.characters,
            "throttled_seconds": round(stats.throttled_seconds, 3),
            "elapsed_seconds": round(elapsed, 3),
        },
    }


def render_summary(record: dict[str, Any], score_name: str) -> str:
    """The summary as a few lines of text for stderr."""
    run = record["this_run"]
    elapsed = run["elapsed_seconds"]
    finished = run["ok"] + run["failed"]
    rate = f", {finished / elapsed:.1f}/s" if elapsed > 0 and finished else ""
    retried = f", {run['retried']} of them retried" if run["retried"] else ""
    lines = [
        f"batch: {record['lines']} lines: {record['ok']} ok, {record['failed']} failed"
        + (f", {record['remaining']} remaining" if record["remaining"] else ""),
        f"this run: {run['ok']} ok, {run['failed']} failed{retried}, "
        f"{run['skipped_as_done']} skipped (done before) in {duration_text(elapsed)}{rate}",
    ]
    distribution = record[score_name]
    if distribution["count"]:
        lines.append(
            f"{score_name.replace('_', ' ')}: min {distribution['min']:.2f}  "
            f"p50 {distribution['p50']:.2f}  p90 {distribution['p90']:.2f}  "
            f"max {distribution['max']:.2f}  ({distribution['count']} scored)"
        )
        lines.extend(_histogram_rows(distribution["histogram"]))
    if record["failures_by_code"]:
        lines.append(
            "failures: "
            + ", ".join(f"{code} {count}" for code, count in record["failures_by_code"].items())
        )
    throttled = run["throttled_seconds"]
    lines.append(
        f"characters sent: {run['characters_sent']:,}"
        + (f"; throttled {throttled:.1f} s" if throttled else "")
    )
    return "\n".join(lines)


def _histogram_rows(counts: list[int]) -> list[str]:
    widest = max(counts)
    used = [index for index, count in enumerate(counts) if count]
    rows = []
    for index in range(used[0], used[-1] + 1):
        count = counts[index]
        low, high = index / len(counts), (index + 1) / len(counts)
        bar = _BAR * math.ceil(_BAR_WIDTH * count / widest) if count else ""
        rows.append(f"  {low:.1f}–{high:.1f} {bar} {count}".rstrip())
    return rows
