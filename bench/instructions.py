"""Client instructions per call under valgrind's callgrind, and the gate CI holds them to.

`python -m bench.instructions [--gate | --record] [--calls FEW MANY]` starts one canned server
per response shape (`bench.contenders.SHAPES`, outside valgrind), then runs each contender
(groundwire and the fair bare stub, sync and asyncio) in one process under `valgrind
--tool=callgrind`. That process builds the contender for every score and full workload,
checks what each reads, warms up, freezes what it allocated so far out of the garbage
collector's sight, and then, per workload, makes FEW calls and then MANY calls, calling
`os.getppid()` between windows: callgrind dumps its counters before each such call
(`--dump-before=getppid`), so each window is counted on its own, with nothing of the start-up
in it. (MANY window - FEW window) / (MANY - FEW) is what one more call costs the client; load
does not move it. Only the main thread is counted: gRPC's own threads wake by the clock, so
what they run follows the machine's speed and load, not the client's work.

The measured process runs with a fixed PYTHONHASHSEED and the same interpreter flags from any
checkout, and does no path-dependent work in its windows: two checkouts in two folders, at
the default 400 calls apart, agreed within 0.27% per groundwire cell and 0.41% per stub cell.

`--gate` fails (exit 1) when a cell's groundwire / stub ratio passes its gate (GATES: 1.05×,
or a figure the profile showed to be the floor there, never above 1.10×), or when a cell's
groundwire count is more than 1% over the count committed in bench/results.md. `--record`
writes the counts measured into bench/results.md instead (the `instructions` section).
"""

from __future__ import annotations

import argparse
import asyncio
import concurrent.futures
import dataclasses
import gc
import json
import os
import re
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench import contenders, procs, worker

MODES = {
    "sync": ("groundwire-grpc", "stub-grpc"),
    "asyncio": ("groundwire-grpc-async", "stub-grpc-async"),
}
"""Per mode, (groundwire, the fair stub it is measured against)."""
WORKLOADS = tuple(name for name in contenders.WORKLOADS if name != "long")
GATE = 1.05
GATES: dict[tuple[str, str], float] = {
    ("sync", "full-one"): 1.10,
    ("asyncio", "full-one"): 1.077,
}
"""Cells whose profile showed 1.05× out of reach (issue 38's note): (mode, workload) -> the
achieved ratio + 2%, never above 1.10×. What remains there, per call (callgrind, main thread):

- full-one (sync 1.111×, asyncio 1.057×): the gap is the read. With the gRPC call replaced by
  the canned answer, groundwire's result and full read of one claim cost 69.7k instructions
  against the stub user's 37.5k (one loop over the raw message): the result, two lazy
  sequences, the shared UTF-16 converter, the claim and three chunk views, one Python object
  each (`contract/results.py` `_check_claims`, `chunks.py` `chunks_of`). The C work (one
  answer encode, two chunk decodes, the claim's text) is the same. The call's plumbing (the
  method's frame, prepare, `Attempts`, `with`, the transport's fork token: 17.8k in the same
  harness) is paid back by a cheaper gRPC path (groundwire's unregistered method call costs
  14k less than the generated stub's registered one) and a request build 2.4k under the
  stub's. So sync full-one passes its 1.10× cap only once the full read sheds 3.5k
  instructions, and reaches 1.08× once it sheds 10k.
"""
GROWTH = 1.01
"""A cell's groundwire count may grow by at most 1% over the committed one."""
WARMUP_CALLS = 20
TIMEOUT_SECONDS = 900.0
RESULTS_MD = Path(__file__).resolve().parent / "results.md"
START, END = "<!-- --8<-- [start:instructions] -->", "<!-- --8<-- [end:instructions] -->"
_TOTAL = re.compile(r"^(?:summary|totals):\s*(\d+)", re.MULTILINE)
_ROW = re.compile(r"^\| (\w+) \| ([\w-]+) \| ([\d,]+) \| ([\d,]+) \|", re.MULTILINE)
MARKER = "getppid"
"""The libc function whose call ends one window and starts the next (nothing else calls it)."""

Counts = dict[tuple[str, str], float]
"""(contender, workload) -> instructions per call."""


def _windows(call: Callable[[], Any], few: int, many: int) -> None:
    """FEW calls, then MANY calls, each window closed by a marker call."""
    for count in (few, many):
        for _ in range(count):
            call()
        os.getppid()


async def _windows_async(call: Callable[[], Any], few: int, many: int) -> None:
    for count in (few, many):
        for _ in range(count):
            await call()
        os.getppid()


FIRST_CALL_TRIES = 5
"""Under valgrind a channel's first connection can outlast groundwire's connect budget (a share
of a call's timeout): the first call on each canned server is tried again, before counting."""


