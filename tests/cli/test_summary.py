"""The batch summary (counts, score distribution, failures, characters) and progress text."""

from __future__ import annotations

import io

import pytest

from groundwire.cli.progress import Progress, progress_text
from groundwire.cli.summary import BatchStats, histogram, percentile, render_summary, summary_record


def test_percentiles_use_the_nearest_rank() -> None:
    ordered = [0.1 * i for i in range(1, 11)]
    assert percentile(ordered, 0.5) == ordered[4]
    assert percentile(ordered, 0.9) == ordered[8]
    assert percentile([0.3], 0.9) == 0.3


def test_a_perfect_score_falls_in_the_last_bin() -> None:
    assert histogram([0.0, 0.05, 0.95, 1.0]) == [2, 0, 0, 0, 0, 0, 0, 0, 0, 2]


def test_the_summary_counts_the_whole_output_and_says_what_this_run_did() -> None:
    stats = BatchStats(lines=7, done_before=2, retried=1)
    stats.whole.succeeded(0.4)
    stats.whole.failed_with("INVALID_ARGUMENT")
    stats.succeeded(0.9, characters=100)
    stats.succeeded(0.2, characters=50)
    stats.succeeded(None, characters=7)
    stats.failed_with("UNAVAILABLE")
    record = summary_record(stats, score_name="support_score", elapsed=2.0, interrupted=False)
    assert (record["ok"], record["failed"], record["remaining"]) == (4, 2, 1)
    assert record["failures_by_code"] == {"INVALID_ARGUMENT": 1, "UNAVAILABLE": 1}
    assert record["support_score"]["count"] == 3
    assert (record["support_score"]["min"], record["support_score"]["max"]) == (0.2, 0.9)
    assert record["this_run"] == {
        "ok": 3,
        "failed": 1,
        "skipped_as_done": 2,
        "retried": 1,
        "characters_sent": 157,
        "throttled_seconds": 0.0,
        "elapsed_seconds": 2.0,
    }


def test_the_text_summary_shows_only_the_histogram_rows_in_use() -> None:
    stats = BatchStats(lines=3)
    for score in (0.35, 0.55, 0.58):
        stats.succeeded(score, characters=10)
    text = render_summary(
        summary_record(stats, score_name="support_score", elapsed=1.0, interrupted=False),
        "support_score",
    )
    assert text.startswith("batch: 3 lines: 3 ok, 0 failed\n")
    assert "this run: 3 ok, 0 failed, 0 skipped (done before)" in text
    assert "p50 0.55" in text
    rows = [line for line in text.splitlines() if "–" in line]
    assert [row.split()[0] for row in rows] == ["0.3–0.4", "0.4–0.5", "0.5–0.6"]
    assert rows[1].endswith(" 0")
    assert rows[2].endswith(" 2")
    assert "characters sent: 30" in text


def test_progress_text_has_count_rate_and_eta() -> None:
    assert progress_text(12, 30, 2.4, bar=False) == "batch: 12/30 lines  5.0/s  ETA 0:04"
    assert progress_text(0, 30, 0.0, bar=True).endswith("0/30 lines  0.0/s  ETA ?")


@pytest.mark.parametrize("width", [1, 5, 12, 20, 24, 30, 40, 41, 60, 80, 200])
@pytest.mark.parametrize("total", [30, 12_345_678])
def test_the_bar_leaves_the_last_column_of_any_width_free(width: int, total: int) -> None:
    for done in (0, 1, total // 2, total):
        text = progress_text(done, total, 3.0, bar=True, width=width)
        assert 0 < len(text) < max(width, 2)


def test_the_bar_fits_the_width_it_is_told_at_each_redraw() -> None:
    clock, sink, widths = Clock(), io.StringIO(), iter([80, 40, 20])
    progress = Progress(3, sink, "bar", clock=clock, width=lambda: next(widths))
    for done in (1, 2, 3):
        clock.now += 1.0
        progress.update(done)
    drawn = sink.getvalue().split("\r")[1:]
    assert [len(text) < width for text, width in zip(drawn, (80, 40, 20), strict=True)] == [
        True,
        True,
        True,
    ]
    assert drawn[0].startswith("[")


class Clock:
    now = 0.0

    def __call__(self) -> float:
        return self.now


def test_the_bar_redraws_in_place_and_ends_its_line() -> None:
    clock, sink = Clock(), io.StringIO()
    progress = Progress(2, sink, "bar", clock=clock)
    clock.now = 1.0
    progress.update(1)
    clock.now = 2.0
    progress.update(2)
    progress.finish()
    assert sink.getvalue().count("\r") == 2
    assert sink.getvalue().endswith("2/2 lines  1.0/s  ETA 0:00\n")


def test_plain_progress_lines_come_at_most_every_ten_seconds() -> None:
    clock, sink = Clock(), io.StringIO()
    progress = Progress(100, sink, "lines", clock=clock)
    for second in range(1, 25):
        clock.now = float(second)
        progress.update(second)
    progress.finish()
    assert sink.getvalue().splitlines() == [
        "batch: 10/100 lines  1.0/s  ETA 1:30",
        "batch: 20/100 lines  1.0/s  ETA 1:20",
    ]
