"""`groundwire serve`: a standalone emulator that answers clients and stops on SIGTERM."""

from __future__ import annotations

import os
import re
import shlex
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from groundwire.cli import main
from groundwire.emulator.serving import StopSignal
from tests.cli.running import cli_command, cli_env, run_cli

ANNOUNCEMENT = re.compile(r"gRPC (?P<grpc>\S+), REST (?P<rest>\S+) ")


@pytest.fixture
def server(
    request: pytest.FixtureRequest, tmp_path: Path
) -> Iterator[tuple[subprocess.Popen[str], str, str]]:
    """A `groundwire serve` subprocess on free ports, with extra flags from `request.param`."""
    extra: list[str] = getattr(request, "param", [])
    process = subprocess.Popen(
        cli_command("serve", "--grpc-port", "0", "--http-port", "0", *extra),
        env=cli_env(),
        stdout=subprocess.PIPE,
        stderr=(tmp_path / "stderr").open("w"),  # a file: a chatty server never blocks on it
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
        process.communicate(timeout=30)


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
    assert process.wait(timeout=30) == 0


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


def test_serve_prints_the_export_line_for_the_ports_it_bound(
    server: tuple[subprocess.Popen[str], str, str],
) -> None:
    process, grpc_address, rest_url = server
    assert process.stdout is not None
    assert process.stdout.readline() == (
        f"export GROUNDWIRE_EMULATOR_HOST={grpc_address} GROUNDWIRE_EMULATOR_REST={rest_url}\n"
    )


@pytest.mark.parametrize("server", [["--log-level", "info"]], indirect=True)
def test_log_level_info_logs_one_line_per_request_without_the_body(
    server: tuple[subprocess.Popen[str], str, str], tmp_path: Path
) -> None:
    _, _, rest_url = server
    path = "/v1/projects/p/locations/global/groundingConfigs/default_grounding_config:check"
    body = {"answerCandidate": "secret-answer-text", "facts": [{"factText": "secret-fact"}]}
    for _ in range(3):
        assert httpx.post(rest_url + path, json=body, timeout=10).status_code == 200
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        logged = (tmp_path / "stderr").read_text()
        if logged.count(path) >= 3:
            break
        time.sleep(0.1)
    lines = [line for line in logged.splitlines() if path in line]
    assert len(lines) == 3, logged
    assert all('" 200 ' in line for line in lines)
    assert "secret" not in logged


def test_the_default_log_level_logs_no_requests(
    server: tuple[subprocess.Popen[str], str, str], tmp_path: Path
) -> None:
    process, _, rest_url = server
    assert httpx.post(rest_url + "/v1/nowhere", json={}, timeout=10).status_code == 404
    process.send_signal(signal.SIGTERM)
    assert process.wait(timeout=30) == 0
    assert (tmp_path / "stderr").read_text() == ""


@pytest.mark.parametrize("flag", ["--grpc-port", "--http-port"])
def test_a_port_in_use_is_one_line_naming_it(flag: str) -> None:
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = str(taken.getsockname()[1])
        other = "--http-port" if flag == "--grpc-port" else "--grpc-port"
        result = run_cli(["serve", flag, port, other, "0"])
    assert result.returncode == 1
    assert result.stderr.count("\n") == 1, result.stderr
    assert f"port {port} is already in use" in result.stderr
    assert "internal error" not in result.stderr


def test_a_worker_that_dies_is_named_with_its_cause() -> None:
    process = subprocess.Popen(
        cli_command("serve", "--grpc-port", "0", "--http-port", "0", "--workers", "2"),
        env=cli_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        assert ANNOUNCEMENT.search(process.stdout.readline())
        children = Path(f"/proc/{process.pid}/task/{process.pid}/children").read_text().split()
        workers = [pid for pid in children if "spawn_main" in _command_line(pid)]
        assert len(workers) == 2, children
        victim = int(workers[0])
        subprocess.run(["kill", "-KILL", str(victim)], check=True, timeout=5)
        _, stderr = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate(timeout=30)
    assert process.returncode == 1
    assert stderr.count("\n") == 1, stderr
    assert f"(pid {victim}) died: killed by SIGKILL" in stderr
    assert "internal error" not in stderr


def _command_line(pid: str) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace")
    except OSError:
        return ""


@pytest.mark.parametrize(
    ("bound", "loopback"), [("0.0.0.0", "127.0.0.1"), ("[::]", "[::1]")], ids=["ipv4", "ipv6"]
)
def test_a_wildcard_bind_exports_loopback_which_its_own_client_accepts(
    bound: str, loopback: str
) -> None:
    from groundwire.client.endpoints import resolve_endpoints
    from groundwire.emulator.serving import export_line

    line = export_line(f"{bound}:50051", f"http://{bound}:8080")
    exported, comment = line.split("  # ")
    assert bound in comment
    assert "every interface" in comment
    variables = dict(shlex.split(word)[0].split("=", 1) for word in exported.split()[1:])
    assert variables == {
        "GROUNDWIRE_EMULATOR_HOST": f"{loopback}:50051",
        "GROUNDWIRE_EMULATOR_REST": f"http://{loopback}:8080",
    }
    found = resolve_endpoints(
        "discoveryengine", "global", endpoint=None, rest_endpoint=None, environ=variables
    )
    assert found.plaintext


def test_the_same_port_for_both_protocols_is_refused_as_such() -> None:
    result = run_cli(["serve", "--grpc-port", "50999", "--http-port", "50999"])
    assert result.returncode == 2
    assert "--grpc-port and --http-port must differ" in result.stderr
    assert "already in use" not in result.stderr


@pytest.mark.parametrize("whom", ["one-worker", "the-process-group"])
def test_a_worker_stopped_by_sigterm_did_not_die(whom: str) -> None:
    process = subprocess.Popen(
        cli_command("serve", "--grpc-port", "0", "--http-port", "0", "--workers", "2"),
        env=cli_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # a process group of its own, as a shell job has
    )
    try:
        assert process.stdout is not None
        assert ANNOUNCEMENT.search(process.stdout.readline())
        children = Path(f"/proc/{process.pid}/task/{process.pid}/children").read_text().split()
        workers = [pid for pid in children if "spawn_main" in _command_line(pid)]
        assert len(workers) == 2, children
        if whom == "one-worker":
            subprocess.run(["kill", "-TERM", workers[0]], check=True, timeout=5)
        else:
            os.killpg(process.pid, signal.SIGTERM)
        _, stderr = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate(timeout=30)
    assert process.returncode == 0, stderr
    assert "died" not in stderr
    if whom == "one-worker":
        assert f"(pid {workers[0]}) stopped on a signal" in stderr


def test_a_signal_landing_while_serve_waits_stops_it_and_a_quiet_wait_times_out() -> None:
    stop = StopSignal()
    previous = signal.signal(signal.SIGALRM, lambda *_: stop.set())
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.05)
        assert stop.wait(30.0)  # set by the handler, in this (the main) thread
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    assert stop.is_set()
    assert not StopSignal().wait(0.01)
