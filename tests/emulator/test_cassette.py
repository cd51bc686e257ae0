"""Cassettes at start-up, and `serve`'s record and replay flags: bad input is refused, clearly."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import httpx
import pytest

from groundwire.cli import main
from groundwire.contract.errors import ConfigurationError
from groundwire.emulator import emulator
from groundwire.emulator.cassette import read_cassette
from tests.emulator.support import CHECK, CHECK_BODY, CHECK_PATH, GROUNDING_CONFIG
from tests.emulator.test_stubs_serve import serving

pytestmark = pytest.mark.timeout(60)

HEADER = json.dumps({"groundwireCassette": 1, "upstream": "127.0.0.1:50051"})
EXCHANGE = json.dumps(
    {
        "method": CHECK.grpc_path.lstrip("/"),
        "transport": "grpc",
        "request": {"groundingConfig": GROUNDING_CONFIG, **CHECK_BODY},
        "response": {"supportScore": 0.625},
    }
)


def _cassette(tmp_path: Path, *lines: str, end: str = "\n") -> Path:
    path = tmp_path / "calls.jsonl"
    path.write_text("\n".join(lines) + end)
    return path


def _serve_error(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    """The one line `serve ARGV` fails with (exit 2: the input cannot be used)."""
    assert main(["serve", "--grpc-port", "0", "--http-port", "0", *argv]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    return err


def test_a_torn_last_line_is_dropped_with_a_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = _cassette(tmp_path, HEADER, EXCHANGE, EXCHANGE[:40], end="")
    with caplog.at_level(logging.WARNING, "groundwire.emulator.cassette"):
        exchanges = read_cassette(path)
    assert [exchange.line for exchange in exchanges] == [2]
    assert "dropped a torn last line 3" in caplog.text


def test_a_last_line_without_its_newline_that_is_whole_is_kept(tmp_path: Path) -> None:
    path = _cassette(tmp_path, HEADER, EXCHANGE, EXCHANGE, end="")
    assert [exchange.line for exchange in read_cassette(path)] == [2, 3]


@pytest.mark.parametrize(
    ("line", "problem"),
    [
        (EXCHANGE[:40], "line 2: is not a JSON object"),
        (EXCHANGE.replace("0.625", '"high"'), "line 2: response: is not a"),
        (EXCHANGE.replace("CheckGrounding", "CheckGrounds"), "line 2: method"),
        (EXCHANGE.replace('"transport"', '"headers"'), "line 2: 'headers' is not a field"),
    ],
)
def test_a_corrupt_line_before_the_last_is_refused_naming_it(
    tmp_path: Path, line: str, problem: str
) -> None:
    path = _cassette(tmp_path, HEADER, line, EXCHANGE)
    with pytest.raises(ConfigurationError, match=problem):
        read_cassette(path)
    with pytest.raises(ConfigurationError, match=problem), emulator(replay=path):
        pass


def test_a_file_without_a_cassette_header_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError, match="line 1 is no cassette header"):
        read_cassette(_cassette(tmp_path, EXCHANGE))


def test_serve_refuses_a_corrupt_cassette_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _cassette(tmp_path, HEADER, "{not json", EXCHANGE)
    assert f"cassette {path}: line 2" in _serve_error(capsys, "--replay", str(path))


def test_serve_records_on_loopback_only_and_says_why(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record = ("--record", str(tmp_path / "new.jsonl"), "--upstream", "127.0.0.1:50051")
    err = _serve_error(capsys, *record, "--host", "0.0.0.0")
    assert "--record refuses --host 0.0.0.0" in err
    assert "loopback only" in err
    assert not (tmp_path / "new.jsonl").exists()


@pytest.mark.parametrize(
    ("flags", "problem"),
    [
        (["--upstream", "google"], "--record FILE and --upstream"),
        (["--replay-speed", "0"], "go with --replay FILE"),
        (["--record", "{existing}", "--upstream", "127.0.0.1:1"], "exists; remove it"),
        (["--record", "{new}", "--upstream", "127.0.0.1:1", "--workers", "2"], "one worker"),
        (["--replay", "{existing}", "--record", "{new}", "--upstream", "google"], "exclude"),
        (["--replay", "{existing}", "--replay-speed", "-1"], "--replay-speed"),
    ],
)
def test_serve_refuses_record_and_replay_flags_that_cannot_work(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], flags: list[str], problem: str
) -> None:
    existing = _cassette(tmp_path, HEADER, EXCHANGE)
    names = {"existing": str(existing), "new": str(tmp_path / "new.jsonl")}
    assert problem in _serve_error(capsys, *(flag.format(**names) for flag in flags))


def test_recording_from_google_is_refused_while_an_emulator_is_configured(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GROUNDWIRE_EMULATOR_HOST", "127.0.0.1:50051")
    record = ("--record", str(tmp_path / "new.jsonl"), "--upstream", "google")
    assert "GROUNDWIRE_EMULATOR_HOST is set" in _serve_error(capsys, *record)


def test_serve_records_from_an_upstream_and_every_worker_replays_the_cassette(
    tmp_path: Path,
) -> None:
    path = tmp_path / "served.jsonl"
    with emulator() as upstream:
        upstream.stub("CheckGrounding", response={"supportScore": 0.0625})
        flags = ("--record", str(path), "--upstream", upstream.grpc_address)
        with serving(tmp_path, *flags) as url:
            recorded = httpx.post(url + CHECK_PATH, json=CHECK_BODY, timeout=10).json()
    replay = ("--replay", str(path), "--replay-speed", "0", "--workers", "2")
    with serving(tmp_path, *replay) as url:
        replayed = [
            httpx.post(url + CHECK_PATH, json=CHECK_BODY, timeout=10).json() for _ in range(4)
        ]
    assert [recorded] * 4 == replayed == [{"supportScore": 0.0625}] * 4


def test_a_recorder_started_from_python_listens_on_loopback_only(tmp_path: Path) -> None:
    from groundwire.emulator.control import ControlOptions, local_state
    from groundwire.emulator.in_process import start_servers
    from groundwire.emulator.recorder import RecordOptions, Upstream

    recording = RecordOptions(tmp_path / "new.jsonl", Upstream("127.0.0.1:50051"))
    state = local_state(ControlOptions(cassette=recording))
    with pytest.raises(ConfigurationError, match=r"cannot listen on 0\.0\.0\.0: .* loopback only"):
        start_servers("0.0.0.0", 0, 0, control=state)
    assert not (tmp_path / "new.jsonl").exists()
