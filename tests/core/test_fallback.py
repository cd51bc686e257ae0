"""FallbackState: gRPC first, REST for the cool-down after gRPC could not connect."""

from __future__ import annotations

import pytest

from groundwire.transports.fallback import FallbackState


def test_grpc_is_preferred_until_it_fails_to_connect() -> None:
    state = FallbackState(cooldown=60)
    assert state.prefer_grpc(now=0)
    assert not state.on_rest
    assert state.record_grpc_success() is False


def test_a_connection_failure_switches_to_rest_for_the_cooldown() -> None:
    state = FallbackState(cooldown=60)
    assert state.record_connection_failure(now=100) is True
    assert state.on_rest
    assert not state.prefer_grpc(now=100)
    assert not state.prefer_grpc(now=159.9)
    assert state.prefer_grpc(now=160)


def test_a_failed_retry_after_the_cooldown_restarts_it_without_reporting_a_switch() -> None:
    state = FallbackState(cooldown=60)
    state.record_connection_failure(now=0)
    assert state.record_connection_failure(now=60) is False
    assert not state.prefer_grpc(now=119)
    assert state.prefer_grpc(now=120)


def test_a_grpc_success_switches_back_once() -> None:
    state = FallbackState(cooldown=60)
    state.record_connection_failure(now=0)
    assert state.record_grpc_success() is True
    assert state.record_grpc_success() is False
    assert state.prefer_grpc(now=1)
    assert not state.on_rest


def test_a_zero_cooldown_retries_grpc_on_the_next_call() -> None:
    state = FallbackState(cooldown=0)
    state.record_connection_failure(now=5)
    assert state.prefer_grpc(now=5)


def test_a_negative_cooldown_is_refused() -> None:
    with pytest.raises(ValueError, match="cooldown must be >= 0 seconds"):
        FallbackState(cooldown=-1)
