"""Fault injection, so users can test how their own services cope with a slow, failing API.

A `FaultPolicy` says what to inject; a `FaultInjector` draws one `Fault` per call. Drawing is
pure (no sleeping); the gRPC server and the REST gateway each wait in their own way and then
fail with the drawn error, so both protocols misbehave identically.
"""

from __future__ import annotations

import random
import threading
from dataclasses import dataclass

from groundwire.contract.errors import GroundwireError, StatusCode, error_type_for

RETRY_DELAY_SECONDS = 0.1
"""The wait a RESOURCE_EXHAUSTED fault asks for in its RetryInfo detail."""


@dataclass(frozen=True)
class FaultPolicy:
    """What to inject: `latency_ms` before every call, then failure with probability `rate`.

    A failing call gets one of `codes`, chosen at random; RESOURCE_EXHAUSTED carries a
    RetryInfo detail asking for a short wait. `seed` makes the sequence of faults repeatable.

    Example:
        >>> FaultPolicy(rate=0.2, codes=(StatusCode.UNAVAILABLE,), latency_ms=50).rate
        0.2
    """

    rate: float = 0.0
    codes: tuple[StatusCode, ...] = (StatusCode.UNAVAILABLE,)
    latency_ms: int = 0
    seed: int | None = None

    def __post_init__(self) -> None:
        if not 0.0 <= self.rate <= 1.0:
            raise ValueError(f"rate must be between 0 and 1, not {self.rate!r}")
        if self.rate > 0 and not self.codes:
            raise ValueError("codes must name at least one status code when rate > 0")
        if StatusCode.OK in self.codes:
            raise ValueError("OK is not a fault; codes must be failure codes")
        if self.latency_ms < 0:
            raise ValueError(f"latency_ms must not be negative, not {self.latency_ms!r}")


@dataclass(frozen=True)
class Fault:
    """The fault drawn for one call: wait `delay_seconds`, then raise `error` unless None."""

    delay_seconds: float
    error: GroundwireError | None


class FaultInjector:
    """Draws faults from a policy; safe to share between the threads of a server.

    Example:
        >>> injector = FaultInjector(FaultPolicy(rate=1.0, codes=(StatusCode.UNAVAILABLE,)))
        >>> injector.draw().error.code.name
        'UNAVAILABLE'
    """

    def __init__(self, policy: FaultPolicy) -> None:
        self.policy = policy
        self._random = random.Random(policy.seed)
        self._lock = threading.Lock()

    def draw(self) -> Fault:
        """The fault for the next call (no waiting happens here)."""
        with self._lock:
            fails = self.policy.rate > 0 and self._random.random() < self.policy.rate
            code = self._random.choice(self.policy.codes) if fails else None
        error = None if code is None else injected_error(code)
        return Fault(self.policy.latency_ms / 1000, error)


def injected_error(code: StatusCode) -> GroundwireError:
    """The error of an injected fault with `code`, with RetryInfo for RESOURCE_EXHAUSTED.

    Example:
        >>> injected_error(StatusCode.RESOURCE_EXHAUSTED).retry_delay
        0.1
    """
    message = f"fault injected by the groundwire emulator: {code.name}"
    if code != StatusCode.RESOURCE_EXHAUSTED:
        return error_type_for(code)(message)
    from google.protobuf.duration_pb2 import Duration
    from google.rpc.error_details_pb2 import RetryInfo

    delay = Duration()
    delay.FromNanoseconds(int(RETRY_DELAY_SECONDS * 1e9))
    return error_type_for(code)(message, details=(RetryInfo(retry_delay=delay),))
