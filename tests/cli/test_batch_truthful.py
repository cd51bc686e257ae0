"""`groundwire batch` never reports a false success: its verdict covers the whole output file.

Resume keys each output record to its input line by content, redoes transient failures, refuses
an output that belongs to another input, and stops at once, in one line, at a dead endpoint.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from groundwire.cli import main
from groundwire.contract.errors import StatusCode
from groundwire.emulator import emulator
from groundwire.emulator.faults import FaultPolicy

TRANSIENT = ("UNAVAILABLE", "DEADLINE_EXCEEDED", "RESOURCE_EXHAUSTED")


def request(name: str) -> dict[str, Any]:
    return {"id": name, "answer": f"Item {name} is blue.", "facts": [f"Item {name} is blue."]}


def write_lines(path: Path, lines: list[str]) -> None:
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")


def requests_lines(names: list[str], *, malformed: tuple[str, ...] = ()) -> list[str]:
    return [
        "{not json " + name if name in malformed else json.dumps(request(name)) for name in names
    ]


def read_output(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def run_batch(
    capsys: pytest.CaptureFixture[str], source: Path, out: Path, *extra: str
) -> tuple[int, dict[str, Any], str]:
    connection = () if {"--endpoint", "--rest-endpoint"} & set(extra) else ("--local",)
    argv = ["batch", *connection, str(source), "-o", str(out), "--rate", "0", "--json-summary"]
    status = main([*argv, "--no-progress", *extra])
    captured = capsys.readouterr()
    return status, json.loads(captured.out) if captured.out else {}, captured.err


def assert_each_record_answers_its_line(source: Path, out: Path) -> list[dict[str, Any]]:
    """Every input line has one record, whose line number, id and result are that line's."""
    lines = source.read_text(encoding="utf-8").splitlines()
    records = read_output(out)
    assert sorted(record["line"] for record in records) == list(range(1, len(lines) + 1))
    for record in records:
        given = json.loads(lines[record["line"] - 1])
        assert record["id"] == given["id"]
        assert record["result"]["claims"][0]["text"] == given["answer"]
    return records


def test_a_rerun_that_skips_error_lines_still_fails_and_counts_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    names = [f"q{n}" for n in range(30)]
    write_lines(source, requests_lines(names, malformed=tuple(names[::3][:9])))
    first, _, _ = run_batch(capsys, source, out)
    status, summary, _ = run_batch(capsys, source, out)
    assert (first, status) == (1, 1)
    assert (summary["ok"], summary["failed"], summary["remaining"]) == (21, 9, 0)
    assert summary["failures_by_code"] == {"INVALID_ARGUMENT": 9}
    assert summary["this_run"]["skipped_as_done"] == 30
    assert summary["support_score"]["count"] == 21


