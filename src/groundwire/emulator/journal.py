"""The request journal: the last calls the emulator received, so a test can check what was sent.

The one place the emulator keeps request bodies, in memory only, bounded by count and by
the bytes its entries take in memory (oldest first out), and served only where the admin API
is. Metadata is kept with its secrets removed: credentials' headers are redacted whole, and
every other value goes through `scrub_secrets`; past `MAX_HEADERS` headers or
`MAX_HEADER_BYTES` of them, the rest of a call's metadata is dropped and its entry marked
truncated. Entries are plain data (`Entry`), so `serve --workers N` can keep one journal for
all its workers in a manager process. The admin API reads it a page at a time (`Journal.page`).
"""

from __future__ import annotations

import datetime
import functools
import sys
import threading
from collections import deque
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from google.protobuf import json_format

from groundwire.contract.apis import Method, all_methods
from groundwire.contract.scrubber import REDACTED, scrub_secrets

if TYPE_CHECKING:
    from groundwire.emulator.answering import Call

DEFAULT_MAX_REQUESTS = 1000
DEFAULT_MAX_BYTES = 64 * 1024 * 1024
MAX_HEADERS = 100
"""Headers (gRPC metadata) kept per call; a client sends a dozen or two."""
MAX_HEADER_BYTES = 16 * 1024
"""Characters of header names and values kept per call."""
PAGE_ENTRIES = 1000
"""The most entries one page of the journal shows (the default journal holds no more)."""
PAGE_BYTES = 16 * 1024 * 1024
"""The most bytes (`Entry.size`) of entries one page shows; a page shows at least one."""

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


@dataclass(frozen=True, slots=True)
class Entry:
    """One received call, as the journal keeps it: the request as its wire bytes."""

    grpc_path: str
    transport: str
    received: float
    metadata: tuple[tuple[str, str], ...]
    request: bytes
    number: int = 0
    """The entry's place in the journal, from 1, in the order calls were received."""
    truncated: bool = False
    """Whether headers past `MAX_HEADERS` or `MAX_HEADER_BYTES` were dropped."""

    def size(self) -> int:
        """The bytes this entry takes in memory, for the journal's bound.

        `sys.getsizeof` of the entry and of every object it holds: its strings, the request's
        bytes, the metadata's tuples and each of their strings (a string two entries share
        is counted in each, so the sum errs high).

        Example:
            >>> Entry("/p/Check", "rest", 0.0, (), b"x" * 1000).size() > 1000
            True
        """
        held = sum(sys.getsizeof(part) for part in (self, self.grpc_path, self.transport))
        held += sys.getsizeof(self.received) + sys.getsizeof(self.request)
        held += sys.getsizeof(self.metadata)
        for pair in self.metadata:
            held += sys.getsizeof(pair) + sys.getsizeof(pair[0]) + sys.getsizeof(pair[1])
        return held

    def to_json(self) -> dict[str, Any]:
        """The entry as the admin API shows it, the request in Google's JSON."""
        method = _methods_by_path()[self.grpc_path]
        request = method.request_class.FromString(self.request)
        values: dict[str, list[str]] = {}
        for key, value in self.metadata:
            values.setdefault(key, []).append(value)
        metadata = {key: ", ".join(kept) for key, kept in values.items()}
        received = datetime.datetime.fromtimestamp(self.received, datetime.UTC)
        shown: dict[str, Any] = {"metadataTruncated": True} if self.truncated else {}
        return {
            "number": self.number,
            "method": method.name,
            "grpcMethod": self.grpc_path.lstrip("/"),
            "api": method.api,
            "version": method.version,
            "transport": self.transport,
            "time": received.isoformat(timespec="milliseconds").replace("+00:00", "Z"),
            "metadata": metadata,
            **shown,
            "request": json_format.MessageToDict(request),
        }


def entry_for(call: Call) -> Entry:
    """The journal's entry for `call`, its metadata bounded and scrubbed of secrets.

    Example:
        >>> from groundwire.contract.apis import method
        >>> from groundwire.emulator.answering import Call
        >>> check = method("discoveryengine", "v1", "CheckGrounding")
        >>> call = Call(check, check.request_class(), "grpc", (("authorization", "Bearer x"),))
        >>> entry_for(call).metadata
        (('authorization', '[REDACTED]'),)
    """
    metadata, truncated = bounded_metadata(call.metadata)
    return Entry(
        call.method.grpc_path,
        call.transport,
        call.received,
        scrub_metadata(metadata),
        call.request.SerializeToString(),
        truncated=truncated,
    )


def bounded_metadata(
    metadata: tuple[tuple[str, str], ...],
) -> tuple[tuple[tuple[str, str], ...], bool]:
    """The first headers of `metadata` within both bounds, and whether any were dropped.

    The bounds are `MAX_HEADERS` headers and `MAX_HEADER_BYTES` characters of them.

    Example:
        >>> kept, truncated = bounded_metadata((("x-a", "1"),) * 150)
        >>> len(kept), truncated
        (100, True)
    """
    room = MAX_HEADER_BYTES
    for count, (key, value) in enumerate(metadata[: MAX_HEADERS + 1]):
        room -= len(key) + len(value)
        if room < 0 or count == MAX_HEADERS:
            return metadata[:count], True
    return metadata, False


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
                entry.truncated,
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

    def page(
        self, method: str | None = None, after: int = 0, size: int = PAGE_ENTRIES
    ) -> dict[str, Any]:
        """One page of `entries`, as the admin API shows it.

        `requests`: at most `size` entries and `PAGE_BYTES` of them (at least one), oldest
        first; `last`: the number of the last call received; `nextPageToken`, only when more
        entries follow: pass it back as `after` (the admin API's `pageToken`) for the next.

        Example:
            >>> from groundwire.contract.apis import method
            >>> check = method("discoveryengine", "v1", "CheckGrounding").grpc_path
            >>> journal = Journal()
            >>> for number in range(3):
            ...     journal.add(Entry(check, "rest", 0.0, (), b""))
            >>> page = journal.page(size=2)
            >>> [entry["number"] for entry in page["requests"]], page["nextPageToken"]
            ([1, 2], '2')
        """
        with self._lock:
            last = self._counted
        shown: list[Entry] = []
        held = 0
        selected = self.entries(method, after)
        for entry in selected:
            held += entry.size()
            if len(shown) == size or (shown and held > PAGE_BYTES):
                break
            shown.append(entry)
        page: dict[str, Any] = {
            "requests": [entry.to_json() for entry in shown],
            "last": last,
        }
        if len(shown) < len(selected):
            page["nextPageToken"] = str(shown[-1].number)
        return page

    def held_bytes(self) -> int:
        """The bytes (`Entry.size`) the entries kept take in memory; at most `max_bytes`."""
        with self._lock:
            return self._held

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
