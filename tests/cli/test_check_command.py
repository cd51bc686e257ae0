"""`groundwire check`, `corroborate` and `generate` end to end against the local emulator."""

from __future__ import annotations

import io
import json
from importlib import metadata

import pytest

from groundwire.cli import main
from tests.cli.running import run_cli

ANSWER = "東京は日本の首都です。Paris is in Germany."
FACTS = ["東京は日本の首都である。", "Paris is the capital of France."]
FACT_FLAGS = [flag for fact in FACTS for flag in ("--fact", fact)]


def check(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(["check", "--local", *argv])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_check_marks_supported_and_unsupported_claims(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = check(capsys, "--answer", ANSWER, *FACT_FLAGS)
    assert (status, err) == (0, "")
    lines = out.splitlines()
    assert "  ✓ 東京は日本の首都です。" in lines
    assert "  ✗ Paris is in Germany." in lines
    assert "      ↳ facts[0] “東京は日本の首都である。”" in lines
    assert any(line.startswith("Support score ") for line in lines)
    assert "\x1b[" not in out


def test_check_json_offsets_slice_the_answer(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = check(capsys, "--answer", ANSWER, *FACT_FLAGS, "--json", "--claim-scores")
    record = json.loads(out)
    assert status == 0
    assert record["answer_candidate"] == ANSWER
    assert [c["text"] for c in record["claims"]] == [
        "東京は日本の首都です。",
        "Paris is in Germany.",
    ]
    for claim in record["claims"]:
        assert ANSWER[claim["start"] : claim["end"]] == claim["text"]
        assert ANSWER.encode()[claim["start_byte"] : claim["end_byte"]].decode() == claim["text"]
        assert isinstance(claim["score"], float)
    assert [c["supported"] for c in record["claims"]] == [True, False]
    assert record["claims"][0]["citations"][0]["fact_index"] == 0
    assert 0 <= record["support_score"] <= 1


def test_check_reads_a_json_request_from_stdin(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    document = {"answer_candidate": ANSWER, "facts": [FACTS[0], {"text": FACTS[1]}]}
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(json.dumps(document).encode())))
    status, out, _ = check(capsys, "--json")
    assert status == 0
    assert [c["supported"] for c in json.loads(out)["claims"]] == [True, False]


def test_stdin_that_is_not_json_is_one_line_and_exit_2(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(b"{answer: hi}")))
    status, out, err = check(capsys)
    assert (status, out) == (2, "")
    assert err.startswith("groundwire: error: stdin: not valid JSON")
    assert err.count("\n") == 1


def test_a_fact_over_the_limit_names_the_field(capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = check(capsys, "--answer", "Hi.", "--fact", "ok", "--fact", "x" * 10_001)
    assert status == 2
    assert err.startswith("groundwire: error: INVALID_ARGUMENT: facts[1].fact_text: ")
    assert err.count("\n") == 1


def test_check_split_checks_an_answer_past_the_limit_and_says_how_many_calls(
    capsys: pytest.CaptureFixture[str],
) -> None:
    answer = "東京は日本の首都です。Paris is in Germany. " * 1_000  # past 4,096 tokens
    status, _, err = check(capsys, "--answer", answer, *FACT_FLAGS)
    assert status == 2
    assert "at most 4,096 are allowed" in err
    status, out, err = check(capsys, "--answer", answer, *FACT_FLAGS, "--split", "--json")
    record = json.loads(out)
    assert (status, err) == (0, "")
    assert record["calls"] == 4  # 16,000 tokens
    assert len(record["claims"]) == 2_000
    for claim in record["claims"][-2:]:
        assert answer[claim["start"] : claim["end"]] == claim["text"]
    status, out, err = check(capsys, "--answer", answer, *FACT_FLAGS, "--split", "--max-calls", "1")
    assert status == 2
    assert "the split needs 4 calls (4 answer parts × 1 fact groups); max_calls is 1" in err
    assert err.count("\n") == 1


def test_a_usage_error_is_one_line_and_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "--citation-threshold", "high"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "invalid float value: 'high'" in err


def test_the_command_runs_as_a_subprocess() -> None:
    done = run_cli(["check", "--local", "--answer", ANSWER, *FACT_FLAGS])
    assert done.returncode == 0, done.stderr
    assert "✓ 東京は日本の首都です。" in done.stdout
    assert "✗ Paris is in Germany." in done.stdout


def test_a_subprocess_reads_stdin_and_prints_json() -> None:
    done = run_cli(
        ["check", "--local", "--json"], stdin=json.dumps({"answer": ANSWER, "facts": FACTS})
    )
    assert done.returncode == 0, done.stderr
    record = json.loads(done.stdout)
    assert [ANSWER[c["start"] : c["end"]] for c in record["claims"]] == [
        c["text"] for c in record["claims"]
    ]


def test_bad_input_in_a_subprocess_gives_no_traceback() -> None:
    done = run_cli(["check", "--local"], stdin='{"answer": 3, "facts": []}')
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr == "groundwire: error: stdin: 'answer' must be text, got a number\n"


def test_version_prints_the_installed_package_version() -> None:
    done = run_cli(["--version"])
    assert (done.returncode, done.stdout) == (0, f"groundwire {metadata.version('groundwire')}\n")


def test_corroborate_lists_claims_with_fact_indexes(capsys: pytest.CaptureFixture[str]) -> None:
    status = main(
        [
            "corroborate",
            "--local",
            "--content",
            "Paris is the capital of France.",
            "--fact",
            "Paris is the capital of France.",
            "--json",
        ]
    )
    record = json.loads(capsys.readouterr().out)
    assert status == 0
    assert record["claims"][0]["fact_indexes"] == [0]


def test_generate_streams_the_answer_then_its_sources(capsys: pytest.CaptureFixture[str]) -> None:
    status = main(
        [
            "generate",
            "--local",
            "What is the capital of France?",
            "--fact",
            "Paris is the capital of France.",
            "--stream",
        ]
    )
    out = capsys.readouterr().out
    assert status == 0
    answer, _, grounding = out.partition("\n\nSources\n")
    assert "Paris" in answer
    assert "facts[0]" in grounding
    assert "Grounding score" in grounding


def test_generate_stream_json_prints_one_object_per_piece(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status = main(
        [
            "generate",
            "--local",
            "Capital of France?",
            "--fact",
            "Paris is the capital of France.",
            "--stream",
            "--json",
        ]
    )
    pieces = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert status == 0
    assert len(pieces) >= 1
    assert "".join(piece["text"] for piece in pieces).strip()
