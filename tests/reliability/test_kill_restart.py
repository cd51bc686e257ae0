"""SIGKILL the server under load, restart it on the same ports: calls recover or fail retryably.

Several threads call an emulator whose every call takes at least LATENCY_MS, so calls are in
flight when it is killed. It comes back on the same ports three seconds later. Every call must then
either return the right answer (after retries) or fail with a retryable GroundwireError;
none may hang or return a wrong answer, and new calls succeed soon after the restart (gRPC's
reconnect back-off takes a second or two to notice the server is back).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

import pytest

from groundwire import GroundingClient, RetryPolicy
from groundwire.contract.calls import TransportName
from groundwire.contract.errors import GroundwireError
from tests.reliability.calls import ANSWER, FACTS, claims_of, client_for
from tests.reliability.conftest import StartEmulator

LATENCY_MS = 100
THREADS = 6
MAX_CALLS_PER_THREAD = 100
DOWNTIME = 3.0
RECOVERY_BOUND = 10.0
CALL_TIMEOUT = 15.0
RETRY = RetryPolicy(initial=0.1, maximum=1.0, multiplier=2.0, timeout=CALL_TIMEOUT)
JOIN_BOUND = CALL_TIMEOUT + 10.0
SENT_BEFORE_KILL_GRACE = 2.0
"""How late after the kill a caller may read an answer the server sent before it died (a
loaded machine schedules the caller's thread late); well under ``DOWNTIME``."""


@dataclass(frozen=True)
class Record:
    """One call: when it started and ended (monotonic), and how it went."""

    started: float
    ended: float
    verdict: str  # "right", "wrong", "retryable error" or "other: ..."


def _caller(
    client: GroundingClient, expected: object, stop: threading.Event, records: list[Record]
) -> None:
    for _ in range(MAX_CALLS_PER_THREAD):
        if stop.is_set():
            return
        started = time.monotonic()
        try:
            result = client.check_grounding(ANSWER, FACTS)
        except GroundwireError as error:
            verdict = "retryable error" if error.retryable else f"other: {error!r}"
        except Exception as error:  # anything else is a failure the test reports
            verdict = f"other: {error!r}"
        else:
            verdict = "right" if claims_of(result) == expected else "wrong"
        records.append(Record(started, time.monotonic(), verdict))


@pytest.mark.parametrize("transport", ["grpc", "rest"])
def test_calls_in_flight_during_a_kill_recover_after_the_restart_or_fail_retryably(
    start_emulator: StartEmulator, transport: TransportName
) -> None:
    server = start_emulator(["--latency", str(LATENCY_MS)])
    records: list[Record] = []
    stop = threading.Event()
    with client_for(
        transport, server.grpc_address, server.http_url, timeout=CALL_TIMEOUT, retry=RETRY
    ) as client:
        expected = claims_of(client.check_grounding(ANSWER, FACTS))
        threads = [
            threading.Thread(target=_caller, args=(client, expected, stop, records), daemon=True)
            for _ in range(THREADS)
        ]
        for thread in threads:
            thread.start()
        _wait_until(lambda: len(records) >= THREADS)  # the callers are calling, some in flight
        server.kill()
        killed_at = time.monotonic()
        time.sleep(DOWNTIME)
        server.start()
        restarted_at = time.monotonic()
        _wait_for_recovery(records, restarted_at)
        stop.set()
        for thread in threads:
            thread.join(JOIN_BOUND)
        hung = sum(thread.is_alive() for thread in threads)

    assert hung == 0, f"{hung} calls were still waiting {JOIN_BOUND} s after the stop"
    verdicts = {record.verdict for record in records}
    assert verdicts <= {"right", "retryable error"}, verdicts
    in_flight = [r for r in records if r.started < killed_at < r.ended]
    assert in_flight, "no call was in flight when the server was killed"
    recovered = [r for r in in_flight if r.verdict == "right"]
    assert all(
        r.ended > restarted_at or r.ended < killed_at + SENT_BEFORE_KILL_GRACE for r in recovered
    ), "a call succeeded while the server was down"
    assert _recovered(records, restarted_at), (
        f"no call started after the restart succeeded within {RECOVERY_BOUND} s"
    )


def _recovered(records: list[Record], restarted_at: float) -> bool:
    return any(r.verdict == "right" and r.started > restarted_at for r in list(records))


def _wait_for_recovery(records: list[Record], restarted_at: float) -> None:
    """Lets the callers run until a call started after the restart succeeds (bounded)."""
    _wait_until(lambda: _recovered(records, restarted_at))


def _wait_until(condition: Callable[[], bool]) -> None:
    """Returns once `condition` holds, or after RECOVERY_BOUND s."""
    deadline = time.monotonic() + RECOVERY_BOUND
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.1)
