"""A client survives `os.fork()` and a new event loop, or says clearly why it cannot."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from groundwire import AsyncGroundingClient
from groundwire.contract.errors import ClientForked, FailedPrecondition, WrongEventLoop
from groundwire.emulator import Emulator, emulator

ROOT = Path(__file__).resolve().parents[2]
TRANSPORTS = ["grpc", "rest", "auto"]

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")


def scenario(name: str, transport: str, **environ: str) -> dict[str, Any]:
    """What `tests/client/forking.py` reports for a scenario, run in a fresh interpreter."""
    finished = subprocess.run(
        [sys.executable, "-m", "tests.client.forking", name, transport],
        cwd=ROOT,
        env={**os.environ, **environ},
        capture_output=True,
        text=True,
        timeout=90,
        check=False,
    )
    assert finished.returncode == 0, finished.stderr[-2000:]
    report: dict[str, Any] = json.loads(finished.stdout.splitlines()[-1])
    return report


@pytest.fixture(scope="module")
def emu() -> Any:
    """One embedded emulator for the event-loop tests."""
    with emulator() as running:
        yield running


@pytest.mark.timeout(120)
@pytest.mark.parametrize("transport", TRANSPORTS)
def test_a_child_forked_from_an_idle_client_calls_on_connections_of_its_own(
    transport: str,
) -> None:
    carriers = {"grpc": "GrpcTransport", "rest": "RestTransport", "auto": "AutoTransport"}
    report = scenario("idle", transport)
    assert report == {"child": f"ok, {carriers[transport]}, shares 0", "parent": "ok, kept"}


@pytest.mark.timeout(120)
def test_grpc_is_refused_with_a_typed_error_in_a_child_forked_during_a_grpc_call() -> None:
    report = scenario("busy", "grpc")
    assert report["child"].startswith("ClientForked: FAILED_PRECONDITION: this process was forked")
    assert "use transport='rest'" in report["child"]
    assert report["parent"] == "ok"


@pytest.mark.timeout(120)
@pytest.mark.parametrize("transport", ["rest", "auto"])
def test_a_child_forked_during_a_grpc_call_calls_over_rest(transport: str) -> None:
    assert scenario("busy", transport) == {"child": "ok, RestTransport", "parent": "ok"}


@pytest.mark.timeout(120)
def test_a_stream_left_open_across_the_fork_keeps_the_child_off_grpc() -> None:
    refused = scenario("streaming", "grpc")
    assert refused["child"].startswith(
        "ClientForked: FAILED_PRECONDITION: this process was forked while a gRPC call"
    )
    assert refused["parent"] == "ok"
    assert scenario("streaming", "auto") == {"child": "ok, RestTransport", "parent": "ok"}


@pytest.mark.timeout(120)
def test_without_grpc_fork_support_a_child_uses_rest_or_gets_the_typed_error() -> None:
    refused = scenario("idle", "grpc", GRPC_ENABLE_FORK_SUPPORT="false")["child"]
    assert refused.startswith("ClientForked: FAILED_PRECONDITION: this process was forked with")
    auto = scenario("idle", "auto", GRPC_ENABLE_FORK_SUPPORT="false")
    assert auto == {"child": "ok, RestTransport, shares 0", "parent": "ok, kept"}


@pytest.mark.timeout(120)
def test_a_child_of_a_process_running_the_embedded_emulator_keeps_off_grpc() -> None:
    refused = scenario("hosting", "grpc")
    assert refused["child"].startswith(
        "ClientForked: FAILED_PRECONDITION: this process was forked while it ran a gRPC server"
    )
    assert refused["parent"] == "ok, kept"
    auto = scenario("hosting", "auto")
    assert auto == {"child": "ok, RestTransport, shares 0", "parent": "ok, kept"}


@pytest.mark.timeout(120)
@pytest.mark.parametrize(
    ("transport", "child"),
    [
        ("grpc", "ClientForked: FAILED_PRECONDITION: this process was forked while a grpc.aio"),
        ("rest", "ok, AsyncRestTransport"),
        ("auto", "ok, AsyncRestTransport"),
    ],
)
def test_an_async_client_open_in_the_parent_works_in_a_forked_child_without_grpc_aio(
    transport: str, child: str
) -> None:
    report = scenario("async", transport)
    assert report["child"].startswith(child)
    assert report["parent"] == "ok"


@pytest.mark.timeout(120)
@pytest.mark.parametrize("transport", TRANSPORTS)
def test_a_fork_started_multiprocessing_pool_shares_a_client_made_before_it(
    transport: str,
) -> None:
    assert scenario("pool", transport) == {"child": ["ok"], "parent": "ok"}


def test_the_fork_and_loop_errors_are_typed_runtime_errors_never_retried() -> None:
    for error_type in (ClientForked, WrongEventLoop):
        error = error_type("x")
        assert isinstance(error, FailedPrecondition)
        assert isinstance(error, RuntimeError)
        assert not error.retryable


async def _check(client: AsyncGroundingClient) -> str:
    result = await client.check_grounding("Paris is in France.", ["Paris is in France."])
    return result.claims[0].text


@pytest.mark.timeout(60)
@pytest.mark.parametrize("transport", TRANSPORTS)
def test_an_async_client_moves_to_the_next_event_loop(emu: Emulator, transport: str) -> None:
    client = emu.async_client(transport=transport, timeout=10)
    for _ in range(3):
        assert asyncio.run(_check(client)) == "Paris is in France."

    async def close() -> None:
        await client.close()

    asyncio.run(close())


@pytest.mark.timeout(60)
@pytest.mark.parametrize("transport", TRANSPORTS)
def test_an_async_client_in_use_on_a_running_loop_refuses_a_second_one(
    emu: Emulator, transport: str
) -> None:
    client = emu.async_client(transport=transport, timeout=10)
    used, release = threading.Event(), threading.Event()
    outcomes: list[str] = []

    async def hold_the_client() -> None:
        outcomes.append(await _check(client))
        used.set()
        await asyncio.to_thread(release.wait, 30)

    holder = threading.Thread(target=asyncio.run, args=(hold_the_client(),))
    holder.start()
    try:
        assert used.wait(30)
        with pytest.raises(WrongEventLoop, match="create one client per event loop"):
            asyncio.run(_check(client))
    finally:
        release.set()
        holder.join(30)
    assert outcomes == ["Paris is in France."]
    assert asyncio.run(_check(client)) == "Paris is in France."  # that loop has ended

    async def close() -> None:
        await client.close()

    asyncio.run(close())
