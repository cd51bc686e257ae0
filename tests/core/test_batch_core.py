"""The batch's pure decisions: the AIMD window, the dead-endpoint watch, the bucket, the items."""

from __future__ import annotations

from typing import Any

import pytest
from groundwire_protos.google.cloud.aiplatform.v1.vertex_rag_service_pb2 import (
    CorroborateContentRequest,
)
from groundwire_protos.google.cloud.discoveryengine.v1.check_grounding_pb2 import (
    CheckGroundingRequest,
)
from hypothesis import given
from hypothesis import strategies as st

from groundwire.contract import calls
from groundwire.contract.errors import InvalidArgument
from groundwire.contract.retry import RetryPolicy
from groundwire.features.batch import (
    BatchOutcome,
    BatchSettings,
    BatchState,
    ItemAttempts,
    plan_item,
)
from groundwire.features.pacing import ReachabilityWatch, Throttle, TokenBucket
from groundwire.transports.base import ConnectionFailure
from groundwire.wire.error_codecs import error_from_status
from tests.support.typed import typed

CONFIG = calls.ClientConfig("p")
THROTTLED = error_from_status(8, "quota")
FACTS = ["Paris is in France."]


@given(st.lists(st.booleans(), max_size=300), st.integers(min_value=1, max_value=64))
def test_the_window_stays_between_one_and_the_concurrency_asked_for(
    throttled: list[bool], maximum: int
) -> None:
    throttle = Throttle(maximum)
    for now, was_throttled in enumerate(throttled):
        if was_throttled:
            throttle.throttled(started_at=float(now), now=float(now))
        else:
            throttle.succeeded()
        assert 1 <= throttle.concurrency <= maximum


def test_the_window_halves_once_per_throttling_and_grows_back_to_the_maximum() -> None:
    throttle = Throttle(16)
    for now in range(4):
        throttle.throttled(started_at=float(now), now=float(now))
    assert throttle.concurrency == 1
    successes = 0
    while throttle.concurrency < 16 and successes < 1_000:
        throttle.succeeded()
        successes += 1
    assert throttle.concurrency == 16
    assert successes > 16  # additive: one step per window of successes, not per success


def test_throttling_of_attempts_sent_before_the_last_decrease_does_not_halve_again() -> None:
    throttle = Throttle(16)
    throttle.throttled(started_at=0.0, now=1.0)
    for _ in range(10):
        throttle.throttled(started_at=0.5, now=1.2)
    assert throttle.concurrency == 8


def test_an_answered_attempt_resets_the_count_of_connection_failures() -> None:
    watch = ReachabilityWatch(3)
    outcomes = [False, False, True, False, False]
    assert [watch.attempted(connected=connected) for connected in outcomes] == [False] * 5
    assert watch.attempted(connected=False)


def test_no_limit_never_calls_the_endpoint_dead() -> None:
    watch = ReachabilityWatch(None)
    assert not any(watch.attempted(connected=False) for _ in range(1_000))


def test_the_token_bucket_spaces_requests_at_its_rate_after_a_pause() -> None:
    bucket = TokenBucket(10.0)
    assert [bucket.reserve(now=0.0) for _ in range(3)] == pytest.approx([0.0, 0.1, 0.2])
    assert bucket.reserve(now=100.0) == 0.0  # a long pause gives back one token, not a burst
    assert bucket.reserve(now=100.0) == pytest.approx(0.1)


def test_a_throttled_attempt_shrinks_the_state_window_and_a_connection_failure_does_not() -> None:
    state = BatchState(BatchSettings(concurrency=8, rate=None, retry=None, timeout=5.0))
    assert not state.attempted(THROTTLED, connected=True, started_at=0.0, now=0.1)
    assert state.throttle.concurrency == 4
    unreachable = error_from_status(14, "refused")
    assert not state.attempted(unreachable, connected=False, started_at=1.0, now=1.1)
    assert state.throttle.concurrency == 4


def test_answer_is_a_synonym_of_answer_candidate() -> None:
    planned = plan_item(CONFIG, "CheckGrounding", {"answer": "Hi.", "facts": FACTS}, {})
    assert typed(CheckGroundingRequest, planned.call.request).answer_candidate == "Hi."


