"""Starting and stopping: one announcement line, N workers on shared ports, clean signals."""

from __future__ import annotations

import re
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import grpc
import httpx
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from groundwire.emulator import emulator
from tests.emulator.support import CHECK_BODY, CHECK_PATH

ANNOUNCEMENT = re.compile(
    r"groundwire emulator: gRPC (?P<grpc>127\.0\.0\.1:\d+), REST (?P<http>http://127\.0\.0\.1:\d+)"
    r" \((?P<workers>\d+) workers?\)"
)


@contextmanager
def serving(arguments: str) -> Iterator[tuple[subprocess.Popen[str], re.Match[str]]]:
    """`serve(...)` in a fresh interpreter, until the test signals it; its announcement.

    The announcement is followed by the shell's `export` line for the same addresses.
    """
    script = (
        "from groundwire.emulator.faults import FaultPolicy\n"
        f"from groundwire.emulator.server import serve\nserve({arguments})"
    )
    process = subprocess.Popen(
        [sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        timer = threading.Timer(60, process.kill)
        timer.start()
        assert process.stdout is not None
        line = process.stdout.readline()
        export = process.stdout.readline()
        timer.cancel()
        found = ANNOUNCEMENT.fullmatch(line.strip())
        assert found is not None, (line, process.stderr.read() if process.stderr else "")
        assert export == (
            f"export GROUNDWIRE_EMULATOR_HOST={found['grpc']} "
            f"GROUNDWIRE_EMULATOR_REST={found['http']}\n"
        )
        yield process, found
    finally:
        if process.poll() is None:
            process.kill()
        process.wait(timeout=5)


def answers_both_protocols(announced: re.Match[str]) -> None:
    with grpc.insecure_channel(announced["grpc"]) as channel:
        reply = health_pb2_grpc.HealthStub(channel).Check(
            health_pb2.HealthCheckRequest(), timeout=5
        )
        assert reply.status == health_pb2.HealthCheckResponse.SERVING
    assert httpx.post(announced["http"] + CHECK_PATH, json=CHECK_BODY, timeout=5).is_success


def test_two_workers_share_both_ports_and_exit_cleanly_on_sigterm() -> None:
    with serving("grpc_port=0, http_port=0, workers=2") as (process, announced):
        assert announced["workers"] == "2"
        for _ in range(4):
            answers_both_protocols(announced)
        process.send_signal(signal.SIGTERM)
        stdout, _ = process.communicate(timeout=60)
        assert process.returncode == 0
        assert stdout == "", "the address lines are printed once, by the parent"


def test_one_worker_finishes_in_flight_calls_when_interrupted() -> None:
    latency = "faults=FaultPolicy(latency_ms=1000)"
    with serving(f"grpc_port=0, http_port=0, {latency}") as (process, announced):
        assert announced["workers"] == "1"
        result: dict[str, Any] = {}

        def slow_call() -> None:
            result["response"] = httpx.post(
                announced["http"] + CHECK_PATH, json=CHECK_BODY, timeout=30
            )

        caller = threading.Thread(target=slow_call)
        caller.start()
        threading.Event().wait(0.4)
        process.send_signal(signal.SIGINT)
        caller.join(timeout=30)
        process.wait(timeout=30)
        assert result["response"].status_code == 200
        assert process.returncode == 0


def test_serve_refuses_zero_workers() -> None:
    from groundwire.emulator.server import serve

    with pytest.raises(ValueError, match="workers must be at least 1"):
        serve(workers=0)


def test_the_in_process_emulator_names_its_addresses_and_environment() -> None:
    with emulator() as emu:
        assert re.fullmatch(r"127\.0\.0\.1:\d+", emu.grpc_address)
        assert re.fullmatch(r"http://127\.0\.0\.1:\d+", emu.http_url)
        assert emu.env() == {
            "GROUNDWIRE_EMULATOR_HOST": emu.grpc_address,
            "GROUNDWIRE_EMULATOR_REST": emu.http_url,
        }
        assert httpx.post(emu.http_url + CHECK_PATH, json=CHECK_BODY, timeout=5).is_success
    with pytest.raises(httpx.ConnectError):
        httpx.post(emu.http_url + CHECK_PATH, json=CHECK_BODY, timeout=5)


def test_importing_the_emulator_package_does_not_load_grpc_or_the_http_server() -> None:
    script = (
        "import sys, groundwire.emulator; "
        "print(sorted({'grpc', 'h11', 'aiohttp', 'asyncio'} & set(sys.modules)))"
    )
    output = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=True
    ).stdout
    assert output.strip() == "[]"


@pytest.mark.parametrize("transport", ["grpc", "rest"])
def test_the_emulators_client_talks_to_it(transport: str) -> None:
    pytest.importorskip("groundwire.client.sync")
    with emulator() as emu, emu.client(transport=transport) as client:
        result = client.check_grounding("Paris is in France.", ["Paris is in France."])
    assert result.support_score == pytest.approx(1.0)
