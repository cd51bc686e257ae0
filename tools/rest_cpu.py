"""Client CPU per call of sync REST against async REST, the ratio issue 10 bounds at 1.3.

`python -m tools.rest_cpu` starts the bench's canned server and one worker process per
client (`bench.worker`: groundwire-rest and groundwire-rest-async, the bench's typical
request), measures them in turn, round after round, at 1 and 64 calls in flight, and prints
each one's median client CPU µs per call and the median of the per-round ratios.
`--profile` instead runs async calls in this process under cProfile and prints the top
entries by their own time.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import json
import pstats
import statistics

from bench import contenders, procs

SYNC, ASYNC = "groundwire-rest", "groundwire-rest-async"


def measure(rounds: int, seconds: float, inflights: tuple[int, ...]) -> None:
    """Prints CPU µs per call of both clients and their ratio, per number of calls in flight."""
    server = procs.start([procs.PYTHON, "-m", "bench.canned_server", "typical"], ready=r"grpc=")
    workers: dict[str, procs.Child] = {}
    try:
        endpoints = json.dumps({"typical": procs.addresses(server.ready_line)})
        for name in (SYNC, ASYNC):
            workers[name] = procs.start(
                [procs.PYTHON, "-m", "bench.worker", name, endpoints],
                ready=r'"ready"',
                timeout=120,
            )
        cpu: dict[tuple[str, int], list[float]] = {}
        for round_index in range(rounds):
            for inflight in inflights:
                order = (SYNC, ASYNC) if round_index % 2 == 0 else (ASYNC, SYNC)
                for name in order:
                    command = {
                        "workload": "full",
                        "inflight": inflight,
                        "warmup": 0.3,
                        "seconds": seconds,
                    }
                    workers[name].send(json.dumps(command))
                    window = json.loads(workers[name].read_line(seconds + 60))
                    if window["errors"]:
                        raise RuntimeError(f"{name}: {window['first_error']}")
                    per_call = 1e6 * window["cpu_seconds"] / max(window["calls"], 1)
                    cpu.setdefault((name, inflight), []).append(per_call)
    finally:
        for worker in workers.values():
            worker.stop()
        server.stop()
    for inflight in inflights:
        sync, aio = cpu[SYNC, inflight], cpu[ASYNC, inflight]
        ratio = statistics.median(a / s for a, s in zip(aio, sync, strict=True))
        print(
            f"inflight {inflight:>3}: sync {statistics.median(sync):7.1f} µs/call, "
            f"async {statistics.median(aio):7.1f} µs/call, async/sync {ratio:.2f}"
        )


async def _profiled_calls(http_url: str, calls: int, inflight: int) -> cProfile.Profile:
    call, close = await contenders.groundwire_async("rest", "127.0.0.1:1", http_url)
    try:
        for _ in range(50):
            await call()
        profile = cProfile.Profile()

        async def lane(count: int) -> None:
            for _ in range(count):
                await call()

        profile.enable()
        await asyncio.gather(*(lane(calls // inflight) for _ in range(inflight)))
        profile.disable()
        return profile
    finally:
        await close()


def profile(calls: int, inflight: int, top: int) -> None:
    """Prints cProfile's top entries (own time) of `calls` async REST calls."""
    server = procs.start([procs.PYTHON, "-m", "bench.canned_server"], ready=r"grpc=")
    try:
        _, http_url = procs.addresses(server.ready_line)
        found = asyncio.run(_profiled_calls(http_url, calls, inflight))
    finally:
        server.stop()
    pstats.Stats(found).sort_stats("tottime").print_stats(top)


def main() -> None:
    """Parses the command line and runs the measurement or the profile."""
    parser = argparse.ArgumentParser(prog="python -m tools.rest_cpu", description=__doc__)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--seconds", type=float, default=1.5)
    parser.add_argument("--profile", action="store_true", help="cProfile async calls instead")
    parser.add_argument("--calls", type=int, default=4000, help="calls to profile")
    parser.add_argument("--inflight", type=int, default=1, help="calls in flight, profiled")
    arguments = parser.parse_args()
    if arguments.profile:
        profile(arguments.calls, arguments.inflight, top=25)
    else:
        measure(arguments.rounds, arguments.seconds, (1, 64))


if __name__ == "__main__":
    main()
