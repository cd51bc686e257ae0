"""Client throughput and CPU per call, every contender against canned servers, interleaved.

Each canned server (one per canned answer, see bench.canned_server) and each contender run in
processes of their own. All contenders are started and checked first; then, round after round,
each is measured in turn on each of its workloads for a short window (the order rotates every
round), so drift on a shared machine touches all alike. Comparisons are the median over rounds
of per-round ratios.
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
    """How long to measure: `rounds` windows per contender, each after `warmup`.

    A window lasts `seconds` at one call in flight and `busy_seconds` at more. Sixty-four
    blocking calls sharing one GIL and two cores make short windows noisy: a stub measured
    against an identical stub, per-round ratios spread with a standard deviation of 0.105 in
    1 s windows and 0.071 in 3 s ones (24 and 8 rounds), where one call in flight stays
    within a few per cent at 1 s.
    """

    rounds: int = 9  # 5 let verdicts near a bound flip from one run to the next
    warmup: float = 0.2
    seconds: float = 1.0
    busy_seconds: float = 2.5
    inflights: tuple[int, ...] = INFLIGHTS

    def window(self, inflight: int) -> float:
        """The seconds one window lasts at `inflight` calls in flight."""
        return self.seconds if inflight == 1 else self.busy_seconds


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
            "cpu_us": [round(used, 1) for used in self.cpu_us],
        }


def _start_servers() -> dict[str, procs.Child]:
    """One canned server process per canned answer any workload needs."""
    servers: dict[str, procs.Child] = {}
    try:
        for answer in dict.fromkeys(w.answer for w in contenders.WORKLOADS.values()):
            servers[answer] = procs.start(
                [procs.PYTHON, "-m", "bench.canned_server", answer], ready=r"grpc="
            )
    except BaseException:
        for server in servers.values():
            server.stop()
        raise
    return servers


def _start_workers(
    endpoints: contenders.Endpoints,
) -> tuple[dict[str, procs.Child], dict[str, str]]:
    workers: dict[str, procs.Child] = {}
    failures: dict[str, str] = {}
    for contender in contenders.CONTENDERS:
        try:
            workers[contender.name] = procs.start(
                [procs.PYTHON, "-m", "bench.worker", contender.name, json.dumps(endpoints)],
                ready=r'"ready"',
                timeout=120,
            )
        except RuntimeError as error:
            failures[contender.name] = str(error)
    return workers, failures


def _measure_one(
    worker: procs.Child, server_pid: int, workload: str, inflight: int, settings: Settings
) -> tuple[dict[str, Any], float]:
    seconds = settings.window(inflight)
    command = {
        "workload": workload,
        "inflight": inflight,
        "warmup": settings.warmup,
        "seconds": seconds,
    }
    worker.send(json.dumps(command))
    before = procs.cpu_seconds(server_pid)
    window = json.loads(worker.read_line(settings.warmup + seconds + 120))
    # The server's CPU is read around the whole command: warm-up included, so scale it down.
    share = seconds / (settings.warmup + seconds)
    return window, (procs.cpu_seconds(server_pid) - before) * share


def _rotated(names: list[str], round_index: int) -> list[str]:
    shift = round_index % len(names)
    rotated = names[shift:] + names[:shift]
    return rotated if round_index % 2 == 0 else rotated[::-1]


def running(workload: str, workers: Iterable[str]) -> list[str]:
    """The started contenders that run `workload`, sorted by name."""
    return sorted(name for name in workers if workload in contenders.BY_NAME[name].workloads)


def measure(settings: Settings) -> dict[str, Any]:
    """Runs every contender on each of its workloads at each load; returns summaries and rounds.

    Within a round, each workload and load in turn measures all its contenders back to back,
    so the windows a ratio compares are seconds apart.
    """
    servers = _start_servers()
    workers: dict[str, procs.Child] = {}
    try:
        endpoints = {answer: procs.addresses(s.ready_line) for answer, s in servers.items()}
        workers, failures = _start_workers(endpoints)
        series = {
            (name, workload, n): Series()
            for name in workers
            for workload in contenders.BY_NAME[name].workloads
            for n in settings.inflights
        }
        for round_index in range(settings.rounds):
            for workload, chosen in contenders.WORKLOADS.items():
                server_pid = servers[chosen.answer].pid
                for inflight in settings.inflights:
                    for name in _rotated(running(workload, workers), round_index):
                        window, server_cpu = _measure_one(
                            workers[name], server_pid, workload, inflight, settings
                        )
                        series[name, workload, inflight].add(window, server_cpu)
    finally:
        for worker in workers.values():
            worker.stop()
        for server in servers.values():
            server.stop()
    return _results(series, failures, settings)


def _results(
    series: dict[tuple[str, str, int], Series], failures: dict[str, str], settings: Settings
) -> dict[str, Any]:
    by_contender: dict[str, Any] = {}
    for contender in contenders.CONTENDERS:
        entry: dict[str, Any] = {
            "library": contender.library,
            "protocol": contender.protocol,
            "asynchronous": contender.asynchronous,
            "validate": contender.validate,
        }
        if contender.name in failures:
            entry["failed"] = failures[contender.name]
        else:
            entry["workloads"] = {
                workload: {
                    str(n): series[contender.name, workload, n].summary()
                    for n in settings.inflights
                }
                for workload in contender.workloads
            }
        by_contender[contender.name] = entry
    return {
        "settings": settings.__dict__,
        "workloads": {name: chosen.title for name, chosen in contenders.WORKLOADS.items()},
        "contenders": by_contender,
    }


def summary(
    results: dict[str, Any], contender: str, workload: str, inflight: int
) -> dict[str, Any] | None:
    """One contender's medians on one workload at one load; None when not measured."""
    try:
        found: dict[str, Any] = results["contenders"][contender]["workloads"][workload][
            str(inflight)
        ]
    except KeyError:
        return None
    return found


def ratio(
    results: dict[str, Any], workload: str, numerator: str, denominator: str, inflight: int
) -> float | None:
    """Median over rounds of numerator's rate / denominator's rate (same round, same load)."""
    return _paired(results, workload, numerator, denominator, inflight, "rates_by_round")


def cpu_ratio(
    results: dict[str, Any], workload: str, numerator: str, denominator: str, inflight: int
) -> float | None:
    """Median over rounds of numerator's client CPU per call / denominator's."""
    return _paired(results, workload, numerator, denominator, inflight, "cpu_us")


def _paired(
    results: dict[str, Any],
    workload: str,
    numerator: str,
    denominator: str,
    inflight: int,
    key: str,
) -> float | None:
    top = summary(results, numerator, workload, inflight)
    bottom = summary(results, denominator, workload, inflight)
    if top is None or bottom is None:
        return None
    pairs = [a / b for a, b in zip(top[key], bottom[key], strict=True) if b > 0]
    return statistics.median(pairs) if pairs else None
