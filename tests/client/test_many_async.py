"""AsyncGroundingClient.check_grounding_many: the sync batch's rules, kept by tasks.

Under injected throttling (the in-process emulator with a FaultPolicy), every input gets
one outcome in order and the window shrinks; a refused port fails fast; the input may be an
async iterable, read lazily; bad items become outcomes.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import tracemalloc
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest

from groundwire import AsyncGroundingClient, RetryPolicy
from groundwire.contract.errors import InvalidArgument, StatusCode, Unavailable
from groundwire.emulator import EMULATOR_PROJECT, Emulator, emulator
from groundwire.emulator.faults import FaultPolicy
from tests.reliability.processes import EmulatorProcess, free_port

RETRY = RetryPolicy(initial=0.01, maximum=0.2, timeout=20.0)
FACTS = ["Paris is the capital of France."]
HANG_BOUND = 60.0
ROOT = Path(__file__).resolve().parents[2]


def record(index: int) -> dict[str, Any]:
    """A batch record whose answer names its index, so its outcome can be matched to it."""
    return {"answer": f"Paris is the capital of France, says record {index}.", "facts": FACTS}


@pytest.fixture(scope="module")
def throttling() -> Iterator[Emulator]:
    faults = FaultPolicy(rate=0.3, codes=(StatusCode.RESOURCE_EXHAUSTED,), seed=12)
    with emulator(faults=faults) as running:
        yield running


@pytest.fixture(scope="module")
def emu() -> Iterator[Emulator]:
    with emulator() as running:
        yield running


def test_every_input_gets_exactly_one_outcome_in_order_and_the_window_shrinks(
    throttling: Emulator,
) -> None:
    count = 120

    async def run() -> tuple[list[Any], list[int], float]:
        windows = []
        async with throttling.async_client(transport="grpc", retry=RETRY) as client:
            batch = client.check_grounding_many(record(index) for index in range(count))
            outcomes = []
            async for outcome in batch:
                outcomes.append(outcome)
                windows.append(batch.concurrency)
            return outcomes, windows, batch.throttled_seconds

    outcomes, windows, throttled = asyncio.run(asyncio.wait_for(run(), HANG_BOUND))
    assert [outcome.index for outcome in outcomes] == list(range(count))
    assert [outcome.result.answer_candidate for outcome in outcomes if outcome.result] == [
        record(index)["answer"] for index in range(count)
    ]
    assert sum(outcome.attempts for outcome in outcomes) > count
    assert min(windows) < 16 / 2
    assert throttled > 0


def test_an_async_iterable_input_is_read_lazily(emu: Emulator) -> None:
    pulled = 0

    async def inputs() -> AsyncIterator[dict[str, Any]]:
        nonlocal pulled
        for index in range(1_000):
            pulled += 1
            yield record(index)

    async def run() -> int:
        async with emu.async_client(transport="grpc") as client:
            async with client.check_grounding_many(inputs(), concurrency=4) as batch:
                first = await anext(batch)
            return first.index

    assert asyncio.run(asyncio.wait_for(run(), HANG_BOUND)) == 0
    assert pulled <= 2 * 4 + 1


async def _peak(client: AsyncGroundingClient, count: int) -> int:
    tracemalloc.start()
    try:
        succeeded = 0
        async for outcome in client.check_grounding_many(record(index) for index in range(count)):
            succeeded += outcome.ok
        found = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert succeeded == count
    return found


async def _peaks(address: str) -> list[int]:
    async with AsyncGroundingClient(EMULATOR_PROJECT, endpoint=address, transport="grpc") as client:
        await _peak(client, 100)  # the channel, the imports and the caches, made once
        return [await _peak(client, 500), await _peak(client, 5_000)]


def print_peaks(address: str) -> None:
    """Prints, as JSON, the peak traced memory of batches of 500 and 5,000 inputs."""
    print(json.dumps(asyncio.run(asyncio.wait_for(_peaks(address), HANG_BOUND))))


def test_peak_memory_is_the_same_after_500_and_5k_inputs() -> None:
    # Measured in a fresh interpreter against a server in another: only this batch's memory
    # is traced (grpcio 1.72, the floor, logs errors on a second event loop of a process,
    # and those would be traced too).
    with EmulatorProcess() as server:
        measured = subprocess.run(
            [
                sys.executable,
                "-c",
                f"from tests.client.test_many_async import print_peaks; "
                f"print_peaks({server.grpc_address!r})",
            ],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=HANG_BOUND,
            check=True,
        )
    small, large = json.loads(measured.stdout.strip().splitlines()[-1])
    # Holding the inputs or the outcomes would take megabytes more for 4.5k more of them.
    assert large < 2 * small


@pytest.mark.parametrize("transport", ["grpc", "rest"])
def test_a_refused_port_fails_the_batch_fast_with_a_typed_unavailable(transport: str) -> None:
    port = free_port()

    async def run() -> None:
        if transport == "grpc":
            client = AsyncGroundingClient(
                EMULATOR_PROJECT, transport="grpc", endpoint=f"127.0.0.1:{port}"
            )
        else:
            client = AsyncGroundingClient(
                EMULATOR_PROJECT, transport="rest", rest_endpoint=f"http://127.0.0.1:{port}"
            )
        async with client:
            async for _ in client.check_grounding_many(record(index) for index in range(1_000)):
                pass

    with pytest.raises(
        Unavailable,
        match=rf"cannot reach (http://)?127\.0\.0\.1:{port}; is `groundwire serve` running\?",
    ):
        asyncio.run(asyncio.wait_for(run(), HANG_BOUND))  # not 1,000 items times 60 s


def test_bad_items_become_invalid_argument_outcomes(emu: Emulator) -> None:
    items: list[Any] = [record(0), {"answr": "typo"}, 42, record(3)]

    async def run() -> list[Any]:
        async with emu.async_client(transport="grpc") as client:
            return [outcome async for outcome in client.check_grounding_many(items)]

    outcomes = asyncio.run(asyncio.wait_for(run(), HANG_BOUND))
    assert [outcome.ok for outcome in outcomes] == [True, False, False, True]
    assert all(isinstance(outcome.error, InvalidArgument) for outcome in outcomes[1:3])


def test_an_empty_answer_is_that_items_own_invalid_argument(emu: Emulator) -> None:
    items: list[Any] = [record(0), {"answer": "", "facts": FACTS, "id": "e"}, record(2)]

    async def run() -> list[Any]:
        async with emu.async_client(transport="grpc") as client:
            return [outcome async for outcome in client.check_grounding_many(items)]

    outcomes = asyncio.run(asyncio.wait_for(run(), HANG_BOUND))
    assert [(outcome.ok, outcome.attempts) for outcome in outcomes] == [
        (True, 1),
        (False, 0),
        (True, 1),
    ]
    assert isinstance(outcomes[1].error, InvalidArgument)
    assert "answer_candidate is empty" in outcomes[1].error.message
    assert outcomes[1].id == "e"


def test_corroborate_content_many_runs_as_tasks_too(emu: Emulator) -> None:
    items = [{"content": "Paris is the capital of France.", "facts": FACTS, "id": "c"}] * 3

    async def run() -> list[Any]:
        async with emu.async_client(transport="grpc", location="us-central1") as client:
            return [outcome async for outcome in client.corroborate_content_many(items)]

    outcomes = asyncio.run(asyncio.wait_for(run(), HANG_BOUND))
    assert [(outcome.index, outcome.ok, outcome.id) for outcome in outcomes] == [
        (0, True, "c"),
        (1, True, "c"),
        (2, True, "c"),
    ]
