"""When to try a call again and how long to wait, computed here; the clients do the waiting.

An attempt's timeout bounds one try; the overall deadline bounds all tries and the waits
between them, and every attempt's timeout is cut from what remains of it. A wait at least as
long as the time left is not taken: the last error is raised at once, so a server that asks
for 30 s when 10 s are left gets one attempt and the caller learns it now, not in 10 s.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Protocol

from groundwire.contract.errors import RETRYABLE_CODES, GroundwireError, StatusCode


class Jitter(Protocol):
    """Where random waits come from: ``random.Random`` or anything with its ``uniform``."""

    def uniform(self, a: float, b: float, /) -> float:
        """A number between ``a`` and ``b``."""
        ...


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """Exponential back-off with full jitter inside one overall deadline.

    The wait before retry ``n`` (0-based) is uniform in ``[0, ceiling(n)]`` seconds.
    ``timeout`` bounds all attempts and waits together (with the call's own timeout, the
    smaller wins); ``max_attempts`` caps the attempts, first included; ``connect_attempts``
    attempts that made no connection at all (a refused port) end the call, so that a dead
    endpoint fails fast (None: retried like any UNAVAILABLE). ``retryable_codes`` include an
    attempt's own DEADLINE_EXCEEDED, as these methods are idempotent. A permanent error
    (`GroundwireError.permanent`) is never retried.

    Example:
        >>> import random
        >>> policy = RetryPolicy(initial=1.0, maximum=4.0, max_attempts=4)
        >>> [round(delay, 2) for delay in policy.delays(random.Random(7))]
        [0.32, 0.3, 2.6]
    """

    initial: float = 0.1
    maximum: float = 10.0
    multiplier: float = 2.0
    timeout: float = math.inf
    max_attempts: int | None = None
    connect_attempts: int | None = None
    retryable_codes: frozenset[StatusCode] = RETRYABLE_CODES

    def __post_init__(self) -> None:
        if not 0 < self.initial <= self.maximum:
            raise ValueError("need 0 < initial <= maximum")
        if self.multiplier < 1:
            raise ValueError("multiplier must be at least 1")
        if not self.timeout > 0:
            raise ValueError("timeout must be positive")
        if self.max_attempts is not None and self.max_attempts < 1:
            raise ValueError("max_attempts must be at least 1")
        if self.connect_attempts is not None and self.connect_attempts < 1:
            raise ValueError("connect_attempts must be at least 1")

    def ceiling(self, retry: int) -> float:
        """The longest wait before retry ``retry`` (0-based): min(maximum, initial*multiplier**n).

        Example:
            >>> RetryPolicy().ceiling(3)
            0.8
        """
        try:
            return min(self.maximum, self.initial * self.multiplier**retry)
        except OverflowError:
            return self.maximum

    def delays(self, rng: Jitter) -> Iterator[float]:
        """The full-jitter wait before each retry; ends after ``max_attempts - 1`` when set."""
        retry = 0
        while self.max_attempts is None or retry < self.max_attempts - 1:
            yield rng.uniform(0.0, self.ceiling(retry))
            retry += 1

    def is_retryable(self, error: GroundwireError) -> bool:
        """Whether this policy retries ``error``: a retryable code, and not permanent."""
        return not error.permanent and error.code in self.retryable_codes


@dataclass(frozen=True, slots=True)
class Deadline:
    """The overall deadline of a call, read from an injectable monotonic clock."""

    expires_at: float
    clock: Callable[[], float]

    @classmethod
    def start(cls, timeout: float, clock: Callable[[], float] = time.monotonic) -> Deadline:
        """A deadline ``timeout`` seconds from now on ``clock`` (``math.inf`` for none)."""
        return cls(expires_at=clock() + timeout, clock=clock)

    def remaining(self) -> float:
        """Seconds left before the deadline, never negative."""
        return max(self.expires_at - self.clock(), 0.0)


def next_delay(
    policy: RetryPolicy,
    attempt: int,
    error: GroundwireError,
    deadline: Deadline,
    rng: Jitter,
) -> float | None:
    """Seconds to wait before retrying after attempt number ``attempt`` (1-based) failed.

    None means stop and raise ``error``: the policy does not retry it, its attempts are used
    up, or the wait would reach the deadline. A wait the server asked for
    (``error.retry_delay``) is a lower bound on the jittered one, even beyond ``maximum``.

    Example:
        >>> import random
        >>> from groundwire.wire.error_codecs import error_from_status
        >>> deadline = Deadline.start(60.0, clock=lambda: 0.0)
        >>> busy = error_from_status(14, "try later")
        >>> 0.0 <= next_delay(RetryPolicy(), 1, busy, deadline, random.Random(1)) <= 0.1
        True
        >>> next_delay(RetryPolicy(), 1, error_from_status(3, "bad"), deadline, random.Random(1))
    """
    if not policy.is_retryable(error):
        return None
    if policy.max_attempts is not None and attempt >= policy.max_attempts:
        return None
    if not error.connected and attempt >= (policy.connect_attempts or math.inf):
        return None
    delay = rng.uniform(0.0, policy.ceiling(attempt - 1))
    if error.retry_delay is not None:
        delay = max(delay, error.retry_delay)
    return delay if delay < deadline.remaining() else None
