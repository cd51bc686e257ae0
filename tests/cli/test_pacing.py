"""The token bucket that paces batch requests, run on a fake clock."""

from __future__ import annotations

import pytest

from groundwire.cli.pacing import TokenBucket


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0
        self.slept: list[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds


def test_callers_at_once_are_spaced_one_interval_apart() -> None:
    clock = FakeClock()
    bucket = TokenBucket(5, clock=clock, sleep=clock.sleep)
    assert [bucket.reserve() for _ in range(4)] == pytest.approx([0.0, 0.2, 0.4, 0.6])


def test_n_acquisitions_take_n_minus_one_intervals() -> None:
    clock = FakeClock()
    bucket = TokenBucket(10, clock=clock, sleep=clock.sleep)
    for _ in range(21):
        bucket.acquire()
    assert clock.now == pytest.approx(2.0)


def test_idle_time_saves_up_at_most_capacity_tokens() -> None:
    clock = FakeClock()
    bucket = TokenBucket(2, capacity=3, clock=clock, sleep=clock.sleep)
    for _ in range(3):
        bucket.acquire()
    clock.now += 100.0
    waits = [bucket.reserve() for _ in range(4)]
    assert waits == pytest.approx([0.0, 0.0, 0.0, 0.5])


def test_a_rate_must_be_positive() -> None:
    with pytest.raises(ValueError, match="rate must be positive"):
        TokenBucket(0)
