"""Batch resume: records matched to lines by key, transient failures redone, the file repaired."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from groundwire.cli.batch_input import InputLine
from groundwire.cli.output_file import OutputWriter, prepare_output, read_output
from groundwire.cli.resume import (
    OutputRecord,
    ResumePlan,
    foreign_problem,
    parse_record,
    plan_resume,
    read_state,
)

SCORE = "support_score"


def result(line: int, key: str) -> bytes:
    return json.dumps({"line": line, "key": key, "result": {SCORE: 0.5}}).encode() + b"\n"


def failure(line: int, key: str, code: str) -> bytes:
    record = {"line": line, "key": key, "error": {"code": code, "message": "m"}}
    return json.dumps(record).encode() + b"\n"


def lines(*keys: str) -> list[InputLine]:
    return [InputLine(number, key, None, {}, None) for number, key in enumerate(keys, 1)]


def lines_of(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_a_record_needs_a_positive_line_number_and_a_key() -> None:
    assert parse_record(b'{"line": true, "key": "k", "result": {}}', SCORE) is None
    assert parse_record(b'{"line": 0, "key": "k", "result": {}}', SCORE) is None
    assert parse_record(b"not json", SCORE) is None
    assert parse_record(b'{"line": 3, "result": {}}', SCORE) == "keyless"
    assert parse_record(result(7, "k"), SCORE) == OutputRecord("k", 7, None, 0.5)


@pytest.mark.parametrize("code", ["UNAVAILABLE", "DEADLINE_EXCEEDED", "RESOURCE_EXHAUSTED"])
def test_transient_failures_are_done_again(code: str) -> None:
    state = read_state([failure(1, "k", code)], retry_failed=False, score_name=SCORE)
    assert (state.kept, state.redo) == ({}, 1)


@pytest.mark.parametrize(
    "code", ["INVALID_ARGUMENT", "NOT_FOUND", "FAILED_PRECONDITION", "OUT_OF_RANGE", "UNKNOWN"]
)
def test_other_failures_stand_unless_retry_failed(code: str) -> None:
    records = [failure(1, "k", code)]
    assert read_state(records, retry_failed=False, score_name=SCORE).redo == 0
    assert read_state(records, retry_failed=True, score_name=SCORE).redo == 1


def test_identical_lines_each_take_one_record_in_order() -> None:
    state = read_state(
        [result(1, "a"), result(2, "b"), result(3, "a")], retry_failed=False, score_name=SCORE
    )
    plan = plan_resume(state, lines("b", "a", "a", "a"))
    assert (plan.lines, plan.done, plan.pending, plan.foreign) == (4, 3, 1, [])
    assert plan.lines_of == {"a": [2, 3], "b": [1]}
    assert [plan.is_done(number) for number in range(6)] == [False, True, True, True, False, False]


def test_done_lines_are_marked_one_bit_each_across_bytes() -> None:
    plan = ResumePlan()
    for number in (7, 8, 16, 1000):
        plan.mark_done(number)
    assert [n for n in range(1100) if plan.is_done(n)] == [7, 8, 16, 1000]
    assert len(plan.done_lines) == 126


def test_records_no_line_answers_are_foreign() -> None:
    state = read_state(
        [result(1, "a"), result(2, "a"), failure(3, "z", "INVALID_ARGUMENT")],
        retry_failed=False,
        score_name=SCORE,
    )
    plan = plan_resume(state, lines("a"))
    assert [record.line for record in plan.foreign] == [2, 3]
    problem = foreign_problem(plan, "out.jsonl", "in.jsonl") or ""
    assert problem.startswith("out.jsonl: holds 2 records for no line of in.jsonl")
    assert problem.endswith("; write to a new output file")


def test_foreign_failures_alone_suggest_retry_failed() -> None:
    state = read_state(
        [result(1, "a"), failure(2, "z", "INVALID_ARGUMENT")], retry_failed=False, score_name=SCORE
    )
    problem = foreign_problem(plan_resume(state, lines("a")), "out", "in") or ""
    assert "holds 1 failure for no line" in problem
    assert "pass --retry-failed" in problem


def test_a_missing_output_is_created_empty(tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    state = read_output(str(out), retry_failed=False, score_name=SCORE)
    prepare_output(str(out), state, plan_resume(state, []), retry_failed=False, score_name=SCORE)
    assert out.read_bytes() == b""


def test_a_torn_last_line_is_dropped_and_its_line_left_to_do(tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    out.write_bytes(result(1, "a") + result(2, "b") + b'{"line":3,"key":"c","res')
    state = read_output(str(out), retry_failed=False, score_name=SCORE)
    plan = plan_resume(state, lines("a", "b", "c"))
    prepare_output(str(out), state, plan, retry_failed=False, score_name=SCORE)
    assert (plan.done, state.torn_bytes) == (2, len(b'{"line":3,"key":"c","res'))
    assert out.read_bytes() == result(1, "a") + result(2, "b")


def test_a_torn_line_that_parses_as_json_is_still_dropped(tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    out.write_bytes(result(1, "a") + result(2, "b").rstrip(b"\n"))
    assert set(read_output(str(out), retry_failed=False, score_name=SCORE).kept) == {"a"}


def test_redone_failures_are_removed_and_moved_records_renumbered(tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    out.write_bytes(
        result(1, "a") + failure(2, "b", "UNAVAILABLE") + b"a stranger\n" + result(3, "c")
    )
    out.chmod(0o640)
    state = read_output(str(out), retry_failed=False, score_name=SCORE)
    plan = plan_resume(state, lines("new", "a", "b", "c"))
    prepare_output(str(out), state, plan, retry_failed=False, score_name=SCORE)
    assert (plan.done, plan.moved) == (2, 2)
    kept = out.read_bytes().splitlines()
    assert kept[1] == b"a stranger"
    assert [json.loads(kept[i])["line"] for i in (0, 2)] == [2, 4]
    assert out.stat().st_mode & 0o777 == 0o640


def test_the_writer_appends_one_compact_line_per_record(tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    out.write_bytes(result(1, "a"))
    writer = OutputWriter(str(out))
    assert writer.write({"line": 2, "key": "b", "id": "東京", "result": {SCORE: 0.5}})
    writer.close()
    assert (
        out.read_text(encoding="utf-8").splitlines()[1]
        == '{"line":2,"key":"b","id":"東京","result":{"support_score":0.5}}'
    )


def test_a_closed_writer_refuses_writes(tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    writer = OutputWriter(str(out))
    writer.close()
    assert not writer.write({"line": 1, "key": "a", "result": {}})
    assert out.read_bytes() == b""
