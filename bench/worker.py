"""One contender in its own process, so its CPU time and imports are attributable to it alone.

`python -m bench.worker NAME ENDPOINTS` (ENDPOINTS a JSON object: canned answer to
[gRPC host:port, HTTP base URL]) builds the contender for each of its workloads, checks that
each reads exactly the expected values, prints `{"ready": ...}` and then serves commands, one
JSON line each on standard input: `{"workload": "full", "inflight": 64, "warmup": 0.3,
"seconds": 1.5}` keeps that many calls of that workload in flight (threads for sync clients,
tasks for asyncio ones), lets `warmup` seconds pass, then counts the calls that complete and
the process CPU time used during `seconds`, and prints the counts as JSON. The window is taken
in steady state: calls in flight at its edges balance out.
"""

from __future__ import annotations

import asyncio
import json
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

from bench import contenders

_ERROR_PAUSE = 0.01


@dataclass
class Window:
    """What one measurement window saw."""

    calls: int
    errors: int
    seconds: float
    cpu_seconds: float
    first_error: str | None


class _Tally:
    """Per-lane counters; each lane (thread or task) writes only its own slot."""

    def __init__(self, lanes: int) -> None:
        self.calls = [0] * lanes
        self.errors = [0] * lanes
        self.first_error: str | None = None

    def failed(self, lane: int, error: BaseException) -> None:
        self.errors[lane] += 1
        if self.first_error is None:
            self.first_error = repr(error)[:300]

    def snapshot(self) -> tuple[int, int, float, float]:
        return sum(self.calls), sum(self.errors), time.perf_counter(), time.process_time()


def _window(
    tally: _Tally, before: tuple[int, int, float, float], after: tuple[int, int, float, float]
) -> Window:
    return Window(
        after[0] - before[0],
        after[1] - before[1],
        after[2] - before[2],
        after[3] - before[3],
        tally.first_error,
    )


def check_reading(workload_name: str, reading: Any) -> None:
    """Every contender must read the same values from the canned answer (scores to 6 places)."""
    expected = contenders.expected_reading(workload_name)
    if _rounded(reading) != _rounded(expected):
        raise RuntimeError(f"{workload_name}: read {reading!r:.300}, expected {expected!r:.300}")


def _rounded(reading: Any) -> Any:
    if isinstance(reading, float):
        return round(reading, 6)
    if isinstance(reading, list | tuple):
        return [_rounded(item) for item in reading]
    return reading


def run_threads(call: Callable[[], Any], inflight: int, warmup: float, seconds: float) -> Window:
    """Keeps `inflight` blocking calls going from as many threads; measures one window."""
    tally, stop = _Tally(inflight), threading.Event()

    def lane(index: int) -> None:
        while not stop.is_set():
            try:
                call()
            except Exception as error:  # counted and reported, never fatal
                tally.failed(index, error)
                time.sleep(_ERROR_PAUSE)
            else:
                tally.calls[index] += 1

    threads = [threading.Thread(target=lane, args=(i,), daemon=True) for i in range(inflight)]
    for thread in threads:
        thread.start()
    time.sleep(warmup)
    before = tally.snapshot()
    time.sleep(seconds)
    after = tally.snapshot()
    stop.set()
    for thread in threads:
        thread.join(60)
    return _window(tally, before, after)


async def run_tasks(
    call: Callable[[], Any], inflight: int, warmup: float, seconds: float
) -> Window:
    """Keeps `inflight` awaitable calls going as asyncio tasks; measures one window."""
    tally, stop = _Tally(inflight), asyncio.Event()

    async def lane(index: int) -> None:
        while not stop.is_set():
            try:
                await call()
            except Exception as error:  # counted and reported, never fatal
                tally.failed(index, error)
                await asyncio.sleep(_ERROR_PAUSE)
            else:
                tally.calls[index] += 1

    tasks = [asyncio.create_task(lane(i)) for i in range(inflight)]
    await asyncio.sleep(warmup)
    before = tally.snapshot()
    await asyncio.sleep(seconds)
    after = tally.snapshot()
    stop.set()
    await asyncio.wait_for(asyncio.gather(*tasks), 60)
    return _window(tally, before, after)


def _command(line: str) -> tuple[str, int, float, float]:
    command = json.loads(line)
    return (
        str(command["workload"]),
        int(command["inflight"]),
        float(command["warmup"]),
        float(command["seconds"]),
    )


def serve_sync(contender: contenders.Contender, endpoints: contenders.Endpoints) -> None:
    """Builds a blocking contender, then measures one window per command line."""
    calls, close = contenders.build_sync(contender, endpoints)
    try:
        for name, call in calls.items():
            check_reading(name, call())
        print(json.dumps({"ready": contender.name}), flush=True)
        for line in sys.stdin:
            name, inflight, warmup, seconds = _command(line)
            window = run_threads(calls[name], inflight, warmup, seconds)
            print(json.dumps(asdict(window)), flush=True)
    finally:
        close()


async def serve_async(contender: contenders.Contender, endpoints: contenders.Endpoints) -> None:
    """Builds an asyncio contender on this loop, then measures one window per command line."""
    calls, close = await contenders.build_async(contender, endpoints)
    loop = asyncio.get_running_loop()
    try:
        for name, call in calls.items():
            check_reading(name, await call())
        print(json.dumps({"ready": contender.name}), flush=True)
        while line := await loop.run_in_executor(None, sys.stdin.readline):
            name, inflight, warmup, seconds = _command(line)
            window = await run_tasks(calls[name], inflight, warmup, seconds)
            print(json.dumps(asdict(window)), flush=True)
    finally:
        await close()


def main(argv: list[str]) -> None:
    """`NAME ENDPOINTS`: serve measurement commands for that contender."""
    name, endpoints_json = argv
    contender = contenders.BY_NAME[name]
    found = json.loads(endpoints_json)
    endpoints = {answer: (grpc, http) for answer, (grpc, http) in found.items()}
    if contender.asynchronous:
        asyncio.run(serve_async(contender, endpoints))
    else:
        serve_sync(contender, endpoints)


if __name__ == "__main__":
    main(sys.argv[1:])
