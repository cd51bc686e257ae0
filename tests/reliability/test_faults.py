"""An emulator failing half its calls on purpose: retries hide it, and without them it shows.

The server runs with `--fault-rate 0.5 --fault-codes UNAVAILABLE,RESOURCE_EXHAUSTED
--latency 5`. A client with retries must get the right answer to every call; a client without
them must see roughly half its calls fail, with exactly those codes.
"""

from __future__ import annotations

import collections
import time
from collections.abc import Iterator

import pytest

from groundwire import RetryPolicy
from groundwire.contract.calls import TransportName
from groundwire.contract.errors import GroundwireError
from groundwire.emulator import emulator
from tests.reliability.calls import ANSWER, FACTS, claims_of, client_for
from tests.reliability.processes import EmulatorProcess

FAULTS = [
    "--fault-rate",
    "0.5",
    "--fault-codes",
    "UNAVAILABLE,RESOURCE_EXHAUSTED",
    "--latency",
    "5",
]
RETRYING = RetryPolicy(initial=0.01, maximum=0.2, timeout=15.0)
RETRIED_CALLS = 30
COUNTED_CALLS = 120
TIME_BOUND = 15.0


@pytest.fixture(scope="module")
def faulty() -> Iterator[EmulatorProcess]:
    with EmulatorProcess(FAULTS) as server:
        yield server


@pytest.fixture(scope="module")
def expected() -> object:
    """The answer of a fault-free emulator (in-process) to the same request."""
    with emulator() as fault_free, fault_free.client(transport="grpc") as client:
        return claims_of(client.check_grounding(ANSWER, FACTS))


@pytest.mark.parametrize("transport", ["grpc", "rest"])
def test_a_client_with_retries_gets_the_right_answer_to_every_call(
    faulty: EmulatorProcess, expected: object, transport: TransportName
) -> None:
    finish = time.monotonic() + TIME_BOUND
    answers: list[object] = []
    with client_for(
        transport, faulty.grpc_address, faulty.http_url, timeout=15.0, retry=RETRYING
    ) as client:
        while len(answers) < RETRIED_CALLS and time.monotonic() < finish:
            answers.append(claims_of(client.check_grounding(ANSWER, FACTS)))

    assert len(answers) == RETRIED_CALLS, f"only {len(answers)} calls within {TIME_BOUND} s"
    assert all(answer == expected for answer in answers)


@pytest.mark.parametrize("transport", ["grpc", "rest"])
def test_without_retries_about_half_the_calls_fail_with_the_injected_codes(
    faulty: EmulatorProcess, expected: object, transport: TransportName
) -> None:
    codes: collections.Counter[str] = collections.Counter()
    finish = time.monotonic() + TIME_BOUND
    with client_for(
        transport, faulty.grpc_address, faulty.http_url, timeout=10.0, retry=None
    ) as client:
        for _ in range(COUNTED_CALLS):
            if time.monotonic() > finish:
                break
            try:
                answer = claims_of(client.check_grounding(ANSWER, FACTS))
            except GroundwireError as error:
                codes[error.code.name] += 1
            else:
                codes["OK"] += 1
                assert answer == expected

    calls = sum(codes.values())
    assert calls == COUNTED_CALLS, f"only {calls} calls within {TIME_BOUND} s"
    assert set(codes) == {"OK", "UNAVAILABLE", "RESOURCE_EXHAUSTED"}, codes
    assert 0.3 <= (calls - codes["OK"]) / calls <= 0.7, codes
