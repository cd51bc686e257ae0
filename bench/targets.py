"""The performance targets, judged as met or missed from one run's results (never asserted).

Every target compares numbers taken in the same run, or an absolute time on this machine; a
target whose numbers are missing (a section failed) is reported as not measured.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from bench import contenders
from bench.quality.engine_speed import ADVERSARIAL_GENERATORS
from bench.throughput import cpu_ratio, ratio

OFFICIAL_IMPORT = "from google.cloud import discoveryengine_v1"
GROUNDWIRE_IMPORT = "from groundwire import GroundingClient"


@dataclass(frozen=True)
class Target:
    """One target: what it says, how to read the measured value, and the bound it must meet."""

    description: str
    measure: Callable[[dict[str, Any]], float | None]
    bound: float
    at_least: bool
    unit: str

    def judge(self, results: dict[str, Any]) -> dict[str, Any]:
        """The measured value in `results`, the bound, and whether it is met (None: unmeasured)."""
        try:
            value = self.measure(results)
        except (KeyError, TypeError):
            value = None
        met = (
            None
            if value is None
            else (value >= self.bound if self.at_least else value <= self.bound)
        )
        sign = "≥" if self.at_least else "≤"
        return {
            "target": f"{self.description} {sign} {self.bound:g}{self.unit}",
            "value": value,
            "unit": self.unit,
            "met": met,
        }


def _ratio(
    workload: str, numerator: str, denominator: str, inflight: int
) -> Callable[[dict[str, Any]], float | None]:
    return lambda results: ratio(results["throughput"], workload, numerator, denominator, inflight)


def _cpu_ratio(
    workload: str, numerator: str, denominator: str, inflight: int
) -> Callable[[dict[str, Any]], float | None]:
    return lambda results: cpu_ratio(
        results["throughput"], workload, numerator, denominator, inflight
    )


def _import_seconds(results: dict[str, Any]) -> float:
    return float(results["imports"][GROUNDWIRE_IMPORT]["seconds"])


def _import_share(statement: str) -> Callable[[dict[str, Any]], float]:
    return lambda results: float(
        results["imports"][statement]["seconds"] / results["imports"][OFFICIAL_IMPORT]["seconds"]
    )


def _latency_ms(request: str, statistic: str) -> Callable[[dict[str, Any]], float]:
    return lambda results: float(results["engine"]["latency"][request][statistic])


CLIENT_TARGET_WORKLOADS = tuple(name for name in contenders.WORKLOADS if name != "long")
"""The workloads the gRPC targets hold on: score and full on each response shape (the long
answer is reported, not targeted)."""
GRPC_PAIRS = (
    ("sync", "groundwire-grpc", "stub-grpc", "official-grpc"),
    ("asyncio", "groundwire-grpc-async", "stub-grpc-async", "official-grpc-async"),
)
INFLIGHTS = (1, 64)
STUB_CELLS = tuple(
    (workload, ours, stub, inflight)
    for workload in CLIENT_TARGET_WORKLOADS
    for _, ours, stub, _ in GRPC_PAIRS
    for inflight in INFLIGHTS
)


def _median_stub_ratio(results: dict[str, Any]) -> float | None:
    found = [ratio(results["throughput"], *cell) for cell in STUB_CELLS]
    measured = [value for value in found if value is not None]
    return statistics.median(measured) if len(measured) == len(found) else None


GRPC_TARGETS = (
    Target(
        "groundwire gRPC / bare stub, median over every cell below",
        _median_stub_ratio,
        0.95,
        True,
        "×",
    ),
    *(
        Target(
            f"groundwire gRPC / {label}, {mode}, {workload}, {inflight} in flight",
            _ratio(workload, ours, theirs, inflight),
            bound,
            True,
            "×",
        )
        for workload in CLIENT_TARGET_WORKLOADS
        for mode, ours, stub, official in GRPC_PAIRS
        for inflight in INFLIGHTS
        for label, theirs, bound in (("bare stub", stub, 0.9), ("official gRPC", official, 1.2))
    ),
)

REST_TARGETS = (
    *(
        Target(
            f"groundwire REST / official REST, sync, full, {inflight} in flight",
            _ratio("full", "groundwire-rest", "official-rest", inflight),
            1.5,
            True,
            "×",
        )
        for inflight in (64, 1)
    ),
    *(
        Target(
            f"groundwire REST client CPU per call, asyncio / sync, full, {inflight} in flight",
            _cpu_ratio("full", "groundwire-rest-async", "groundwire-rest", inflight),
            1.3,
            False,
            "×",
        )
        for inflight in INFLIGHTS
    ),
)

TARGETS = (
    *GRPC_TARGETS,
    *REST_TARGETS,
    Target(f"`{GROUNDWIRE_IMPORT}` time", _import_seconds, 0.25, False, " s"),
    Target(
        "`import groundwire` time / official import time",
        _import_share("import groundwire"),
        0.5,
        False,
        "×",
    ),
    Target(
        f"`{GROUNDWIRE_IMPORT}` time / official import time",
        _import_share(GROUNDWIRE_IMPORT),
        0.5,
        False,
        "×",
    ),
    Target("emulator p50, small request", _latency_ms("small", "p50_ms"), 5.0, False, " ms"),
    Target(
        "emulator p99, largest legal request",
        _latency_ms("largest", "p99_ms"),
        1000.0,
        False,
        " ms",
    ),
)


def _text_kind(generator: str) -> str:
    return "adversarial text" if generator in ADVERSARIAL_GENERATORS else "varied text"


def _varied_ms(generator: str, request: str, statistic: str) -> Callable[[dict[str, Any]], float]:
    return lambda results: float(results["engine"]["varied"][generator][request][statistic])


VARIED_TEXT_TARGETS = tuple(
    target
    for generator in ("zipf", "uniform", *ADVERSARIAL_GENERATORS)
    for target in (
        Target(
            f"emulator p50, small request, {_text_kind(generator)} ({generator})",
            _varied_ms(generator, "small", "p50_ms"),
            5.0,
            False,
            " ms",
        ),
        Target(
            f"emulator warm p99, largest legal request, {_text_kind(generator)} ({generator})",
            _varied_ms(generator, "largest", "p99_ms"),
            1000.0,
            False,
            " ms",
        ),
    )
)


def _bigquery_ratio(size: int) -> Callable[[dict[str, Any]], float]:
    return lambda results: float(results["bigquery"]["sizes"][str(size)]["ratio"])


BIGQUERY_TARGETS = tuple(
    Target(
        f"BigQuery endpoint rows/s / `check_grounding_many` rows/s, {size} rows per call",
        _bigquery_ratio(size),
        0.8,
        True,
        "×",
    )
    for size in (50, 500)
)


def judge_all(results: dict[str, Any]) -> list[dict[str, Any]]:
    """Every target, judged against `results`."""
    every = (*TARGETS, *VARIED_TEXT_TARGETS, *BIGQUERY_TARGETS)
    return [target.judge(results) for target in every]
