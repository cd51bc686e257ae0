"""How many HTTP/1.1 connections a REST transport keeps: one type for the sync and async pools."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class PoolLimits:
    """The connection-pool limits of the REST transports, per origin.

    `max_connections` bounds the connections open at once: further calls wait for one to be
    free, within their own timeout (then `DeadlineExceeded`). `max_idle` bounds those kept
    open between calls for reuse. gRPC multiplexes calls over one HTTP/2 connection and has
    no pool.

    Example:
        >>> PoolLimits(max_connections=8).max_idle
        100
        >>> PoolLimits(max_connections=0)
        Traceback (most recent call last):
        ...
        ValueError: PoolLimits.max_connections must be at least 1, got 0
    """

    max_connections: int = 100
    max_idle: int = 100

    def __post_init__(self) -> None:
        if not isinstance(self.max_connections, int) or self.max_connections < 1:
            raise ValueError(
                f"PoolLimits.max_connections must be at least 1, got {self.max_connections!r}"
            )
        if not isinstance(self.max_idle, int) or self.max_idle < 0:
            raise ValueError(f"PoolLimits.max_idle must be 0 or more, got {self.max_idle!r}")