def test_the_same_text_under_both_synonyms_is_accepted() -> None:
    item = {"answer": "Hi.", "answer_candidate": "Hi.", "facts": FACTS}
    planned = plan_item(CONFIG, "CheckGrounding", item, {})
    assert typed(CheckGroundingRequest, planned.call.request).answer_candidate == "Hi."


@pytest.mark.parametrize(
    "item",
    [
        {"answer": "One.", "answer_candidate": "Two."},
        {"answer": 7},
        {"facts": FACTS},
        {"answer": "Hi.", "facts": "a single text"},
        {"answer": "Hi.", "citation_treshold": 0.5},
        ["Hi.", FACTS],
        {"answer": "Hi.", "citation_threshold": "high"},
    ],
)
def test_an_item_that_is_not_a_call_is_an_invalid_argument(item: Any) -> None:
    with pytest.raises(InvalidArgument):
        plan_item(CONFIG, "CheckGrounding", item, {})


def test_batch_defaults_fill_in_only_what_an_item_leaves_out() -> None:
    defaults = {"citation_threshold": 0.9, "enable_claim_level_score": None}
    own = plan_item(
        CONFIG, "CheckGrounding", {"answer": "Hi.", "citation_threshold": 0.2}, defaults
    )
    filled = plan_item(CONFIG, "CheckGrounding", {"answer": "Hi."}, defaults)
    own_spec = typed(CheckGroundingRequest, own.call.request).grounding_spec
    filled_spec = typed(CheckGroundingRequest, filled.call.request).grounding_spec
    assert own_spec.citation_threshold == pytest.approx(0.2)
    assert filled_spec.citation_threshold == pytest.approx(0.9)


def test_corroborate_items_take_content_or_the_answer_synonyms() -> None:
    for key in ("content", "answer_candidate", "answer"):
        planned = plan_item(CONFIG, "CorroborateContent", {key: "Hi.", "facts": FACTS}, {})
        request = typed(CorroborateContentRequest, planned.call.request)
        assert request.content.parts[0].text == "Hi."


class Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class Ceiling:
    """Jitter that always waits the longest it may."""

    def uniform(self, a: float, b: float) -> float:
        return b


def item_attempts(state: BatchState, index: int = 0) -> ItemAttempts:
    planned = plan_item(
        CONFIG, "CheckGrounding", {"answer": "Hi.", "facts": FACTS, "id": index}, {}
    )
    return ItemAttempts(state, index, planned, Ceiling())


def test_an_item_waits_its_back_off_then_the_rate_before_its_next_attempt() -> None:
    clock = Clock()
    retry = RetryPolicy(initial=0.5, maximum=0.5)
    settings = BatchSettings(concurrency=2, rate=2.0, retry=retry, timeout=30.0)
    state = BatchState(settings, "127.0.0.1:1", clock)
    assert state.start(clock()) == 0.0
    attempts = item_attempts(state)
    assert attempts.begin() == 30.0
    assert attempts.failed(THROTTLED) == 0.5  # the back-off, counted as throttled time
    assert state.throttled_seconds == 0.5
    assert state.throttle.concurrency == 1
    assert attempts.pace() == pytest.approx(0.5)  # the bucket's second token, at the same time
    clock.now = 1.0
    attempts.begin()
    outcome = attempts.succeeded("a result")
    assert (outcome.result, outcome.attempts, outcome.id) == ("a result", 2, 0)


def test_an_item_that_may_not_retry_ends_with_its_error() -> None:
    settings = BatchSettings(concurrency=1, rate=None, retry=None, timeout=5.0)
    attempts = item_attempts(BatchState(settings))
    attempts.begin()
    outcome = attempts.failed(THROTTLED)
    assert isinstance(outcome, BatchOutcome)
    assert (outcome.error, outcome.attempts) == (THROTTLED, 1)


def test_connection_failures_in_a_row_across_items_mark_the_batch_dead() -> None:
    unreachable = ConnectionFailure("refused")
    settings = BatchSettings(
        concurrency=4, rate=None, retry=None, timeout=5.0, max_connection_failures=3
    )
    state = BatchState(settings, "127.0.0.1:1")
    for index in range(3):
        assert state.dead is None
        attempts = item_attempts(state, index)
        attempts.begin()
        attempts.failed(unreachable)
    assert state.dead is not None
    assert "cannot reach 127.0.0.1:1" in str(state.dead)
