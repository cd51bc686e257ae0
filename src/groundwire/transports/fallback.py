"""When to use gRPC and when REST, as a pure state machine; the auto transport does the calling.

Some networks cannot carry gRPC (a proxy without HTTP/2, a firewall that breaks ALPN); a
failure sent by a reachable server never causes a switch.
"""

from __future__ import annotations


class FallbackState:
    """gRPC first; REST for `cooldown` seconds after gRPC could not connect.

    The caller passes the times, in seconds of any monotonic clock.

    Example:
        >>> state = FallbackState(cooldown=60.0)
        >>> state.record_connection_failure(now=0.0)  # switches to REST: log it
        True
        >>> state.prefer_grpc(now=30.0), state.prefer_grpc(now=60.0)
        (False, True)
    """

    __slots__ = ("_cooldown", "_rest_until")

    def __init__(self, cooldown: float) -> None:
        if cooldown < 0:
            raise ValueError("cooldown must be >= 0 seconds")
        self._cooldown = cooldown
        self._rest_until: float | None = None

    @property
    def on_rest(self) -> bool:
        """Whether the last attempt over gRPC could not connect (REST is in use)."""
        return self._rest_until is not None

    def prefer_grpc(self, now: float) -> bool:
        """Whether a call starting at `now` should try gRPC first."""
        rest_until = self._rest_until
        return rest_until is None or now >= rest_until

    def record_connection_failure(self, now: float) -> bool:
        """Notes that gRPC could not connect at `now`; True when this switches to REST."""
        switched = self._rest_until is None
        self._rest_until = now + self._cooldown
        return switched

    def record_grpc_success(self) -> bool:
        """Notes that a gRPC call connected; True when this switches back from REST."""
        switched = self._rest_until is not None
        self._rest_until = None
        return switched
