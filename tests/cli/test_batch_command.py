"""`groundwire batch` end to end: one output line per input line, even across interruptions."""

from __future__ import annotations

import json
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from groundwire.cli import main
from groundwire.emulator import emulator
from groundwire.emulator.faults import FaultPolicy
from tests.cli.running import cli_command, cli_env

LINES = 30


def write_input(path: Path, *, malformed: tuple[int, ...] = ()) -> None:
    """LINES requests, one per line; the (1-based) lines in `malformed` are not JSON."""
    with path.open("w", encoding="utf-8") as file:
        for number in range(1, LINES + 1):
            if number in malformed:
                file.write("{this is not json\n")
                continue
            request = {
                "id": f"q{number}",
                "answer": f"東京は日本の首都です。Item {number} is blue.",
                "facts": ["東京は日本の首都である。", f"Item {number} is blue."],
            }
            file.write(json.dumps(request, ensure_ascii=False) + "\n")


def read_output(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def assert_one_line_per_input(path: Path) -> list[dict[str, Any]]:
    records = read_output(path)
    assert sorted(record["line"] for record in records) == list(range(1, LINES + 1))
    return records


def batch(
    capsys: pytest.CaptureFixture[str], source: Path, out: Path, *extra: str
) -> tuple[int, dict[str, Any]]:
    status = main(
        ["batch", "--local", str(source), "-o", str(out), "--rate", "0", "--json-summary", *extra]
    )
    return status, json.loads(capsys.readouterr().out)


def test_every_input_line_gets_exactly_one_output_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    write_input(source)
    status, summary = batch(capsys, source, out)
    records = assert_one_line_per_input(out)
    assert status == 0
    assert all(record["id"] == f"q{record['line']}" for record in records)
    assert all(record["result"]["claims"][0]["supported"] for record in records)
    assert (summary["ok"], summary["failed"], summary["this_run"]["skipped_as_done"]) == (
        LINES,
        0,
        0,
    )
    assert summary["support_score"]["count"] == LINES
    assert summary["this_run"]["characters_sent"] > 0


def test_a_malformed_line_gets_an_error_line_not_a_crash(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    write_input(source, malformed=(4,))
    status, summary = batch(capsys, source, out)
    records = {record["line"]: record for record in assert_one_line_per_input(out)}
    assert status == 1
    assert records[4]["error"]["code"] == "INVALID_ARGUMENT"
    assert records[4]["error"]["message"].startswith("line 4: not valid JSON")
    assert summary["failures_by_code"] == {"INVALID_ARGUMENT": 1}


def test_a_second_run_skips_every_line_already_done(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    write_input(source)
    batch(capsys, source, out)
    status, summary = batch(capsys, source, out)
    assert status == 0
    assert (summary["this_run"]["ok"], summary["this_run"]["skipped_as_done"]) == (0, LINES)
    assert summary["ok"] == LINES
    assert_one_line_per_input(out)


def test_a_truncated_last_line_is_repaired_and_redone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    write_input(source)
    batch(capsys, source, out)
    kept = out.read_text(encoding="utf-8").splitlines(keepends=True)[:10]
    torn = kept.pop()[:25]
    out.write_text("".join(kept) + torn, encoding="utf-8")
    status, summary = batch(capsys, source, out)
    assert status == 0
    assert (summary["this_run"]["skipped_as_done"], summary["this_run"]["ok"]) == (9, LINES - 9)
    assert_one_line_per_input(out)


def interrupt_midway(source: Path, out: Path, signum: int) -> int:
    """Starts a paced batch, and sends `signum` once some lines (not all) are written.

    At 2 lines a second, the 30 lines take 15 s: a loaded machine that is slow to notice the
    first three still signals a run in progress. The child starts with SIGINT at its default,
    as from a terminal: a suite run as a background job (`nohup ... &`) would otherwise pass
    on its ignored SIGINT, which the CLI rightly keeps ignoring, and the run would end 0.
    """
    process = subprocess.Popen(
        cli_command("batch", "--local", str(source), "-o", str(out), "--rate", "2"),
        env=cli_env(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    deadline = time.monotonic() + 60  # only a hang: a loaded machine may start slowly
    while time.monotonic() < deadline and process.poll() is None:
        if out.exists() and out.read_bytes().count(b"\n") >= 3:
            break
        time.sleep(0.05)
    time.sleep(0.3)
    process.send_signal(signum)
    _, err = process.communicate(timeout=30)
    assert "Traceback" not in err
    return process.returncode


@pytest.mark.parametrize(
    "signum", [signal.SIGTERM, signal.SIGINT, signal.SIGKILL], ids=["SIGTERM", "SIGINT", "SIGKILL"]
)
def test_an_interrupted_run_resumes_where_it_stopped(
    tmp_path: Path, signum: int, capsys: pytest.CaptureFixture[str]
) -> None:
    source, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    write_input(source)
    status = interrupt_midway(source, out, signum)
    assert status in (128 + signum, -signum)
    done_before = len(read_output(out))
    assert 3 <= done_before < LINES
    status, summary = batch(capsys, source, out)
    assert status == 0
    assert summary["this_run"]["skipped_as_done"] == done_before
    assert summary["this_run"]["ok"] == LINES - done_before
    assert (summary["ok"], summary["remaining"]) == (LINES, 0)
    assert_one_line_per_input(out)


def test_same_input_and_output_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "in.jsonl"
    write_input(source)
    assert main(["batch", "--local", str(source), "-o", str(source)]) == 2
    assert capsys.readouterr().err == "groundwire: error: IN and OUT are the same file\n"


def test_batch_corroborates_content_lines(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    source.write_text(
        json.dumps(
            {
                "id": "c1",
                "content": "Paris is the capital of France.",
                "facts": ["Paris is the capital of France."],
            }
        )
        + "\n"
    )
    status, summary = batch(capsys, source, out, "--method", "corroborate")
    [record] = read_output(out)
    assert status == 0
    assert record["result"]["claims"][0]["fact_indexes"] == [0]
    assert summary["corroboration_score"]["count"] == 1


def test_sigterm_ends_the_calls_in_flight_instead_of_waiting_them_out(tmp_path: Path) -> None:
    source, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    write_input(source)
    with emulator(faults=FaultPolicy(latency_ms=30_000)) as slow:
        process = subprocess.Popen(
            cli_command("batch", str(source), "-o", str(out), "--endpoint", slow.grpc_address),
            env=cli_env(),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            assert slow.activity is not None
            assert slow.activity.wait_until(  # the calls are in flight: held 30 s each
                lambda now: now.calls_serving >= 1, timeout=60.0
            )
            process.send_signal(signal.SIGTERM)
            _, err = process.communicate(timeout=30)
        finally:
            process.kill()
            process.wait(timeout=30)
    assert process.returncode == 128 + signal.SIGTERM
    assert "interrupted with 30 lines left" in err
    assert out.read_bytes() == b""
