"""Client throughput and CPU per call, every contender against one canned server, interleaved.

The canned server and each contender run in processes of their own. All contenders are
started and warmed up first; then, round after round, each is measured in turn for a short
window (the order rotates every round), so drift on a shared machine touches all alike.
Comparisons are the median over rounds of per-round ratios.
"""

from __future__ import annotations

import json
import statistics
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from bench import contenders, procs

INFLIGHTS = (1, 64)


@dataclass
class Settings:
    """How long to measure: `rounds` windows of `seconds` after `warmup`, per contender."""

    rounds: int = 5
    warmup: float = 0.3
    seconds: float = 1.0
    inflights: tuple[int, ...] = INFLIGHTS


@dataclass
class Series:
    """The windows of one contender at one number of calls in flight, in round order."""

    rates: list[float] = field(default_factory=list)
    cpu_us: list[float] = field(default_factory=list)
    server_cpu_us: list[float] = field(default_factory=list)
    errors: int = 0
    first_error: str | None = None

    def add(self, window: dict[str, Any], server_cpu: float) -> None:
        """Records one measured window, and the server's CPU seconds during it."""
        calls = max(window["calls"], 1)
        self.rates.append(window["calls"] / window["seconds"])
        self.cpu_us.append(1e6 * window["cpu_seconds"] / calls)
        self.server_cpu_us.append(1e6 * server_cpu / calls)
        self.errors += window["errors"]
        self.first_error = self.first_error or window["first_error"]

    def summary(self) -> dict[str, Any]:
        """The medians over the rounds, the errors, and each round's rate."""
        return {
            "calls_per_second": statistics.median(self.rates),
            "client_cpu_us_per_call": statistics.median(self.cpu_us),
            "server_cpu_us_per_call": statistics.median(self.server_cpu_us),
            "errors": self.errors,
            "first_error": self.first_error,
            "rates_by_round": [round(rate, 1) for rate in self.rates],
        }


def _start_workers(
    grpc_address: str, http_url: str
) -> tuple[dict[str, procs.Child], dict[str, str]]:
    workers: dict[str, procs.Child] = {}
    failures: dict[str, str] = {}
    for contender in contenders.CONTENDERS:
        try:
            workers[contender.name] = procs.start(
                [procs.PYTHON, "-m", "bench.worker", contender.name, grpc_address, http_url],
                ready=r'"ready"',
                timeout=120,
            )
        except RuntimeError as error:
            failures[contender.name] = str(error)
    return workers, failures


def _measure_one(
    worker: procs.Child, server_pid: int, inflight: int, settings: Settings
) -> tuple[dict[str, Any], float]:
    command = {"inflight": inflight, "warmup": settings.warmup, "seconds": settings.seconds}
    worker.send(json.dumps(command))
    before = procs.cpu_seconds(server_pid)
    window = json.loads(worker.read_line(settings.warmup + settings.seconds + 120))
    # The server's CPU is read around the whole command: warm-up included, so scale it down.
    share = settings.seconds / (settings.warmup + settings.seconds)
    return window, (procs.cpu_seconds(server_pid) - before) * share


def _rotated(names: list[str], round_index: int) -> list[str]:
    shift = round_index % len(names)
    rotated = names[shift:] + names[:shift]
    return rotated if round_index % 2 == 0 else rotated[::-1]


def measure(settings: Settings) -> dict[str, Any]:
    """Runs every contender at each number of calls in flight; returns summaries and rounds."""
    server = procs.start([procs.PYTHON, "-m", "bench.canned_server"], ready=r"grpc=")
    workers: dict[str, procs.Child] = {}
    try:
        grpc_address, http_url = procs.addresses(server.ready_line)
        workers, failures = _start_workers(grpc_address, http_url)
        series = {(name, n): Series() for name in workers for n in settings.inflights}
        for round_index in range(settings.rounds):
            for inflight in settings.inflights:
                for name in _rotated(sorted(workers), round_index):
                    window, server_cpu = _measure_one(workers[name], server.pid, inflight, settings)
                    series[name, inflight].add(window, server_cpu)
    finally:
        for worker in workers.values():
            worker.stop()
        server.stop()
    return _results(series, failures, settings)


def _results(
    series: dict[tuple[str, int], Series], failures: dict[str, str], settings: Settings
) -> dict[str, Any]:
    by_contender: dict[str, Any] = {}
    for contender in contenders.CONTENDERS:
        entry: dict[str, Any] = {
            "library": contender.library,
            "protocol": contender.protocol,
            "asynchronous": contender.asynchronous,
        }
        if contender.name in failures:
            entry["failed"] = failures[contender.name]
        else:
            entry["inflight"] = {
                str(n): series[contender.name, n].summary() for n in settings.inflights
            }
        by_contender[contender.name] = entry
    return {"settings": settings.__dict__, "contenders": by_contender}


def ratio(results: dict[str, Any], numerator: str, denominator: str, inflight: int) -> float | None:
    """Median over rounds of numerator's rate / denominator's rate (same round, same load)."""
    found = results["contenders"]
    try:
        top = found[numerator]["inflight"][str(inflight)]["rates_by_round"]
        bottom = found[denominator]["inflight"][str(inflight)]["rates_by_round"]
    except KeyError:
        return None
    pairs = [a / b for a, b in zip(top, bottom, strict=True) if b > 0]
    return statistics.median(pairs) if pairs else None


def names() -> Iterable[str]:
    """Every contender's name, in table order."""
    return (contender.name for contender in contenders.CONTENDERS)
