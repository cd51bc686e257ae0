"""How fast a batch may go: a token bucket, an AIMD concurrency window, a dead-endpoint watch.

Pure bookkeeping with the time passed in; `groundwire.features.batch.BatchState` holds them. Also
the checked concurrency, and why an endpoint took no connection (for the batches and the CLI).
"""

from __future__ import annotations

import math
import urllib.parse

from groundwire.contract.addresses import is_loopback, is_loopback_target
from groundwire.contract.errors import ConfigurationError, Unavailable


class TokenBucket:
    """Lets requests through at `rate` per second on average, first come, first served.

    Example:
        >>> bucket = TokenBucket(5.0)
        >>> [bucket.reserve(now=0.0) for _ in range(3)]
        [0.0, 0.2, 0.4]
    """

    def __init__(self, rate: float) -> None:
        self.rate = rate
        self._tokens = 1.0
        self._updated: float | None = None

    def reserve(self, now: float) -> float:
        """Takes a token at time `now`; returns the seconds to wait before sending."""
        if self._updated is not None:
            self._tokens = min(1.0, self._tokens + (now - self._updated) * self.rate)
        self._updated = now
        self._tokens -= 1
        return 0.0 if self._tokens >= 0 else -self._tokens / self.rate


class Throttle:
    """A batch's concurrency window (AIMD, as TCP): halved when throttled, regrown on success.

    A full window of successes adds one, up to `maximum`; a throttled attempt halves it, down
    to 1, unless it started before the last decrease (sent under the larger window).

    Example:
        >>> throttle = Throttle(16)
        >>> throttle.throttled(started_at=1.0, now=2.0), throttle.concurrency
        (True, 8)
        >>> throttle.throttled(started_at=1.5, now=2.1), throttle.concurrency
        (False, 8)
        >>> for _ in range(9):
        ...     throttle.succeeded()
        >>> throttle.concurrency
        9
    """

    def __init__(self, maximum: int) -> None:
        self.maximum = maximum
        self._window = float(maximum)
        self._decreased_at = -math.inf

    @property
    def concurrency(self) -> int:
        """How many items may be in progress at once right now."""
        return max(1, int(self._window + 1e-9))

    def succeeded(self) -> None:
        """Records an attempt the server answered: the window grows by `1/window`."""
        self._window = min(float(self.maximum), self._window + 1.0 / self._window)

    def throttled(self, started_at: float, now: float) -> bool:
        """Records a throttled attempt sent at `started_at`; True when the window shrank."""
        if started_at < self._decreased_at:
            return False
        self._window = max(1.0, self._window / 2)
        self._decreased_at = now
        return True


class ReachabilityWatch:
    """Counts attempts in a row that made no connection; says when the endpoint is dead.

    An attempt that reached the server resets the count; `limit` None never calls it dead.

    Example:
        >>> watch = ReachabilityWatch(3)
        >>> [watch.attempted(connected=False) for _ in range(3)]
        [False, False, True]
        >>> watch.attempted(connected=True), watch.consecutive_failures
        (False, 0)
    """

    def __init__(self, limit: int | None) -> None:
        if limit is not None and limit < 1:
            raise ValueError(f"max_connection_failures must be at least 1 or None, not {limit!r}")
        self.limit = limit
        self.consecutive_failures = 0

    def attempted(self, *, connected: bool) -> bool:
        """Records one attempt; True when `limit` attempts in a row made no connection."""
        if connected:
            self.consecutive_failures = 0
            return False
        self.consecutive_failures += 1
        return self.limit is not None and self.consecutive_failures >= self.limit


def check_concurrency(concurrency: object) -> None:
    """A ConfigurationError unless `concurrency` is a whole number >= 1."""
    if not isinstance(concurrency, int) or concurrency < 1:
        raise ConfigurationError(f"concurrency must be a whole number >= 1, not {concurrency!r}")


def cannot_reach(where: str, detail: str) -> Unavailable:
    """The error for an endpoint that takes no connection: it names it and what to check.

    Example:
        >>> str(cannot_reach("http://127.0.0.1:8080", "refused"))
        'UNAVAILABLE: cannot reach http://127.0.0.1:8080; is `groundwire serve` running? (refused)'
        >>> str(cannot_reach("https://127.0.0.1:8080", "wrong version number")).split("; ")[1]
        '`groundwire serve` speaks plain HTTP: for the emulator use http://127.0.0.1:8080 (...)'
    """
    if _on_loopback(where) and where.lower().startswith("https://"):
        plain = "http://" + where[len("https://") :]
        hint = f"`groundwire serve` speaks plain HTTP: for the emulator use {plain}"
    elif _on_loopback(where):
        hint = "is `groundwire serve` running?"
    else:
        hint = "check the endpoint and the network"
    return Unavailable(f"cannot reach {where}; {hint} ({detail})")


def _on_loopback(where: str) -> bool:
    if "://" in where:
        return is_loopback(urllib.parse.urlsplit(where).hostname or "")
    return is_loopback_target(where)
