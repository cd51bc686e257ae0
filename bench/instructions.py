"""Client instructions per call under valgrind's callgrind: a CPU cost that load does not move.

`python -m bench.instructions [--contenders A B ...] [--workloads score full] [--calls 50 850]`
starts the canned server (in its own process, not under valgrind) and, for each contender and
workload, runs the contender's process under `valgrind --tool=callgrind` twice: once making
the smaller number of calls, once the larger. Both pay the same imports and set-up, so the
difference in instructions (every thread of the process counted), divided by the difference
in calls, is what one more call costs the client. Unlike time on a shared machine, load does
not move it; gRPC's own timer threads do a little (repeats seen within about 8k instructions
per call, under 2%, with 800 calls between the two runs). Needs valgrind on the PATH. It
prints each contender's instructions per call and groundwire's ratio to the bare stub (the
floor) on the same workload.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import re
import subprocess
import sys
import tempfile
from typing import Any

from bench import contenders, procs, worker

DEFAULT_CONTENDERS = ("groundwire-grpc", "stub-grpc", "groundwire-grpc-async", "stub-grpc-async")
TIMEOUT_SECONDS = 600.0
_COLLECTED = re.compile(r"Collected\s*:\s*(\d+)")


def _child(name: str, workload: str, calls: int, endpoints: contenders.Endpoints) -> None:
    """In the measured process: builds `name`, checks its reading, makes `calls` calls."""
    contender = dataclasses.replace(contenders.BY_NAME[name], workloads=(workload,))
    if contender.asynchronous:

        async def run() -> None:
            built, close = await contenders.build_async(contender, endpoints)
            try:
                worker.check_reading(workload, await built[workload]())
                for _ in range(calls - 1):
                    await built[workload]()
            finally:
                await close()

        asyncio.run(run())
        return
    built_sync, close_sync = contenders.build_sync(contender, endpoints)
    try:
        worker.check_reading(workload, built_sync[workload]())
        for _ in range(calls - 1):
            built_sync[workload]()
    finally:
        close_sync()


def instructions(name: str, workload: str, calls: int, endpoints: contenders.Endpoints) -> int:
    """The instructions a process making `calls` calls of `workload` runs, start to end."""
    with tempfile.TemporaryDirectory() as scratch:
        command = [
            "valgrind",
            "--tool=callgrind",
            f"--callgrind-out-file={scratch}/out",
            *(procs.PYTHON, "-m", "bench.instructions", "--child", name, workload, str(calls)),
            json.dumps(endpoints),
        ]
        done = subprocess.run(
            command,
            capture_output=True,
            text=True,
            env=procs.child_environment(),
            cwd=procs.ROOT,
            timeout=TIMEOUT_SECONDS,
            check=False,
        )
    found = _COLLECTED.search(done.stderr)
    if done.returncode != 0 or found is None:
        raise RuntimeError(f"{name} {workload} x{calls} failed: {done.stderr[-2000:]}")
    return int(found.group(1))


def per_call(
    name: str, workload: str, few: int, many: int, endpoints: contenders.Endpoints
) -> float:
    """Instructions one more call costs: (many calls - few calls) / (many - few)."""
    more = instructions(name, workload, many, endpoints)
    less = instructions(name, workload, few, endpoints)
    return (more - less) / (many - few)


def main(argv: list[str]) -> int:
    """Measures and prints instructions per call; `--child` is the measured process itself."""
    if argv[:1] == ["--child"]:
        _child(argv[1], argv[2], int(argv[3]), json.loads(argv[4]))
        return 0
    parser = argparse.ArgumentParser(prog="python -m bench.instructions", description=__doc__)
    parser.add_argument("--contenders", nargs="+", default=list(DEFAULT_CONTENDERS))
    parser.add_argument("--workloads", nargs="+", default=["score", "full"])
    parser.add_argument("--calls", nargs=2, type=int, default=[50, 850], metavar=("FEW", "MANY"))
    args = parser.parse_args(argv)
    few, many = sorted(args.calls)
    if not 1 <= few < many <= 10_000:
        parser.error("need 1 <= FEW < MANY <= 10000")
    server = procs.start([procs.PYTHON, "-m", "bench.canned_server", "typical"], ready=r"grpc=")
    found: dict[tuple[str, str], float] = {}
    try:
        endpoints = {"typical": procs.addresses(server.ready_line)}
        for workload in args.workloads:
            for name in args.contenders:
                found[name, workload] = per_call(name, workload, few, many, endpoints)
                print(f"{name:24} {workload:6} {found[name, workload]:>10,.0f} instructions/call")
    finally:
        server.stop()
    _print_ratios(found)
    return 0


def _print_ratios(found: dict[tuple[str, str], Any]) -> None:
    for (name, workload), count in found.items():
        library, _, rest = name.partition("-")
        floor = found.get((f"stub-{rest}", workload))
        if library == "groundwire" and floor:
            print(f"{name} / stub-{rest} on {workload}: {count / floor:.3f}x the instructions")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
