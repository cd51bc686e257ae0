"""A token bucket, so a batch sends at most so many requests per second whatever its concurrency."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable


class TokenBucket:
    """Lets callers through at `rate` per second on average, at most `capacity` at once.

    Safe to share between threads. Each call to `acquire` takes one token, waiting for it if
    needed; tokens are reserved in order, so waiting callers are served first come, first
    served. `clock` and `sleep` are replaceable for tests.

    >>> now = [0.0]
    >>> bucket = TokenBucket(5, clock=lambda: now[0], sleep=lambda s: None)
    >>> [bucket.reserve() for _ in range(3)]
    [0.0, 0.2, 0.4]
    """

    def __init__(
        self,
        rate: float,
        capacity: float = 1.0,
        *,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        if not rate > 0:
            raise ValueError(f"rate must be positive, got {rate!r}")
        if not capacity >= 1:
            raise ValueError(f"capacity must be at least 1, got {capacity!r}")
        self.rate = rate
        self.capacity = capacity
        self._clock = clock
        self._sleep = sleep
        self._tokens = capacity
        self._updated = clock()
        self._lock = threading.Lock()

    def reserve(self) -> float:
        """Takes a token; returns how many seconds the caller must wait before using it."""
        with self._lock:
            now = self._clock()
            self._tokens = min(self.capacity, self._tokens + (now - self._updated) * self.rate)
            self._updated = now
            self._tokens -= 1
            return 0.0 if self._tokens >= 0 else -self._tokens / self.rate

    def acquire(self) -> None:
        """Waits until the caller may send one request."""
        wait = self.reserve()
        if wait > 0:
            self._sleep(wait)
