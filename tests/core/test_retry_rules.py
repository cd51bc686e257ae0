"""The rules of contract/retry.py: back-off never runs into the deadline; permanent errors end."""

from __future__ import annotations

import random
import time
from typing import Any

import pytest
from google.protobuf.duration_pb2 import Duration
from google.rpc.error_details_pb2 import RetryInfo

from groundwire import GroundingClient, RetryPolicy
from groundwire.contract import apis
from groundwire.contract.attempts import NO_ONE, Attempts, unlogged
from groundwire.contract.errors import (
    RETRYABLE_CODES,
    ClientClosed,
    MessageTooLarge,
    ResourceExhausted,
    StatusCode,
)
from tests.support.canned import CannedServers


def test_an_attempt_timeout_is_cut_from_what_remains_of_the_deadline() -> None:
    now = [0.0]
    attempts = Attempts(
        RetryPolicy(), 30.0, random.Random(1), NO_ONE, unlogged, clock=lambda: now[0]
    )
    assert attempts.start(None) == 30.0
    now[0] = 25.0
    assert attempts.start(None) == 5.0


def test_a_server_asked_wait_at_least_the_time_left_gives_up_after_one_attempt() -> None:
    retrying = Attempts(RetryPolicy(), 10.0, random.Random(1), NO_ONE, unlogged, clock=lambda: 0.0)
    retrying.start(None)
    busy = ResourceExhausted("quota", retry_delay=10.0)

    assert retrying.after_failure(busy) is None
    assert retrying.attempts == 1


def test_a_server_asked_wait_shorter_than_the_time_left_is_waited() -> None:
    retrying = Attempts(RetryPolicy(), 10.0, random.Random(1), NO_ONE, unlogged, clock=lambda: 0.0)
    retrying.start(None)

    assert retrying.after_failure(ResourceExhausted("quota", retry_delay=9.5)) == 9.5


@pytest.mark.parametrize(
    "error",
    [MessageTooLarge("70 MiB"), ClientClosed("client closed")],
    ids=["too-large", "client-closed"],
)
def test_a_permanent_error_is_never_retried_whatever_the_policy_retries(error: Any) -> None:
    every_code = frozenset(StatusCode) - {StatusCode.OK}
    policy = RetryPolicy(retryable_codes=every_code)
    retrying = Attempts(policy, 60.0, random.Random(1), NO_ONE, unlogged, clock=lambda: 0.0)
    retrying.start(None)

    assert error.code in RETRYABLE_CODES | every_code
    assert not error.retryable
    assert retrying.after_failure(error) is None


def quota_exhausted(method: apis.Method, request: Any) -> Any:
    raise ResourceExhausted(
        "quota exhausted", details=(RetryInfo(retry_delay=Duration(seconds=30)),)
    )


def test_a_client_asked_to_wait_past_its_deadline_fails_at_once() -> None:
    with (
        CannedServers(quota_exhausted) as servers,
        GroundingClient(
            "p", transport="grpc", endpoint=servers.grpc_address, timeout=5.0
        ) as client,
    ):
        started = time.monotonic()
        with pytest.raises(ResourceExhausted) as raised:
            client.check_grounding("a", ["b"])
        seconds = time.monotonic() - started

    assert raised.value.retry_delay == 30.0
    assert servers.recorder.grpc_calls == 1
    assert seconds < 4.0