async def _first_call_async(call: Callable[[], Any]) -> Any:
    for tried in range(1, FIRST_CALL_TRIES + 1):
        try:
            return await call()
        except Exception:
            if tried == FIRST_CALL_TRIES:
                raise
    return None


def _first_call(call: Callable[[], Any]) -> Any:
    for tried in range(1, FIRST_CALL_TRIES + 1):
        try:
            return call()
        except Exception:
            if tried == FIRST_CALL_TRIES:
                raise
    return None


def _settle() -> None:
    """Out of the measured windows: what start-up allocated is collected once, then frozen."""
    gc.collect()
    gc.freeze()


def _child(name: str, few: int, many: int, endpoints: contenders.Endpoints) -> None:
    """In the measured process: builds `name`, checks its readings, warms up, counts windows."""
    contender = dataclasses.replace(contenders.BY_NAME[name], workloads=WORKLOADS)
    if contender.asynchronous:

        async def run() -> None:
            built, close = await contenders.build_async(contender, endpoints)
            try:
                for workload in WORKLOADS:
                    worker.check_reading(workload, await _first_call_async(built[workload]))
                    for _ in range(WARMUP_CALLS):
                        await built[workload]()
                _settle()
                os.getppid()
                for workload in WORKLOADS:
                    await _windows_async(built[workload], few, many)
            finally:
                await close()

        asyncio.run(run())
        return
    built_sync, close_sync = contenders.build_sync(contender, endpoints)
    try:
        for workload in WORKLOADS:
            worker.check_reading(workload, _first_call(built_sync[workload]))
            for _ in range(WARMUP_CALLS):
                built_sync[workload]()
        _settle()
        os.getppid()
        for workload in WORKLOADS:
            _windows(built_sync[workload], few, many)
    finally:
        close_sync()


def measured_environment() -> dict[str, str]:
    """The measured process's environment: the same hash seed and flags from any checkout."""
    environment = procs.child_environment()
    for name in list(environment):
        if name.startswith("PYTHON") and name not in ("PYTHONPATH", "PYTHONUNBUFFERED"):
            del environment[name]
    environment["PYTHONHASHSEED"] = "0"
    environment["PYTHONDONTWRITEBYTECODE"] = "1"
    return environment


def per_call(name: str, few: int, many: int, endpoints: contenders.Endpoints) -> Counts:
    """Instructions one more call costs, per workload: (MANY window - FEW window) / (MANY - FEW)."""
    with tempfile.TemporaryDirectory() as scratch:
        command = [
            "valgrind",
            "--tool=callgrind",
            f"--callgrind-out-file={scratch}/out",
            f"--dump-before={MARKER}",
            "--separate-threads=yes",
            *(procs.PYTHON, "-m", "bench.instructions", "--child", name, str(few), str(many)),
            json.dumps(endpoints),
        ]
        done = subprocess.run(
            command,
            capture_output=True,
            text=True,
            env=measured_environment(),
            cwd=procs.ROOT,
            timeout=TIMEOUT_SECONDS,
            check=False,
        )
        if done.returncode != 0:
            raise RuntimeError(f"{name} failed: {done.stderr[-2000:]}")
        totals = _main_thread_totals(Path(scratch))
    # dump 1 is the start-up, closed by the marker after warm-up; then two windows a workload
    windows = totals[1:]
    if len(windows) != 2 * len(WORKLOADS):
        raise RuntimeError(f"{name}: {len(totals)} dumps, expected {1 + 2 * len(WORKLOADS)}")
    return {
        (name, workload): (windows[2 * index + 1] - windows[2 * index]) / (many - few)
        for index, workload in enumerate(WORKLOADS)
    }


def _main_thread_totals(scratch: Path) -> list[int]:
    """The main thread's instructions per dump, in order (files `out.DUMP-THREAD`)."""
    found: dict[int, int] = {}
    for path in scratch.glob("out.*-01"):
        dump = int(path.name[len("out.") :].split("-")[0])
        found[dump] = int(_TOTAL.findall(path.read_text())[0])
    return [found[dump] for dump in sorted(found)]


def measure(few: int, many: int) -> Counts:
    """Every contender of MODES on every workload, two contenders at a time."""
    servers = {
        shape: procs.start([procs.PYTHON, "-m", "bench.canned_server", shape], ready=r"grpc=")
        for shape in contenders.SHAPES
    }
    try:
        endpoints = {shape: procs.addresses(server.ready_line) for shape, server in servers.items()}
        names = [name for pair in MODES.values() for name in pair]
        with concurrent.futures.ThreadPoolExecutor(2) as pool:
            found: Counts = {}
            for counts in pool.map(lambda name: per_call(name, few, many, endpoints), names):
                found.update(counts)
        return found
    finally:
        for server in servers.values():
            server.stop()


def gate(mode: str, workload: str) -> float:
    """The most groundwire may cost on a cell, as a multiple of the fair stub's count."""
    return GATES.get((mode, workload), GATE)


