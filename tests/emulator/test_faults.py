"""Fault injection fails and slows calls the same way over gRPC and REST."""

from __future__ import annotations

import time

import grpc
import httpx
import pytest
from google.rpc.error_details_pb2 import RetryInfo
from grpc_status import rpc_status

from groundwire.contract.errors import StatusCode
from groundwire.emulator import emulator
from groundwire.emulator.faults import FaultInjector, FaultPolicy
from tests.emulator.support import CHECK, CHECK_BODY, CHECK_PATH, check_request, unary_call


@pytest.mark.parametrize(
    ("arguments", "reason"),
    [
        ({"rate": 1.5}, "rate must be between 0 and 1"),
        ({"rate": -0.1}, "rate must be between 0 and 1"),
        ({"latency_ms": -1}, "latency_ms must not be negative"),
        ({"rate": 0.5, "codes": ()}, "codes must name at least one status code"),
        ({"codes": (StatusCode.OK,)}, "OK is not a fault"),
    ],
)
def test_a_policy_that_makes_no_sense_is_refused(arguments: dict[str, object], reason: str) -> None:
    with pytest.raises(ValueError, match=reason):
        FaultPolicy(**arguments)  # type: ignore[arg-type]


def test_a_seed_makes_the_faults_repeatable() -> None:
    policy = FaultPolicy(rate=0.5, codes=(StatusCode.UNAVAILABLE, StatusCode.INTERNAL), seed=7)

    def codes() -> list[str | None]:
        injector = FaultInjector(policy)
        return [None if (e := injector.draw().error) is None else e.code.name for _ in range(50)]

    first = codes()
    assert first == codes()
    assert {None, "UNAVAILABLE", "INTERNAL"} == set(first)


def test_rate_one_fails_every_call_on_both_protocols() -> None:
    policy = FaultPolicy(rate=1.0, codes=(StatusCode.UNAVAILABLE,))
    with emulator(faults=policy) as emu, grpc.insecure_channel(emu.grpc_address) as channel:
        for _ in range(5):
            with pytest.raises(grpc.RpcError) as raised:
                unary_call(channel, CHECK, check_request())
            assert raised.value.code() == grpc.StatusCode.UNAVAILABLE
            response = httpx.post(emu.http_url + CHECK_PATH, json=CHECK_BODY, timeout=5)
            assert response.status_code == 503
            assert response.json()["error"]["status"] == "UNAVAILABLE"


def test_latency_delays_every_call_on_both_protocols() -> None:
    with (
        emulator(faults=FaultPolicy(latency_ms=300)) as emu,
        grpc.insecure_channel(emu.grpc_address) as channel,
    ):
        started = time.monotonic()
        assert unary_call(channel, CHECK, check_request())
        after_grpc = time.monotonic()
        assert httpx.post(emu.http_url + CHECK_PATH, json=CHECK_BODY, timeout=5).is_success
        after_rest = time.monotonic()
    assert after_grpc - started >= 0.3
    assert after_rest - after_grpc >= 0.3


def test_resource_exhausted_asks_for_a_short_wait_on_both_protocols() -> None:
    policy = FaultPolicy(rate=1.0, codes=(StatusCode.RESOURCE_EXHAUSTED,))
    with emulator(faults=policy) as emu, grpc.insecure_channel(emu.grpc_address) as channel:
        with pytest.raises(grpc.RpcError) as raised:
            unary_call(channel, CHECK, check_request())
        status = rpc_status.from_call(raised.value)  # type: ignore[arg-type]
        assert status is not None
        retry_info = RetryInfo()
        assert status.details[0].Unpack(retry_info)
        assert 0 < retry_info.retry_delay.ToNanoseconds() <= 1_000_000_000
        response = httpx.post(emu.http_url + CHECK_PATH, json=CHECK_BODY, timeout=5)
        assert response.status_code == 429
        (detail,) = response.json()["error"]["details"]
        assert detail == {
            "@type": "type.googleapis.com/google.rpc.RetryInfo",
            "retryDelay": "0.100s",
        }
