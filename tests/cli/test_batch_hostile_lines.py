"""A batch line no request could be (a lone surrogate, a huge integer, 16 MiB) fails alone."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from groundwire.cli import main
from groundwire.cli.batch_input import RequestShape, input_lines

MAX_LINE_BYTES = 16 << 20  # the longest line a batch reads

GOOD = {"answer": "Paris is in France.", "facts": ["Paris is in France."]}


def run_batch(source: Path, out: Path, capsys: pytest.CaptureFixture[str]) -> int:
    status = main(["batch", "--local", str(source), "-o", str(out), "--rate", "0", "--no-progress"])
    capsys.readouterr()
    return status


def records(out: Path) -> dict[int, dict[str, Any]]:
    lines = out.read_text(encoding="utf-8").splitlines()
    return {record["line"]: record for record in map(json.loads, lines)}


@pytest.mark.parametrize(
    "poison",
    [
        '{"answer": "x \\ud800", "facts": ["y"]}',
        '{"answer": "x", "facts": [{"text": "y", "attributes": {"k": "\\udfff"}}]}',
        '{"answer": "x", "facts": ["y"], "id": ' + "7" * 4301 + "}",
        '{"answer": "x", "facts": ["y"], "extra": [' + "9" * 5000 + "]}",
    ],
    ids=["lone-high-surrogate", "lone-low-surrogate-in-attribute", "long-id", "long-extra"],
)
def test_a_poison_line_fails_alone_and_the_others_run(
    poison: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    source.write_text(f"{json.dumps(GOOD)}\n{poison}\n{json.dumps(GOOD)}\n", encoding="utf-8")
    assert run_batch(source, out, capsys) == 1  # not every line has a result
    written = records(out)
    assert sorted(written) == [1, 2, 3]
    assert written[2]["error"]["code"] == "INVALID_ARGUMENT"
    assert written[2]["error"]["message"].startswith("line 2: ")
    assert "result" in written[1]
    assert "result" in written[3]
    before = out.read_bytes()
    assert run_batch(source, out, capsys) == 1
    assert out.read_bytes() == before  # the failure is final: nothing is done again


@pytest.mark.parametrize(
    "poison",
    [
        '{"id": "b", "answer": "bad \\ud800 text", "facts": ["y"]}',
        '{"id": "b", "answer": "x", "facts": ["y"], "n": ' + "4" * 4_400 + "}",
        '{"id": "b", "answer": "not UTF-8: \udcff", "facts": ["y"]}',  # the byte 0xff
    ],
    ids=["lone-surrogate", "4400-digit-number", "not-utf-8"],
)
def test_a_poison_line_keeps_its_id_when_the_id_can_be_read(
    poison: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    good = json.dumps({**GOOD, "id": "a"})
    source.write_bytes(f"{good}\n{poison}\n".encode("utf-8", "surrogateescape"))
    [line] = input_lines(str(source), RequestShape("check"), skip=lambda number: number == 1)
    assert (line.id, line.item) == ("b", None)
    assert run_batch(source, out, capsys) == 1
    written = records(out)
    assert written[2]["id"] == "b"
    assert written[2]["key"] == line.key  # the key still hashes the line's bytes
    assert written[2]["error"]["code"] == "INVALID_ARGUMENT"
    assert written[1]["id"] == "a"


@pytest.mark.parametrize(
    "poison",
    [
        '{"id": "\\ud800", "answer": "x", "facts": ["y"]}',
        '{"id": ' + "4" * 4_400 + ', "answer": "x", "facts": ["y"]}',
        '{"id": ["b", ' + "4" * 4_400 + '], "answer": "x", "facts": ["y"]}',
        '{"id": "b", "answer": "x", "facts": [',
        '["b"]',
    ],
    ids=["surrogate-id", "4400-digit-id", "id-holding-a-long-number", "not-json", "no-object"],
)
def test_no_id_is_guessed_from_a_line_whose_id_cannot_be_read(poison: str, tmp_path: Path) -> None:
    source = tmp_path / "in.jsonl"
    source.write_text(poison + "\n", encoding="utf-8")
    [line] = input_lines(str(source), RequestShape("check"))
    assert line.problem is not None
    assert line.id is None


@pytest.mark.parametrize(("method", "key"), [("check", "answer"), ("corroborate", "content")])
def test_an_empty_text_is_that_lines_own_invalid_argument_and_the_others_run(
    method: str, key: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    lines = [
        {"id": "a", key: "Paris is in France.", "facts": ["Paris is in France."]},
        {"id": "e", key: "", "facts": ["Paris is in France."]},
        {"id": "b", key: " \t", "facts": ["Paris is in France."]},
    ]
    source.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    argv = ["batch", "--local", str(source), "-o", str(out), "--method", method, "--no-progress"]
    assert main(argv) == 1
    capsys.readouterr()
    written = records(out)
    field = "answer_candidate" if method == "check" else "content"
    refused = {"code": "INVALID_ARGUMENT", "message": f"{field}: is empty"}
    assert [(written[n]["id"], written[n].get("error")) for n in (2, 3)] == [
        ("e", refused),
        ("b", refused),
    ]
    assert "result" in written[1]


@pytest.mark.slow
def test_a_line_over_16_mib_is_refused_unread_and_not_sent_again(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    with source.open("wb") as file:
        file.write(json.dumps(GOOD).encode() + b"\n")
        file.write(b'{"answer": "' + b"a" * MAX_LINE_BYTES + b'", "facts": ["a"]}\n')
        file.write(json.dumps(GOOD).encode() + b"\n")
    assert run_batch(source, out, capsys) == 1
    written = records(out)
    assert sorted(written) == [1, 2, 3]
    assert written[2]["error"]["code"] == "INVALID_ARGUMENT"
    assert "16 MiB" in written[2]["error"]["message"]
    assert "result" in written[1]
    assert "result" in written[3]
    before = out.read_bytes()
    assert run_batch(source, out, capsys) == 1
    assert out.read_bytes() == before


@pytest.mark.slow
def test_a_line_of_exactly_the_limit_is_read(tmp_path: Path) -> None:
    source = tmp_path / "in.jsonl"
    padding = MAX_LINE_BYTES - len(b'{"answer": "", "facts": ["a"]}')
    source.write_bytes(b'{"answer": "' + b"a" * padding + b'", "facts": ["a"]}\nnot json\n')
    first, second = input_lines(str(source), RequestShape("check"))
    assert first.problem is None
    assert first.number == 1
    assert second.number == 2
    assert "not valid JSON" in (second.problem or "")


def test_a_directory_as_input_is_called_a_directory(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status = main(["batch", "--local", str(tmp_path), "-o", str(tmp_path / "out.jsonl")])
    error = capsys.readouterr().err
    assert status == 2
    assert "is a directory" in error
    assert "no such file" not in error


def test_a_missing_output_directory_is_bad_input(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "in.jsonl"
    source.write_text(json.dumps(GOOD) + "\n", encoding="utf-8")
    status = main(["batch", "--local", str(source), "-o", str(tmp_path / "nowhere" / "o.jsonl")])
    assert status == 2
    assert "no such directory" in capsys.readouterr().err