def rows(found: Counts) -> list[tuple[str, str, float, float]]:
    """(mode, workload, groundwire's count, the stub's count) per cell, in a stable order."""
    return [
        (mode, workload, found[ours, workload], found[stub, workload])
        for mode, (ours, stub) in MODES.items()
        for workload in WORKLOADS
    ]


def section(found: Counts, few: int, many: int) -> str:
    """The `instructions` section of bench/results.md: the counts the gate holds cells to."""
    lines = [
        START,
        "## Client instructions per call (`make bench-gate`)",
        "",
        "Callgrind instructions per call (the client process's main thread), from one "
        f"process per contender: ({many} calls - {few} calls) / {many - few}, after "
        f"{WARMUP_CALLS} warm-up calls, against canned servers. The baseline of every ratio "
        "is the fair bare stub (`stub-grpc`, `stub-grpc-async`): it sends the same two "
        "headers as groundwire and decodes each cited chunk's text once per response. "
        "`make bench-gate` fails when a cell's ratio passes its gate or its groundwire count "
        "grows more than 1% over the one below; `python -m bench.instructions --record` "
        "rewrites this table.",
        "",
        "| mode | workload | groundwire | fair stub | ratio | gate |",
        "|---|---|---|---|---|---|",
    ]
    for mode, workload, ours, stub in rows(found):
        lines.append(
            f"| {mode} | {workload} | {ours:,.0f} | {stub:,.0f} | {ours / stub:.3f}× "
            f"| {gate(mode, workload):.3f}× |"
        )
    return "\n".join([*lines, END])


def committed(text: str) -> dict[tuple[str, str], tuple[int, int]]:
    """(mode, workload) -> (groundwire, stub) counts from the committed section of `text`."""
    start, end = text.find(START), text.find(END)
    if start < 0 or end < start:
        return {}
    return {
        (mode, workload): (int(ours.replace(",", "")), int(stub.replace(",", "")))
        for mode, workload, ours, stub in _ROW.findall(text[start:end])
    }


def committed_section() -> list[str]:
    """The committed section as lines, for `make bench`'s report to carry over unchanged."""
    text = RESULTS_MD.read_text(encoding="utf-8") if RESULTS_MD.exists() else ""
    start, end = text.find(START), text.find(END)
    return [] if start < 0 or end < start else [text[start : end + len(END)], ""]


def verdicts(found: Counts, before: dict[tuple[str, str], tuple[int, int]]) -> list[str]:
    """Why the gate fails: one line per cell over its gate or grown past the committed count."""
    failures = []
    for mode, workload, ours, stub in rows(found):
        bound = gate(mode, workload)
        if ours > bound * stub:
            failures.append(f"{mode} {workload}: {ours / stub:.3f}× the fair stub, gate {bound}×")
        old = before.get((mode, workload))
        if old is None:
            failures.append(f"{mode} {workload}: no count committed in {RESULTS_MD.name}")
        elif ours > GROWTH * old[0]:
            failures.append(
                f"{mode} {workload}: {ours:,.0f} instructions, {ours / old[0] - 1:+.1%} "
                f"over the {old[0]:,} committed"
            )
    return failures


def _replace_section(text: str, new: str) -> str:
    start, end = text.find(START), text.find(END)
    if start < 0 or end < start:
        return text.rstrip("\n") + "\n\n" + new + "\n"
    return text[:start] + new + text[end + len(END) :]


def main(argv: list[str]) -> int:
    """Measures and prints instructions per call; `--child` is the measured process itself."""
    if argv[:1] == ["--child"]:
        _child(argv[1], int(argv[2]), int(argv[3]), json.loads(argv[4]))
        return 0
    parser = argparse.ArgumentParser(prog="python -m bench.instructions", description=__doc__)
    parser.add_argument("--calls", nargs=2, type=int, default=[20, 420], metavar=("FEW", "MANY"))
    action = parser.add_mutually_exclusive_group()
    action.add_argument("--gate", action="store_true", help="fail on a cell past its gate")
    action.add_argument("--record", action="store_true", help="write the counts to results.md")
    args = parser.parse_args(argv)
    few, many = sorted(args.calls)
    if not 1 <= few < many <= 10_000:
        parser.error("need 1 <= FEW < MANY <= 10000")
    found = measure(few, many)
    print(section(found, few, many))
    if args.record:
        RESULTS_MD.write_text(
            _replace_section(RESULTS_MD.read_text(encoding="utf-8"), section(found, few, many)),
            encoding="utf-8",
        )
    if args.gate:
        failures = verdicts(found, committed(RESULTS_MD.read_text(encoding="utf-8")))
        for failure in failures:
            print(f"bench-gate: {failure}", file=sys.stderr)
        return 1 if failures else 0
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
