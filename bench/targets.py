"""The performance targets, judged as met or missed from one run's results (never asserted).

Every target compares numbers taken in the same run, or an absolute time on this machine; a
target whose numbers are missing (a section failed) is reported as not measured.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from bench.throughput import ratio

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
    numerator: str, denominator: str, inflight: int
) -> Callable[[dict[str, Any]], float | None]:
    return lambda results: ratio(results["throughput"], numerator, denominator, inflight)


def _import_seconds(results: dict[str, Any]) -> float:
    return float(results["imports"][GROUNDWIRE_IMPORT]["seconds"])


def _import_share(results: dict[str, Any]) -> float:
    imports = results["imports"]
    return float(imports[GROUNDWIRE_IMPORT]["seconds"] / imports[OFFICIAL_IMPORT]["seconds"])


def _latency_ms(request: str, statistic: str) -> Callable[[dict[str, Any]], float]:
    return lambda results: float(results["engine"]["latency"][request][statistic])


TARGETS = (
    Target(
        "groundwire gRPC / bare stub, sync, 64 in flight",
        _ratio("groundwire-grpc", "stub-grpc", 64),
        0.9,
        True,
        "×",
    ),
    Target(
        "groundwire gRPC / bare stub, asyncio, 64 in flight",
        _ratio("groundwire-grpc-async", "stub-grpc-async", 64),
        0.9,
        True,
        "×",
    ),
    Target(
        "groundwire gRPC / official gRPC, sync, 64 in flight",
        _ratio("groundwire-grpc", "official-grpc", 64),
        1.2,
        True,
        "×",
    ),
    Target(
        "groundwire gRPC / official gRPC, asyncio, 64 in flight",
        _ratio("groundwire-grpc-async", "official-grpc-async", 64),
        1.2,
        True,
        "×",
    ),
    Target(
        "groundwire REST / official REST, sync, 64 in flight",
        _ratio("groundwire-rest", "official-rest", 64),
        1.5,
        True,
        "×",
    ),
    Target(
        "groundwire REST / official REST, sync, 1 in flight",
        _ratio("groundwire-rest", "official-rest", 1),
        1.5,
        True,
        "×",
    ),
    Target(f"`{GROUNDWIRE_IMPORT}` time", _import_seconds, 0.25, False, " s"),
    Target(f"`{GROUNDWIRE_IMPORT}` time / official import time", _import_share, 0.5, False, "×"),
    Target("emulator p50, small request", _latency_ms("small", "p50_ms"), 5.0, False, " ms"),
    Target(
        "emulator p99, largest legal request",
        _latency_ms("largest", "p99_ms"),
        1000.0,
        False,
        " ms",
    ),
)


def _varied_ms(generator: str, request: str, statistic: str) -> Callable[[dict[str, Any]], float]:
    return lambda results: float(results["engine"]["varied"][generator][request][statistic])


VARIED_TEXT_TARGETS = tuple(
    target
    for generator in ("zipf", "uniform")
    for target in (
        Target(
            f"emulator p50, small request, varied text ({generator})",
            _varied_ms(generator, "small", "p50_ms"),
            8.0,
            False,
            " ms",
        ),
        Target(
            f"emulator warm p99, largest legal request, varied text ({generator})",
            _varied_ms(generator, "largest", "p99_ms"),
            1000.0,
            False,
            " ms",
        ),
    )
)


def judge_all(results: dict[str, Any]) -> list[dict[str, Any]]:
    """Every target, judged against `results`."""
    return [target.judge(results) for target in (*TARGETS, *VARIED_TEXT_TARGETS)]
