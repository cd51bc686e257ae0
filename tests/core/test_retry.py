"""Retry timing: full-jitter back-off inside one overall deadline, on a fake clock."""

from __future__ import annotations

import math
import random
import re
from dataclasses import FrozenInstanceError

import pytest
from google.protobuf import duration_pb2
from google.rpc import error_details_pb2
from hypothesis import given
from hypothesis import strategies as st

from groundwire.contract.errors import (
    DeadlineExceeded,
    GroundwireError,
    InvalidArgument,
    StatusCode,
    Unavailable,
)
from groundwire.contract.retry import Deadline, RetryPolicy, next_delay
from groundwire.wire.error_codecs import error_from_http


class FakeClock:
    def __init__(self, now: float = 1000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


class Ceiling:
    """A jitter source that always picks the longest wait, to make back-off visible."""

    def uniform(self, a: float, b: float, /) -> float:
        return b


UNAVAILABLE = Unavailable("backend unavailable")


def test_defaults_match_the_documented_policy() -> None:
    policy = RetryPolicy()
    assert (policy.initial, policy.maximum, policy.multiplier, policy.timeout) == (
        0.1,
        10.0,
        2.0,
        math.inf,  # no deadline of its own: the client's or call's timeout bounds the call
    )
    assert policy.max_attempts is None
    assert policy.retryable_codes == {
        StatusCode.UNAVAILABLE,
        StatusCode.RESOURCE_EXHAUSTED,
        StatusCode.DEADLINE_EXCEEDED,
    }


def test_waits_grow_by_the_multiplier_up_to_the_maximum() -> None:
    delays = RetryPolicy().delays(Ceiling())
    assert [round(next(delays), 6) for _ in range(10)] == [
        0.1, 0.2, 0.4, 0.8, 1.6, 3.2, 6.4, 10.0, 10.0, 10.0,
    ]  # fmt: skip


def test_waits_are_full_jitter_between_zero_and_the_ceiling() -> None:
    policy = RetryPolicy(initial=1.0, maximum=8.0)
    delays = policy.delays(random.Random(1234))
    for retry in range(50):
        assert 0.0 <= next(delays) <= policy.ceiling(retry)


def test_the_same_seed_gives_the_same_waits() -> None:
    policy = RetryPolicy(max_attempts=6)
    assert list(policy.delays(random.Random(9))) == list(policy.delays(random.Random(9)))


def test_max_attempts_bounds_the_number_of_waits() -> None:
    assert len(list(RetryPolicy(max_attempts=1).delays(Ceiling()))) == 0
    assert len(list(RetryPolicy(max_attempts=5).delays(Ceiling()))) == 4


def test_a_huge_retry_number_does_not_overflow() -> None:
    assert RetryPolicy().ceiling(10_000) == 10.0


@pytest.mark.parametrize(
    ("settings", "reason"),
    [
        ({"initial": 0.0}, "need 0 < initial <= maximum"),
        ({"initial": 20.0, "maximum": 10.0}, "need 0 < initial <= maximum"),
        ({"multiplier": 0.5}, "multiplier must be at least 1"),
        ({"timeout": 0.0}, "timeout must be positive"),
        ({"timeout": math.nan}, "timeout must be positive"),
        ({"max_attempts": 0}, "max_attempts must be at least 1"),
    ],
)
def test_nonsense_settings_are_refused(settings: dict[str, float], reason: str) -> None:
    with pytest.raises(ValueError, match=re.escape(reason)):
        RetryPolicy(**settings)  # type: ignore[arg-type]


def test_a_policy_is_immutable() -> None:
    with pytest.raises(FrozenInstanceError):
        RetryPolicy().timeout = 5.0  # type: ignore[misc]


def test_the_deadline_counts_down_on_its_clock() -> None:
    clock = FakeClock()
    deadline = Deadline.start(60.0, clock=clock)
    assert deadline.remaining() == 60.0
    clock.advance(45.0)
    assert deadline.remaining() == 15.0
    clock.advance(30.0)
    assert deadline.remaining() == 0.0


def test_no_overall_deadline_is_spelled_infinity() -> None:
    deadline = Deadline.start(math.inf, clock=FakeClock())
    assert deadline.remaining() == math.inf


def test_an_error_that_is_not_retryable_stops_at_once() -> None:
    deadline = Deadline.start(60.0, clock=FakeClock())
    bad = InvalidArgument("answer_candidate is too long")
    assert next_delay(RetryPolicy(), 1, bad, deadline, Ceiling()) is None


def test_an_attempt_that_timed_out_is_retried() -> None:
    deadline = Deadline.start(60.0, clock=FakeClock())
    timed_out = DeadlineExceeded("attempt timed out")
    assert next_delay(RetryPolicy(), 1, timed_out, deadline, Ceiling()) == 0.1


def test_the_wait_after_attempt_n_uses_the_nth_ceiling() -> None:
    deadline = Deadline.start(60.0, clock=FakeClock())
    delays = [next_delay(RetryPolicy(), n, UNAVAILABLE, deadline, Ceiling()) for n in (1, 2, 3)]
    assert delays == [0.1, 0.2, 0.4]


def test_max_attempts_stops_retrying() -> None:
    deadline = Deadline.start(60.0, clock=FakeClock())
    policy = RetryPolicy(max_attempts=3)
    assert next_delay(policy, 2, UNAVAILABLE, deadline, Ceiling()) is not None
    assert next_delay(policy, 3, UNAVAILABLE, deadline, Ceiling()) is None


def test_a_policy_can_narrow_the_retryable_codes() -> None:
    deadline = Deadline.start(60.0, clock=FakeClock())
    policy = RetryPolicy(retryable_codes=frozenset({StatusCode.UNAVAILABLE}))
    quota = error_from_http(429, b"", {})
    assert next_delay(policy, 1, quota, deadline, Ceiling()) is None
    assert next_delay(policy, 1, UNAVAILABLE, deadline, Ceiling()) == 0.1


def test_a_server_requested_wait_is_a_lower_bound() -> None:
    deadline = Deadline.start(60.0, clock=FakeClock())
    quota = error_from_http(429, b"", {"Retry-After": "30"})
    assert next_delay(RetryPolicy(), 1, quota, deadline, random.Random(0)) == 30.0


def test_retry_info_from_grpc_is_honoured_too() -> None:
    retry_info = error_details_pb2.RetryInfo(retry_delay=duration_pb2.Duration(seconds=12))
    error = Unavailable("draining", details=(retry_info,))
    deadline = Deadline.start(60.0, clock=FakeClock())
    assert next_delay(RetryPolicy(), 1, error, deadline, Ceiling()) == 12.0


def test_a_wait_that_would_reach_the_deadline_is_not_taken() -> None:
    clock = FakeClock()
    deadline = Deadline.start(60.0, clock=clock)
    clock.advance(50.0)
    quota = error_from_http(429, b"", {"Retry-After": "10"})
    assert next_delay(RetryPolicy(), 1, quota, deadline, Ceiling()) is None


def simulate(
    policy: RetryPolicy, per_attempt: float, attempt_takes: float, seed: int
) -> tuple[int, float, list[float]]:
    """Drive the policy like a client whose every attempt fails UNAVAILABLE."""
    clock = FakeClock(0.0)
    deadline = Deadline.start(policy.timeout, clock=clock)
    rng = random.Random(seed)
    attempt, timeouts = 0, []
    while True:
        attempt += 1
        timeout = min(per_attempt, deadline.remaining())
        timeouts.append(timeout)
        clock.advance(min(attempt_takes, timeout))
        error: GroundwireError = UNAVAILABLE if attempt_takes < timeout else DeadlineExceeded("")
        delay = next_delay(policy, attempt, error, deadline, rng)
        if delay is None:
            return attempt, clock.now, timeouts
        clock.advance(delay)


def test_the_overall_deadline_ends_every_retry_loop() -> None:
    attempts, elapsed, timeouts = simulate(RetryPolicy(timeout=60.0), 20.0, 25.0, seed=3)
    assert elapsed <= 60.0
    assert timeouts[:2] == [20.0, 20.0]
    assert timeouts[-1] < 20.0
    assert attempts == len(timeouts) >= 3


@given(
    st.floats(0.01, 5.0),
    st.floats(1.0, 3.0),
    st.floats(0.5, 120.0),
    st.floats(0.0, 10.0),
    st.integers(0, 2**32),
)
def test_no_retry_loop_outlives_the_deadline(
    initial: float, multiplier: float, timeout: float, attempt_takes: float, seed: int
) -> None:
    policy = RetryPolicy(initial=initial, maximum=10.0, multiplier=multiplier, timeout=timeout)
    attempts, elapsed, timeouts = simulate(policy, 5.0, attempt_takes, seed)
    assert elapsed <= timeout + 1e-9
    assert all(0.0 <= t <= 5.0 for t in timeouts)
    assert attempts >= 1


def test_connect_attempts_ends_a_call_whose_attempts_reach_nobody_but_not_other_failures() -> None:
    """A refused port stops at `connect_attempts`; a reachable server's UNAVAILABLE goes on."""
    from groundwire.transports.base import ConnectionFailure

    policy = RetryPolicy(connect_attempts=3)
    deadline = Deadline.start(60.0, clock=lambda: 0.0)
    refused = ConnectionFailure("connection refused")
    busy = Unavailable("backend busy")
    rng = random.Random(1)
    assert next_delay(policy, 2, refused, deadline, rng) is not None
    assert next_delay(policy, 3, refused, deadline, rng) is None
    assert next_delay(policy, 3, busy, deadline, rng) is not None
    assert next_delay(RetryPolicy(), 3, refused, deadline, rng) is not None
    with pytest.raises(ValueError, match="connect_attempts"):
        RetryPolicy(connect_attempts=0)
