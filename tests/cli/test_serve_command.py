"""`groundwire serve`: a standalone emulator that answers clients and stops on SIGTERM."""

from __future__ import annotations

import re
import signal
import subprocess
from collections.abc import Iterator

import pytest

from groundwire.cli import main
from tests.cli.running import cli_command, cli_env

pytestmark = pytest.mark.timeout(20)

ANNOUNCEMENT = re.compile(r"gRPC (?P<grpc>\S+), REST (?P<rest>\S+) ")


@pytest.fixture
def server(request: pytest.FixtureRequest) -> Iterator[tuple[subprocess.Popen[str], str, str]]:
    """A `groundwire serve` subprocess on free ports, with extra flags from `request.param`."""
    extra: list[str] = getattr(request, "param", [])
    process = subprocess.Popen(
        cli_command("serve", "--grpc-port", "0", "--http-port", "0", *extra),
        env=cli_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        found = ANNOUNCEMENT.search(line)
        assert found, f"unexpected announcement {line!r}"
        yield process, found["grpc"], found["rest"]
    finally:
        if process.poll() is None:
            process.kill()
        process.communicate(timeout=10)


def test_serve_answers_checks_and_stops_on_sigterm(
    server: tuple[subprocess.Popen[str], str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    process, grpc_address, rest_url = server
    for transport in ("grpc", "rest"):
        status = main(
            [
                "check",
                "--endpoint",
                grpc_address,
                "--rest-endpoint",
                rest_url,
                "--transport",
                transport,
                "--answer",
                "Paris is in France.",
                "--fact",
                "Paris is in France.",
                "--json",
            ]
        )
        assert status == 0, capsys.readouterr().err
        assert '"supported": true' in capsys.readouterr().out
    process.send_signal(signal.SIGTERM)
    assert process.wait(timeout=10) == 0


@pytest.mark.parametrize(
    "server", [["--fault-rate", "1", "--fault-codes", "PERMISSION_DENIED"]], indirect=True
)
def test_injected_faults_reach_the_client_as_one_line(
    server: tuple[subprocess.Popen[str], str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    _, grpc_address, rest_url = server
    status = main(
        [
            "check",
            "--endpoint",
            grpc_address,
            "--rest-endpoint",
            rest_url,
            "--answer",
            "Paris is in France.",
            "--fact",
            "Paris is in France.",
        ]
    )
    err = capsys.readouterr().err
    assert status == 1
    assert err.startswith("groundwire: error: PERMISSION_DENIED: ")
    assert err.count("\n") == 1


def test_unknown_fault_codes_are_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve", "--fault-rate", "0.5", "--fault-codes", "UNAVAILABLE,NOPE"]) == 2
    assert "'NOPE' is not a failure status code" in capsys.readouterr().err
