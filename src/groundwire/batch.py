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
from collections.abc import Callable
from concurrent import futures
from typing import Any, Generic, TypeVar

from groundwire.core import calls
from groundwire.core.batch import BatchOutcome, BatchState, ItemAttempts, Many
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

    def __init__(self, many: Many[ResultT], send: SendAttempt) -> None:
        self._stopped = threading.Event()
        self._items = iter(many.items)
        self._many = many
        self._send = send
        self._state = BatchState(many.settings, many.where)
        self._changed = threading.Condition()
        self._pool = futures.ThreadPoolExecutor(
            many.settings.concurrency, thread_name_prefix="groundwire-batch"
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
        return self._state.throttle.concurrency

    @property
    def throttled_seconds(self) -> float:
        """Seconds items waited, summed, before retrying a RESOURCE_EXHAUSTED (429)."""
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
        while not self._exhausted and len(self._pending) < self._many.settings.read_ahead:
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

    # -- one item, in a worker thread: the waiting its `ItemAttempts` asks for -------------

    def _do(self, index: int, item: object) -> BatchOutcome[ResultT]:
        plan = self._state.item(index, item, self._many.plan, self._random)
        if isinstance(plan, BatchOutcome):
            return plan
        with self._changed:
            while not self._state.may_start():
                self._check_running()
                self._changed.wait()
            self._check_running()
            wait = self._state.start(self._state.clock())
        try:
            self._sleep(wait)
            return self._attempts(plan)
        finally:
            self._state.finish()
            self._notify()

    def _attempts(self, plan: ItemAttempts) -> BatchOutcome[ResultT]:
        metadata = self._many.settings.metadata
        while True:
            outcome: float | BatchOutcome[ResultT]
            try:
                outcome = plan.succeeded(self._send(plan.planned.call, plan.begin(), metadata))
            except GroundwireError as error:
                outcome = plan.failed(error)
            self._notify()
            self._check_running()
            if isinstance(outcome, BatchOutcome):
                return outcome
            self._sleep(outcome)
            self._sleep(plan.pace())

    def _notify(self) -> None:
        """Wakes the workers waiting for a slot; stops the batch once its endpoint is dead."""
        if self._state.dead is not None:
            self._stopped.set()
        with self._changed:
            self._changed.notify_all()

    def _check_running(self) -> None:
        if self._stopped.is_set():
            raise _Stopped

    def _sleep(self, seconds: float) -> None:
        if seconds > 0 and self._stopped.wait(seconds):
            raise _Stopped
