"""The CLI's connection options follow the client's credential rules, and say so in one line."""

from __future__ import annotations

import time
from pathlib import Path
from typing import NoReturn

import google.auth
import pytest

from groundwire.cli import main


@pytest.fixture(autouse=True)
def _no_default_credentials(monkeypatch: pytest.MonkeyPatch) -> None:
    """No project from the environment, and ADC that fails the test if it is ever loaded."""

    def refuse(*args: object, **kwargs: object) -> NoReturn:
        raise AssertionError("Application Default Credentials must not be loaded")

    monkeypatch.delenv("GOOGLE_CLOUD_PROJECT", raising=False)
    monkeypatch.setattr(google.auth, "default", refuse)


def test_an_emulator_variable_off_loopback_is_one_line_naming_it(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GROUNDWIRE_EMULATOR_HOST", "some-host:1")
    status = main(["check", "--answer", "a", "--fact", "b", "--timeout", "5"])
    err = capsys.readouterr().err
    assert status == 2
    assert len(err.strip().splitlines()) == 1
    assert "GROUNDWIRE_EMULATOR_HOST" in err
    assert "GROUNDWIRE_EMULATOR_ALLOW_REMOTE=1" in err


def test_a_malformed_rest_emulator_variable_is_one_line_with_an_example(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GROUNDWIRE_EMULATOR_REST", "https://127.0.0.1:8443")
    status = main(["check", "--project", "p", "--answer", "a", "--fact", "b"])
    err = capsys.readouterr().err
    assert status == 2
    assert "GROUNDWIRE_EMULATOR_REST" in err
    assert "http://127.0.0.1:8080" in err


@pytest.mark.parametrize(
    "argv",
    [
        ["check", "--answer", "Paris is in France.", "--fact", "Paris is in France."],
        ["corroborate", "--content", "Paris is in France.", "--fact", "Paris is in France."],
        ["generate", "Where is Paris?", "--fact", "Paris is in France."],
    ],
    ids=["check", "corroborate", "generate"],
)
@pytest.mark.parametrize("transport", ["grpc", "rest"])
def test_an_unreachable_endpoint_is_one_line_asking_whether_serve_runs(
    capsys: pytest.CaptureFixture[str], refused_port: int, argv: list[str], transport: str
) -> None:
    if transport == "grpc":
        where = f"127.0.0.1:{refused_port}"
        endpoint = ["--endpoint", where]
    else:
        where = f"http://127.0.0.1:{refused_port}"
        endpoint = ["--rest-endpoint", where]
    status = main([*argv, *endpoint, "--transport", transport, "--timeout", "1"])
    [line] = capsys.readouterr().err.splitlines()
    assert status == 1
    assert line.startswith(
        f"groundwire: error: UNAVAILABLE: cannot reach {where}; is `groundwire serve` running?"
    )


@pytest.mark.parametrize("transport", ["grpc", "rest"])
def test_a_command_reports_an_unreachable_endpoint_without_waiting_out_its_timeout(
    capsys: pytest.CaptureFixture[str], refused_port: int, transport: str
) -> None:
    """A few attempts that reach nobody end the command; the default 60 s are not waited out."""
    flag = "--endpoint" if transport == "grpc" else "--rest-endpoint"
    where = (
        f"127.0.0.1:{refused_port}" if transport == "grpc" else f"http://127.0.0.1:{refused_port}"
    )
    started = time.monotonic()
    status = main(
        ["check", "--answer", "a.", "--fact", "a.", flag, where, "--transport", transport]
    )
    elapsed = time.monotonic() - started
    assert status == 1
    assert "cannot reach" in capsys.readouterr().err
    assert elapsed < 30.0, f"the command waited {elapsed:.1f} s of its 60 s timeout"


@pytest.mark.parametrize(
    ("variables", "flags", "named"),
    [
        ({"GROUNDWIRE_EMULATOR_HOST": "https://127.0.0.1:50051"}, [], "GROUNDWIRE_EMULATOR_HOST"),
        ({}, ["--endpoint", "http://127.0.0.1:50051"], "endpoint='http://127.0.0.1:50051'"),
    ],
    ids=["emulator-variable", "endpoint-flag"],
)
def test_a_malformed_endpoint_is_reported_before_a_missing_project(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    variables: dict[str, str],
    flags: list[str],
    named: str,
) -> None:
    for name, value in variables.items():
        monkeypatch.setenv(name, value)
    status = main(["check", "--answer", "a", "--fact", "b", *flags])
    [line] = capsys.readouterr().err.splitlines()
    assert status == 2
    assert named in line
    assert "a gRPC address is not a URL" in line
    assert "no project" not in line


def test_https_to_the_plaintext_emulator_says_to_use_http(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from groundwire.emulator import emulator

    with emulator() as running:
        https = running.http_url.replace("http://", "https://")
        flags = ["--rest-endpoint", https, "--transport", "rest", "--timeout", "5"]
        status = main(["check", "--project", "p", "--answer", "a.", "--fact", "a.", *flags])
    [line] = capsys.readouterr().err.splitlines()
    assert status == 1
    assert f"use {running.http_url}" in line
    assert "is `groundwire serve` running?" not in line


def test_corroborate_refuses_a_discovery_engine_api_version(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status = main(
        ["corroborate", "--local", "--content", "a.", "--fact", "a.", "--api-version", "v1alpha"]
    )
    assert status == 2
    assert "--api-version" in capsys.readouterr().err


def test_corroborate_help_does_not_call_its_version_discovery_engine(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["corroborate", "--help"]) == 0
    shown = " ".join(capsys.readouterr().out.split())
    assert "Discovery Engine API version" not in shown
    assert "Vertex AI API version" in shown


def test_a_corroborating_batch_refuses_a_discovery_engine_api_version(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    source = tmp_path / "in.jsonl"
    source.write_text('{"content": "a.", "facts": ["a."]}\n', encoding="utf-8")
    argv = ["batch", "--local", str(source), "-o", str(tmp_path / "out.jsonl")]
    status = main([*argv, "--method", "corroborate", "--api-version", "v1beta"])
    assert status == 2
    assert "corroborate (Vertex AI) takes v1 only" in capsys.readouterr().err
    assert not (tmp_path / "out.jsonl").exists()
