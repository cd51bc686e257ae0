"""How much the emulator's servers give one client: time, connections, streams and bytes.

A slow or hostile client (a stalled upload, a silent connection, an idle stream) must not
stop the emulator from answering everyone else, so every wait on a client is bounded and
every resource it holds is capped. The defaults are a production server's.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

DEFAULT_JUDGE_TIMEOUT = 30.0
"""Seconds a judge has to score one request's claims (``--judge-timeout``)."""
DEFAULT_JUDGE_CONCURRENCY = 4
"""Judge calls in flight at once in one process (``--judge-concurrency``)."""

MAX_BODY_BYTES = 32 * 1024 * 1024
"""Bodies above this are refused; the largest legal request needs about 12 MiB of JSON."""

MAX_REQUEST_VALUES = 100_000
"""The most fields (gRPC) or JSON values (REST) the emulator reads in one request body; a
request holding more is refused before it is built. The largest legal request holds a few
thousand: 200 facts with their attributes."""


@dataclass(frozen=True)
class Limits:
    """The bounds both servers hold every client to; each one is configurable.

    REST: a request's head must arrive within `header_timeout` seconds and its body within
    `body_timeout` (else 408); a keep-alive connection idle for `idle_timeout` is closed; a
    reply the client does not read for `write_timeout` is abandoned. Reading heads and bodies
    takes no handler slot: only `max_concurrent_requests` requests are handled at once, and
    bodies buffered at once share `max_buffered_body_bytes`. At most `max_connections` are
    open at once, `max_connections_per_peer` of them from one address; at either cap the
    oldest idle connection is closed for a new one, which is answered 429 only if none is idle.

    gRPC: a unary call that has not received its request within `request_timeout` is ended
    with DEADLINE_EXCEEDED, and at most `max_waiting_requests` wait at once. At most
    `max_streams` streams are open at once and `max_rpcs` calls are served, streams included
    (beyond either, RESOURCE_EXHAUSTED at once), so streams never take the room of unary
    calls; health checks always have room. A stream that sends no request for
    `stream_idle_timeout` seconds, or reads no reply for `write_timeout`, is ended with
    DEADLINE_EXCEEDED.

    Example:
        >>> Limits(header_timeout=2.0).max_connections
        1024
    """

    header_timeout: float = 10.0
    body_timeout: float = 30.0
    idle_timeout: float = 60.0
    write_timeout: float = 30.0
    max_connections: int = 1024
    max_connections_per_peer: int = 256
    max_concurrent_requests: int = 32
    max_body_bytes: int = MAX_BODY_BYTES
    max_buffered_body_bytes: int = 1024 * 1024 * 1024
    max_streams: int = 256
    max_rpcs: int = 1024
    stream_idle_timeout: float = 60.0
    request_timeout: float = 10.0
    max_waiting_requests: int = 256

    def __post_init__(self) -> None:
        for field in fields(self):
            value = getattr(self, field.name)
            if not value > 0:
                raise ValueError(f"{field.name} must be positive, not {value!r}")
        if self.max_streams >= self.max_rpcs:
            raise ValueError(
                f"max_streams ({self.max_streams}) must be below max_rpcs ({self.max_rpcs}), "
                "so that unary calls and health checks keep room"
            )
        if self.max_buffered_body_bytes < self.max_body_bytes:
            raise ValueError("max_buffered_body_bytes must hold at least one max_body_bytes body")
