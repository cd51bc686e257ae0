"""Batch resume bookkeeping: done lines, a torn last line repaired, error lines redone."""

from __future__ import annotations

import json
from pathlib import Path

from groundwire.cli.resume import OutputWriter, line_number, prepare_output, read_state


def lines_of(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_the_state_names_done_and_failed_lines_and_counts_strangers() -> None:
    state = read_state(
        [
            b'{"line": 1, "result": {}}\n',
            b'{"line": 4, "error": {}}\n',
            b"not json\n",
            b'{"line": "2"}\n',
            b"[1]\n",
        ]
    )
    assert (state.done, state.failed, state.unreadable) == ({1, 4}, {4}, 3)


def test_a_line_number_must_be_a_positive_integer() -> None:
    assert line_number(b'{"line": true}') is None
    assert line_number(b'{"line": 0}') is None
    assert line_number(b'{"line": 7, "result": {}}') == (7, False)


def test_a_missing_output_file_is_created_empty(tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    state = prepare_output(str(out))
    assert out.read_bytes() == b""
    assert state.done == set()
    assert state.repaired_bytes == 0


def test_a_torn_last_line_is_dropped_and_its_input_line_not_counted_done(tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    out.write_bytes(b'{"line":1,"result":{}}\n{"line":2,"result":{}}\n{"line":3,"res')
    state = prepare_output(str(out))
    assert state.done == {1, 2}
    assert state.repaired_bytes == len(b'{"line":3,"res')
    assert out.read_bytes() == b'{"line":1,"result":{}}\n{"line":2,"result":{}}\n'


def test_a_torn_line_that_parses_as_json_is_still_dropped(tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    out.write_bytes(b'{"line":1,"result":{}}\n{"line":2,"result":{}}')
    assert prepare_output(str(out)).done == {1}


def test_retry_failed_removes_error_lines_and_keeps_the_rest(tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    out.write_text(
        '{"line":1,"result":{}}\n{"line":2,"error":{"code":"UNAVAILABLE"}}\n'
        '{"line":3,"result":{}}\n'
    )
    out.chmod(0o640)
    state = prepare_output(str(out), retry_failed=True)
    assert state.done == {1, 3}
    assert state.failed == set()
    assert [record["line"] for record in lines_of(out)] == [1, 3]
    assert out.stat().st_mode & 0o777 == 0o640


def test_the_writer_appends_one_compact_line_per_record(tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    out.write_text('{"line":1,"result":{}}\n')
    writer = OutputWriter(str(out))
    assert writer.write({"line": 2, "id": "東京", "result": {"support_score": 0.5}})
    writer.close()
    assert (
        out.read_text(encoding="utf-8").splitlines()[1]
        == '{"line":2,"id":"東京","result":{"support_score":0.5}}'
    )


def test_a_closed_writer_refuses_writes(tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    writer = OutputWriter(str(out))
    writer.close()
    assert not writer.write({"line": 1, "result": {}})
    assert out.read_bytes() == b""
