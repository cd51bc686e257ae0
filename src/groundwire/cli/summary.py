"""What a batch run did, in numbers: counts, the score distribution, failures, characters."""

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
class BatchStats:
    """Counts of one run; `skipped` lines were answered by an earlier run already.

    `characters` adds up the text and fact characters of successful requests: the unit
    Google bills grounding checks by.
    """

    records: int = 0
    skipped: int = 0
    ok: int = 0
    failed: int = 0
    scores: list[float] = field(default_factory=list)
    failures: Counter[str] = field(default_factory=Counter)
    characters: int = 0

    @property
    def remaining(self) -> int:
        """Input lines that still have no output line."""
        return self.records - self.skipped - self.ok - self.failed

    def succeeded(self, score: float | None, characters: int) -> None:
        """Counts one successful line."""
        self.ok += 1
        self.characters += characters
        if score is not None:
            self.scores.append(score)

    def failed_with(self, code: str) -> None:
        """Counts one failed line."""
        self.failed += 1
        self.failures[code] += 1


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


def summary_record(
    stats: BatchStats, *, score_name: str, elapsed: float, interrupted: bool
) -> dict[str, Any]:
    """The summary as JSON (what --json-summary prints)."""
    ordered = sorted(stats.scores)
    distribution: dict[str, Any] = {"count": len(ordered)}
    if ordered:
        distribution.update(
            min=ordered[0],
            p50=percentile(ordered, 0.5),
            p90=percentile(ordered, 0.9),
            max=ordered[-1],
            histogram=histogram(ordered),
        )
    return {
        "lines": stats.records,
        "ok": stats.ok,
        "failed": stats.failed,
        "skipped_as_done": stats.skipped,
        "remaining": stats.remaining,
        "interrupted": interrupted,
        score_name: distribution,
        "failures_by_code": dict(stats.failures.most_common()),
        "characters_sent": stats.characters,
        "elapsed_seconds": round(elapsed, 3),
    }


def render_summary(record: dict[str, Any], score_name: str) -> str:
    """The summary as a few lines of text for stderr."""
    elapsed = record["elapsed_seconds"]
    finished = record["ok"] + record["failed"]
    rate = f", {finished / elapsed:.1f}/s" if elapsed > 0 and finished else ""
    lines = [
        f"batch: {record['lines']} lines: {record['ok']} ok, {record['failed']} failed, "
        f"{record['skipped_as_done']} skipped (done before)"
        + (f", {record['remaining']} remaining" if record["remaining"] else "")
        + f" in {duration_text(elapsed)}{rate}"
    ]
    distribution = record[score_name]
    if distribution["count"]:
        lines.append(
            f"{score_name.replace('_', ' ')}: min {distribution['min']:.2f}  "
            f"p50 {distribution['p50']:.2f}  p90 {distribution['p90']:.2f}  "
            f"max {distribution['max']:.2f}  ({distribution['count']} scored)"
        )
        counts: list[int] = distribution["histogram"]
        widest = max(counts)
        used = [index for index, count in enumerate(counts) if count]
        for index in range(used[0], used[-1] + 1):
            count = counts[index]
            low, high = index / len(counts), (index + 1) / len(counts)
            bar = _BAR * math.ceil(_BAR_WIDTH * count / widest) if count else ""
            lines.append(f"  {low:.1f}–{high:.1f} {bar} {count}".rstrip())
    if record["failures_by_code"]:
        lines.append(
            "failures: "
            + ", ".join(f"{code} {count}" for code, count in record["failures_by_code"].items())
        )
    lines.append(f"characters sent: {record['characters_sent']:,}")
    return "\n".join(lines)
