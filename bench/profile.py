"""Profile one contender's calls, to see where client CPU goes before and after a change.

`python -m bench.profile CONTENDER [--workload score|full|long] [--calls N] [--top K]
[--clock wall|cpu]` starts the canned server for the workload (in its own process, as
`make bench` does), builds the contender in this process, checks what it reads, and makes N
calls one after another twice: first plainly, to report client CPU µs per call and calls/s
without the profiler's overhead, then under cProfile, printing the top K entries by own time
(tottime). For example:

    python -m bench.profile groundwire-grpc-async --workload full --calls 2000

CONTENDER is any name in bench.contenders (`groundwire-grpc`, `stub-grpc-async`, ...). The
profiler's clock is wall time by default, so time spent waiting for the server shows as its
own entries (`poll` of `select.epoll` for asyncio, `_blocking` for sync gRPC); `--clock cpu`
counts process CPU time instead, which leaves the waiting out but slows the profiler down
(each clock read is a system call). Each phase stops early after MAX_SECONDS, so a slow
contender cannot hang it.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import dataclasses
import pstats
import sys
import time
from collections.abc import Awaitable, Callable
from typing import Any

from bench import contenders, procs, worker

MAX_CALLS = 100_000
MAX_SECONDS = 120.0
WARMUP_CALLS = 50


@dataclasses.dataclass(frozen=True)
class Timing:
    """What N calls in a row cost: how many ran, wall seconds and process CPU seconds."""

    calls: int
    seconds: float
    cpu_seconds: float

    def describe(self) -> str:
        """One line: calls, client CPU µs per call, calls per second."""
        calls = max(self.calls, 1)
        return (
            f"{self.calls} calls: {1e6 * self.cpu_seconds / calls:.0f} µs client CPU per call, "
            f"{self.calls / self.seconds:,.0f} calls/s (1 in flight)"
        )


def run_sync(call: Callable[[], Any], calls: int) -> Timing:
    """Makes up to `calls` blocking calls in a row (at most MAX_SECONDS); times them."""
    started, cpu_started = time.perf_counter(), time.process_time()
    done = 0
    while done < calls and time.perf_counter() - started < MAX_SECONDS:
        call()
        done += 1
    return Timing(done, time.perf_counter() - started, time.process_time() - cpu_started)


async def run_async(call: Callable[[], Awaitable[Any]], calls: int) -> Timing:
    """Awaits up to `calls` calls in a row (at most MAX_SECONDS); times them."""
    started, cpu_started = time.perf_counter(), time.process_time()
    done = 0
    while done < calls and time.perf_counter() - started < MAX_SECONDS:
        await call()
        done += 1
    return Timing(done, time.perf_counter() - started, time.process_time() - cpu_started)


CLOCKS = {"wall": time.perf_counter, "cpu": time.process_time}


def profile_sync(
    contender: contenders.Contender,
    endpoints: contenders.Endpoints,
    workload: str,
    calls: int,
    clock: str = "wall",
) -> tuple[Timing, cProfile.Profile]:
    """Times `calls` blocking calls plainly, then profiles as many on `clock`."""
    built, close = contenders.build_sync(contender, endpoints)
    call = built[workload]
    try:
        worker.check_reading(workload, call())
        run_sync(call, WARMUP_CALLS)
        timing = run_sync(call, calls)
        profiler = cProfile.Profile(CLOCKS[clock])
        profiler.enable()
        run_sync(call, calls)
        profiler.disable()
    finally:
        close()
    return timing, profiler


async def profile_async(
    contender: contenders.Contender,
    endpoints: contenders.Endpoints,
    workload: str,
    calls: int,
    clock: str = "wall",
) -> tuple[Timing, cProfile.Profile]:
    """Times `calls` awaited calls plainly, then profiles as many on `clock`, on this loop."""
    built, close = await contenders.build_async(contender, endpoints)
    call = built[workload]
    try:
        worker.check_reading(workload, await call())
        await run_async(call, WARMUP_CALLS)
        timing = await run_async(call, calls)
        profiler = cProfile.Profile(CLOCKS[clock])
        profiler.enable()
        await run_async(call, calls)
        profiler.disable()
    finally:
        await close()
    return timing, profiler


def _calls(text: str) -> int:
    calls = int(text)
    if not 1 <= calls <= MAX_CALLS:
        raise argparse.ArgumentTypeError(f"between 1 and {MAX_CALLS:,}")
    return calls


def main(argv: list[str]) -> int:
    """Profiles the contender `argv` names and prints its timing and top entries."""
    parser = argparse.ArgumentParser(
        prog="python -m bench.profile",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("contender", choices=sorted(contenders.BY_NAME))
    parser.add_argument("--workload", choices=list(contenders.WORKLOADS), default="full")
    parser.add_argument("--calls", type=_calls, default=2000, help="calls per phase")
    parser.add_argument("--top", type=int, default=25, help="entries to print")
    parser.add_argument("--clock", choices=list(CLOCKS), default="wall", help="profiler's clock")
    args = parser.parse_args(argv)
    chosen = contenders.BY_NAME[args.contender]
    if args.workload not in chosen.workloads:
        parser.error(f"{chosen.name} runs {', '.join(chosen.workloads)}, not {args.workload}")
    contender = dataclasses.replace(chosen, workloads=(args.workload,))
    answer = contenders.WORKLOADS[args.workload].answer
    server = procs.start([procs.PYTHON, "-m", "bench.canned_server", answer], ready=r"grpc=")
    try:
        endpoints = {answer: procs.addresses(server.ready_line)}
        if contender.asynchronous:
            timing, profiler = asyncio.run(
                profile_async(contender, endpoints, args.workload, args.calls, args.clock)
            )
        else:
            timing, profiler = profile_sync(
                contender, endpoints, args.workload, args.calls, args.clock
            )
    finally:
        server.stop()
    print(f"{contender.name}, {contenders.WORKLOADS[args.workload].title}")
    print(f"without the profiler: {timing.describe()}")
    print(f"under cProfile ({args.clock} clock), top {args.top} by own time (tottime):")
    pstats.Stats(profiler, stream=sys.stdout).strip_dirs().sort_stats("tottime").print_stats(
        args.top
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
