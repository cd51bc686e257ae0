"""The request journal: the last calls the emulator received, so a test can check what was sent.

The one place the emulator keeps request bodies, in memory only, bounded by count and by
size (oldest first out), and served only where the admin API is. Metadata is kept with its
secrets removed: credentials' headers are redacted whole, and every other value goes through
`scrub_secrets`. Entries are plain data (`Entry`), so `serve --workers N` can keep one journal
for all its workers in a manager process.
"""

from __future__ import annotations

import datetime
import functools
import threading
from collections import deque
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from google.protobuf import json_format

from groundwire.core.apis import Method, all_methods
from groundwire.core.scrubber import REDACTED, scrub_secrets

if TYPE_CHECKING:
    from groundwire.emulator.answering import Call

DEFAULT_MAX_REQUESTS = 1000
DEFAULT_MAX_BYTES = 64 * 1024 * 1024

SECRET_HEADERS = frozenset(
    {
        "authorization",
        "proxy-authorization",
        "cookie",
        "set-cookie",
        "x-goog-api-key",
        "x-goog-iam-authorization-token",
        "x-api-key",
    }
)
"""Metadata whose whole value is a credential: kept as `[REDACTED]`."""


@dataclass(frozen=True)
class Entry:
    """One received call, as the journal keeps it: the request as its wire bytes."""

    grpc_path: str
    transport: str
    received: float
    metadata: tuple[tuple[str, str], ...]
    request: bytes
    number: int = 0
    """The entry's place in the journal, from 1, in the order calls were received."""

    def size(self) -> int:
        """The bytes this entry holds, roughly, for the journal's size bound."""
        return len(self.request) + sum(len(key) + len(value) for key, value in self.metadata)

    def to_json(self) -> dict[str, Any]:
        """The entry as the admin API shows it, the request in Google's JSON."""
        method = _methods_by_path()[self.grpc_path]
        request = method.request_class.FromString(self.request)
        metadata: dict[str, str] = {}
        for key, value in self.metadata:
            metadata[key] = f"{metadata[key]}, {value}" if key in metadata else value
        received = datetime.datetime.fromtimestamp(self.received, datetime.UTC)
        return {
            "number": self.number,
            "method": method.name,
            "grpcMethod": self.grpc_path.lstrip("/"),
            "api": method.api,
            "version": method.version,
            "transport": self.transport,
            "time": received.isoformat(timespec="milliseconds").replace("+00:00", "Z"),
            "metadata": metadata,
            "request": json_format.MessageToDict(request),
        }


def entry_for(call: Call) -> Entry:
    """The journal's entry for `call`, its metadata scrubbed of secrets.

    Example:
        >>> from groundwire.core.apis import method
        >>> from groundwire.emulator.answering import Call
        >>> check = method("discoveryengine", "v1", "CheckGrounding")
        >>> call = Call(check, check.request_class(), "grpc", (("authorization", "Bearer x"),))
        >>> entry_for(call).metadata
        (('authorization', '[REDACTED]'),)
    """
    return Entry(
        call.method.grpc_path,
        call.transport,
        call.received,
        scrub_metadata(call.metadata),
        call.request.SerializeToString(),
    )


def scrub_metadata(metadata: tuple[tuple[str, str], ...]) -> tuple[tuple[str, str], ...]:
    """`metadata` with credentials' headers redacted and secrets removed from the others.

    Example:
        >>> scrub_metadata((("x-trace", "token=abc123"), ("cookie", "session=1")))
        (('x-trace', 'token=[REDACTED]'), ('cookie', '[REDACTED]'))
    """
    return tuple(
        (key, REDACTED if key.lower() in SECRET_HEADERS else scrub_secrets(value))
        for key, value in metadata
    )


class Journal:
    """The last `max_requests` calls, holding at most `max_bytes`; safe across threads.

    Example:
        >>> journal = Journal(max_requests=2)
        >>> for number in range(3):
        ...     journal.add(Entry("/p/Check", "rest", 0.0, (), b"x" * number))
        >>> [entry.number for entry in journal.entries()]
        [2, 3]
    """

    def __init__(
        self, max_requests: int = DEFAULT_MAX_REQUESTS, max_bytes: int = DEFAULT_MAX_BYTES
    ) -> None:
        self.max_requests = max_requests
        self.max_bytes = max_bytes
        self._entries: deque[Entry] = deque()
        self._held = 0
        self._counted = 0
        self._lock = threading.Lock()

    def add_call(self, call: Call) -> None:
        """Keeps `call`, scrubbed (what `answering.Switchboard` calls)."""
        self.add(entry_for(call))

    def add(self, entry: Entry) -> None:
        """Keeps `entry`, numbered, dropping the oldest entries past either bound."""
        with self._lock:
            self._counted += 1
            numbered = Entry(
                entry.grpc_path,
                entry.transport,
                entry.received,
                entry.metadata,
                entry.request,
                self._counted,
            )
            self._entries.append(numbered)
            self._held += numbered.size()
            while self._entries and (
                len(self._entries) > self.max_requests or self._held > self.max_bytes
            ):
                self._held -= self._entries.popleft().size()

    def entries(self, method: str | None = None, after: int = 0) -> list[Entry]:
        """The entries kept, oldest first: of `method` (any name), numbered past `after`."""
        with self._lock:
            kept = list(self._entries)
        return [
            entry
            for entry in kept
            if entry.number > after and (method is None or _names(entry.grpc_path, method))
        ]

    def to_json(self, method: str | None = None, after: int = 0) -> list[dict[str, Any]]:
        """`entries` as the admin API shows them."""
        return [entry.to_json() for entry in self.entries(method, after)]

    def last_number(self) -> int:
        """The number of the last call kept so far (0 before any)."""
        with self._lock:
            return self._counted

    def clear(self) -> None:
        """Forgets every entry (numbering goes on)."""
        with self._lock:
            self._entries.clear()
            self._held = 0


def _names(grpc_path: str, method: str) -> bool:
    """Whether `method` (`CheckGrounding`, or a full gRPC name) names `grpc_path`."""
    if "/" in method:
        return grpc_path.lstrip("/") == method.lstrip("/")
    return grpc_path.rpartition("/")[2] == method


@functools.cache
def _methods_by_path() -> dict[str, Method]:
    return {method.grpc_path: method for method in all_methods()}
