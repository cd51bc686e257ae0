"""Sixteen concurrent clients for a few seconds: no errors, and the server's memory stays flat.

Half the clients speak gRPC, half REST, each with its own connection. Latency percentiles are
printed (run with `-s` to see them), not asserted: the machine is shared.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field

from groundwire.contract.calls import TransportName
from tests.reliability.calls import ANSWER, FACTS, claims_of, client_for
from tests.reliability.conftest import StartEmulator

CLIENTS = 16
WARMUP_SECONDS = 1.0
RUN_SECONDS = 5.0
MAX_CALLS_PER_CLIENT = 5_000
RSS_SAMPLE_SECONDS = 0.5
RSS_GROWTH_BOUND_MIB = 50.0
CALL_TIMEOUT = 10.0


@dataclass
class Lane:
    """One client's record: latencies of right answers, and everything else that happened."""

    transport: TransportName
    latencies: list[float] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def _run_lane(
    lane: Lane, grpc_address: str, http_url: str, expected: object, stop: threading.Event
) -> None:
    with client_for(
        lane.transport, grpc_address, http_url, timeout=CALL_TIMEOUT, retry=None
    ) as client:
        for _ in range(MAX_CALLS_PER_CLIENT):
            if stop.is_set():
                return
            started = time.perf_counter()
            try:
                result = client.check_grounding(ANSWER, FACTS)
            except Exception as error:  # every failure is a finding
                lane.problems.append(repr(error))
                continue
            lane.latencies.append(time.perf_counter() - started)
            if claims_of(result) != expected:
                lane.problems.append("wrong answer")


def _percentiles(latencies: list[float]) -> str:
    ordered = sorted(latencies)
    picks = {
        name: ordered[min(len(ordered) - 1, int(q * len(ordered)))]
        for name, q in (("p50", 0.5), ("p90", 0.9), ("p99", 0.99))
    }
    return " ".join(f"{name}={1e3 * value:.1f}ms" for name, value in picks.items())


def test_sixteen_clients_get_right_answers_and_the_server_memory_stays_flat(
    start_emulator: StartEmulator,
) -> None:
    server = start_emulator()
    with client_for(
        "grpc", server.grpc_address, server.http_url, timeout=CALL_TIMEOUT, retry=None
    ) as probe:
        expected = claims_of(probe.check_grounding(ANSWER, FACTS))
    lanes = [Lane("grpc" if index % 2 == 0 else "rest") for index in range(CLIENTS)]
    stop = threading.Event()
    threads = [
        threading.Thread(
            target=_run_lane,
            daemon=True,
            args=(lane, server.grpc_address, server.http_url, expected, stop),
        )
        for lane in lanes
    ]
    for thread in threads:
        thread.start()
    time.sleep(WARMUP_SECONDS)
    rss = [server.rss_mib()]
    finish = time.monotonic() + RUN_SECONDS
    while time.monotonic() < finish:
        time.sleep(RSS_SAMPLE_SECONDS)
        rss.append(server.rss_mib())
    stop.set()
    for thread in threads:
        thread.join(CALL_TIMEOUT + 5)

    for transport in ("grpc", "rest"):
        latencies = [s for lane in lanes if lane.transport == transport for s in lane.latencies]
        print(f"\n{transport}: {len(latencies)} calls, {_percentiles(latencies)}")
    print(f"server RSS after warm-up: {rss[0]:.1f} MiB, peak {max(rss):.1f} MiB")
    assert not any(thread.is_alive() for thread in threads), "a client hung"
    problems = [problem for lane in lanes for problem in lane.problems]
    assert not problems, problems[:5]
    assert all(lane.latencies for lane in lanes), "every client got answers"
    assert max(rss) - rss[0] < RSS_GROWTH_BOUND_MIB
