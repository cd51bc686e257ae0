"""`groundwire check --stream`: each sentence's verdict printed as the answer streams in."""

from __future__ import annotations

import io
import json
import subprocess

import pytest

from groundwire.cli import main
from groundwire.emulator import emulator
from tests.cli.running import cli_command, cli_env

pytestmark = pytest.mark.timeout(60)

FACTS = ["東京は日本の首都である。", "Paris is the capital of France."]
FACT_FLAGS = [flag for fact in FACTS for flag in ("--fact", fact)]
ANSWER = "東京は日本の首都です。Paris is in Germany. 👋"


def run_stream(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], *argv: str
) -> tuple[int, str, str]:
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(ANSWER.encode())))
    status = main(["check", "--local", "--stream", *FACT_FLAGS, *argv])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_each_sentence_gets_a_verdict_line_then_the_summary(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, err = run_stream(monkeypatch, capsys)
    assert (status, err) == (0, "")
    lines = out.splitlines()
    with emulator() as emu, emu.client() as client:
        germany = client.check_grounding(
            "Paris is in Germany.", FACTS, enable_claim_level_score=True
        )
    assert lines[:3] == [
        "✓ 東京は日本の首都です。  1.00",
        f"✗ Paris is in Germany.  {germany.support_score:.2f}",  # the check's support score
        "· 👋  n/a",
    ]
    assert lines[-1].startswith("Support score 0.")
    assert "3 checks" in lines[-1]


def test_json_gives_one_check_event_per_sentence_in_whole_text_offsets(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, _ = run_stream(monkeypatch, capsys, "--json")
    records = [json.loads(line) for line in out.splitlines()]
    assert status == 0
    assert [r["text"] for r in records] == ["東京は日本の首都です。", "Paris is in Germany.", "👋"]
    encoded = ANSWER.encode()
    for record in records:
        assert ANSWER[record["start"] : record["end"]] == record["text"]
        for claim in record["claims"]:
            assert encoded[claim["start_byte"] : claim["end_byte"]].decode() == claim["text"]


def test_stream_refuses_an_answer_flag(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "--local", "--stream", "--answer", "Hi."]) == 2
    assert "--stream reads the answer from stdin" in capsys.readouterr().err


def test_the_first_verdict_is_printed_before_stdin_ends() -> None:
    with subprocess.Popen(
        cli_command("check", "--local", "--stream", *FACT_FLAGS),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=cli_env(),
    ) as process:
        assert process.stdin is not None
        assert process.stdout is not None
        process.stdin.write("東京は日本の首都です。Paris".encode())
        process.stdin.flush()
        first = process.stdout.readline().decode()
        process.stdin.write(b" is in Germany.")
        process.stdin.close()
        rest = process.stdout.read().decode()
        assert process.wait(30) == 0
    assert first == "✓ 東京は日本の首都です。  1.00\n"
    assert rest.splitlines()[0].startswith("✗ Paris is in Germany.  0.")