def test_transient_failures_are_redone_by_the_next_run_and_input_errors_are_not(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    names = [f"q{n}" for n in range(6)]
    write_lines(source, requests_lines(names, malformed=("q2",)))
    codes = tuple(StatusCode[name] for name in TRANSIENT)
    with emulator(faults=FaultPolicy(rate=1.0, codes=codes)) as failing:
        first, _, _ = run_batch(
            capsys, source, out, "--endpoint", failing.grpc_address, "--timeout", "0.5"
        )
    assert first == 1
    failed_with = {record["id"]: record["error"]["code"] for record in read_output(out)}
    assert failed_with.pop(None) == "INVALID_ARGUMENT"
    assert set(failed_with.values()) <= set(TRANSIENT)

    status, summary, _ = run_batch(capsys, source, out)
    records = read_output(out)
    assert status == 1
    assert len(records) == len(names)
    assert sorted(record["id"] for record in records if "result" in record) == [
        "q0",
        "q1",
        "q3",
        "q4",
        "q5",
    ]
    assert summary["this_run"]["ok"] == 5
    assert (summary["ok"], summary["failed"]) == (5, 1)


def test_retry_failed_redoes_input_errors_as_well(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    names = [f"q{n}" for n in range(5)]
    write_lines(source, requests_lines(names, malformed=("q2",)))
    assert run_batch(capsys, source, out)[0] == 1
    write_lines(source, requests_lines(names))
    status, _, err = run_batch(capsys, source, out)
    assert status == 2
    assert "pass --retry-failed" in err
    status, summary, _ = run_batch(capsys, source, out, "--retry-failed")
    assert (status, summary["this_run"]["ok"], summary["ok"]) == (0, 1, 5)
    assert_each_record_answers_its_line(source, out)


def test_a_line_inserted_at_the_top_is_done_and_every_result_stays_with_its_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    names = [f"q{n}" for n in range(1, 51)]
    write_lines(source, requests_lines(names))
    assert run_batch(capsys, source, out)[0] == 0
    write_lines(source, requests_lines(["q0", *names]))
    status, summary, _ = run_batch(capsys, source, out)
    assert status == 0
    assert (summary["this_run"]["ok"], summary["this_run"]["skipped_as_done"]) == (1, 50)
    assert (summary["lines"], summary["ok"]) == (51, 51)
    assert_each_record_answers_its_line(source, out)


def test_identical_lines_each_get_their_own_record(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    write_lines(source, requests_lines(["a", "b", "a"]))
    run_batch(capsys, source, out)
    write_lines(source, requests_lines(["a", "a", "b", "a"]))
    status, summary, _ = run_batch(capsys, source, out)
    assert (status, summary["this_run"]["ok"], summary["ok"]) == (0, 1, 4)
    assert_each_record_answers_its_line(source, out)


@pytest.mark.parametrize(
    ("changed", "extra"),
    [
        (requests_lines([f"r{n}" for n in range(10)]), ()),
        (requests_lines([f"q{n}" if n != 4 else "q4 edited" for n in range(10)]), ()),
        (requests_lines([f"q{n}" for n in range(10)]), ("--method", "corroborate")),
        (requests_lines([f"q{n}" for n in range(10)]), ("--citation-threshold", "0.9")),
    ],
    ids=["another-input", "an-edited-line", "another-method", "another-threshold"],
)
def test_an_output_of_other_requests_is_refused_in_one_line_and_left_untouched(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], changed: list[str], extra: tuple[str, ...]
) -> None:
    source, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    write_lines(source, requests_lines([f"q{n}" for n in range(10)]))
    run_batch(capsys, source, out)
    before = out.read_bytes()
    write_lines(source, changed)
    status, summary, err = run_batch(capsys, source, out, *extra)
    assert status == 2
    assert summary == {}
    assert len(err.splitlines()) == 1
    assert err.startswith(f"groundwire: error: {out}: holds ")
    assert "write to a new output file" in err
    assert out.read_bytes() == before


@pytest.mark.parametrize("transport", ["grpc", "rest"])
def test_a_dead_endpoint_stops_the_batch_at_once_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], refused_port: int, transport: str
) -> None:
    source, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    write_lines(source, requests_lines([f"q{n}" for n in range(40)]))
    where = (
        f"127.0.0.1:{refused_port}" if transport == "grpc" else f"http://127.0.0.1:{refused_port}"
    )
    endpoint = ("--endpoint", where) if transport == "grpc" else ("--rest-endpoint", where)
    status, summary, err = run_batch(capsys, source, out, *endpoint, "--transport", transport)
    assert status == 1
    assert summary == {}
    [line] = err.splitlines()
    assert line.startswith(
        f"groundwire: error: UNAVAILABLE: cannot reach {where}; is `groundwire serve` running?"
    )
    assert all(record["error"]["code"] in TRANSIENT for record in read_output(out))


def test_an_output_of_an_older_version_without_keys_is_refused_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    write_lines(source, requests_lines(["q0", "q1"]))
    out.write_text('{"line":1,"id":"q0","result":{"support_score":1.0,"claims":[]}}\n')
    status, summary, err = run_batch(capsys, source, out)
    assert (status, summary) == (2, {})
    assert err == (
        f"groundwire: error: {out}: holds 1 record without a request key, written by an older "
        "groundwire; write to a new output file\n"
    )
