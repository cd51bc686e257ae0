"""The threads behind `GroundingClient.check_grounding_many`: bounded, ordered, adaptive.

Every decision (reading items, the window, the rate, when the endpoint is dead) is
`groundwire.core.batch`'s; this module only waits. The batch does the retries itself: each
attempt is one call made with `retry=None`, so it sees every attempt's outcome and adapts
its concurrency to them. Interceptors therefore see each attempt as a call of its own.
"""

from __future__ import annotations

import collections
import random
import threading
import time
from collections.abc import Callable, Iterable
from concurrent import futures
from typing import Any, Generic, TypeVar

from groundwire.core import calls
from groundwire.core.attempts import Attempts
from groundwire.core.batch import (
    BatchOutcome,
    BatchSettings,
    BatchState,
    Planned,
    item_id,
)
from groundwire.core.errors import GroundwireError
from groundwire.core.metadata import MetadataLike
from groundwire.core.unreachable import cannot_reach, dead_endpoint, endpoint_of

__all__ = ["Batch", "BatchOutcome", "cannot_reach", "dead_endpoint", "endpoint_of"]

ResultT = TypeVar("ResultT")

SendAttempt = Callable[[calls.Call[Any], float, "MetadataLike | None"], Any]
"""Sends one attempt of a planned call with a timeout and metadata; returns its result."""


class _Stopped(Exception):
    """Raised inside a worker when the batch has ended (closed, or its endpoint dead)."""


class Batch(Generic[ResultT]):
    """The outcomes of a batch, one per input, in input order; iterate over it once.

    It reads its input lazily, holding at most twice `concurrency` inputs and outcomes at
    once. `concurrency` is the current window (lowered while the server throttles, raised
    again while calls succeed); `throttled_seconds` is the time items waited before retries
    the server asked for by throttling. Iterating raises `Unavailable` when the endpoint
    made no connection `max_connection_failures` times in a row. `close()` (or leaving a
    `with` block) stops the batch: no item starts after it.
    """

    def __init__(
        self,
        items: Iterable[object],
        plan: Callable[[object], Planned],
        send: SendAttempt,
        settings: BatchSettings,
        where: str,
    ) -> None:
        self._stopped = threading.Event()
        self._items = iter(items)
        self._plan = plan
        self._send = send
        self._settings = settings
        self._where = where
        self._state = BatchState(settings)
        self._changed = threading.Condition()
        self._pool = futures.ThreadPoolExecutor(
            settings.concurrency, thread_name_prefix="groundwire-batch"
        )
        self._pending: collections.deque[futures.Future[BatchOutcome[ResultT]]] = (
            collections.deque()
        )
        self._next_index = 0
        self._exhausted = False
        self._random = random.Random()  # its uniform() is safe to share between threads

    @property
    def concurrency(self) -> int:
        """How many items may be in progress at once right now (the adaptive window)."""
        with self._changed:
            return self._state.throttle.concurrency

    @property
    def throttled_seconds(self) -> float:
        """Seconds items waited, summed, before retrying a RESOURCE_EXHAUSTED (429)."""
        with self._changed:
            return self._state.throttled_seconds

    def __iter__(self) -> Batch[ResultT]:
        return self

    def __next__(self) -> BatchOutcome[ResultT]:
        self._read_ahead()
        if not self._pending:
            self.close()
            raise StopIteration
        head = self._pending.popleft()
        try:
            return head.result()
        except _Stopped:
            self.close()
            if self._state.dead is not None:
                raise self._state.dead from None
            raise StopIteration from None

    def _read_ahead(self) -> None:
        """Submits inputs until `read_ahead` are pending or the input ends."""
        while not self._exhausted and len(self._pending) < self._settings.read_ahead:
            if self._stopped.is_set():
                return
            try:
                item = next(self._items)
            except StopIteration:
                self._exhausted = True
                return
            self._pending.append(self._pool.submit(self._do, self._next_index, item))
            self._next_index += 1

    def close(self) -> None:
        """Stops the batch: items not started are dropped, waits end; in-flight attempts end."""
        self._stopped.set()
        with self._changed:
            self._changed.notify_all()
        self._pool.shutdown(wait=True, cancel_futures=True)
        self._pending.clear()

    def __enter__(self) -> Batch[ResultT]:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def __del__(self) -> None:
        self._stopped.set()

    # -- one item, in a worker thread ------------------------------------------------------

    def _do(self, index: int, item: object) -> BatchOutcome[ResultT]:
        try:
            planned = self._plan(item)
        except GroundwireError as error:
            return BatchOutcome(index, None, error, 0, item_id(item))
        with self._changed:
            while not self._state.may_start():
                self._check_running()
                self._changed.wait()
            self._check_running()
            wait = self._state.start(time.monotonic())
        try:
            self._sleep(wait)
            return self._attempts(index, planned)
        finally:
            with self._changed:
                self._state.finish()
                self._changed.notify_all()

    def _attempts(self, index: int, planned: Planned) -> BatchOutcome[ResultT]:
        settings = self._settings
        attempts = Attempts.unobserved(settings.retry, settings.timeout, self._random)
        while True:
            started = time.monotonic()
            try:
                result = self._send(planned.call, attempts.start(None), settings.metadata)
            except GroundwireError as error:
                self._attempted(error, started)
                delay = attempts.retry_after(error)
                if delay is None:
                    return BatchOutcome(index, None, error, attempts.attempts, planned.id)
                with self._changed:
                    self._state.waited(error, delay)
                self._sleep(delay)
                with self._changed:
                    pace = self._state.pace(time.monotonic())
                self._sleep(pace)
            else:
                self._attempted(None, started)
                return BatchOutcome(index, result, None, attempts.attempts, planned.id)

    def _attempted(self, error: GroundwireError | None, started: float) -> None:
        connected = error is None or error.connected
        with self._changed:
            dead = self._state.attempted(
                error, connected=connected, started_at=started, now=time.monotonic()
            )
            if dead and self._state.dead is None and error is not None:
                self._state.dead = dead_endpoint(
                    self._where, self._state.watch.consecutive_failures, error
                )
                self._stopped.set()
            self._changed.notify_all()
        self._check_running()

    def _check_running(self) -> None:
        if self._stopped.is_set():
            raise _Stopped

    def _sleep(self, seconds: float) -> None:
        if seconds > 0 and self._stopped.wait(seconds):
            raise _Stopped
