"""The threads behind `GroundingClient.check_grounding_many`: bounded, ordered, adaptive.

Every decision is `groundwire.features.batch`'s; this module only waits. Each attempt is one call
with `retry=None`, so that the batch sees every outcome and adapts its concurrency.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent import futures
from typing import Any, TypeVar

from groundwire.contract import calls
from groundwire.contract.errors import GroundwireError
from groundwire.contract.metadata import MetadataLike
from groundwire.features.batch import BatchOutcome, Engine, ItemAttempts, Many, Stopped

__all__ = ["Batch", "BatchOutcome"]

ResultT = TypeVar("ResultT")

SendAttempt = Callable[[calls.Call[Any], float, "MetadataLike | None"], Any]


class Batch(Engine[ResultT]):
    """The outcomes of a batch, one per input, in input order; iterate over it once.

    It reads its input lazily, holding at most twice `concurrency` inputs and outcomes at
    once. `concurrency` is the current window (lowered while the server throttles, raised
    again while calls succeed); `throttled_seconds` is the time items waited before retries
    the server asked for by throttling. Iterating raises `Unavailable` when the endpoint
    made no connection `max_connection_failures` times in a row. `close()` (or leaving a
    `with` block) stops the batch: no item starts after it.
    """

    def __init__(self, many: Many[ResultT], send: SendAttempt) -> None:
        super().__init__(many, send)
        self._items = iter(many.items)
        self._stopped = threading.Event()
        self._changed = threading.Condition()
        self._pool = futures.ThreadPoolExecutor(
            many.settings.concurrency, thread_name_prefix="groundwire-batch"
        )

    def __iter__(self) -> Batch[ResultT]:
        return self

    def __next__(self) -> BatchOutcome[ResultT]:
        self._read_ahead()
        if not self._pending:
            self.close()
            raise StopIteration
        head = self._pending.popleft()
        try:
            result: BatchOutcome[ResultT] = head.result()
            return result
        except Stopped:
            self.close()
            if self._state.dead is not None:
                raise self._state.dead from None
            raise StopIteration from None

    def _read_ahead(self) -> None:
        while self._reading() and not self._stopped.is_set():
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

    def _do(self, index: int, item: object) -> BatchOutcome[ResultT]:
        plan = self._item(index, item)
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
        """Wakes the workers waiting for a slot; stops the batch once the endpoint is dead."""
        if self._state.dead is not None:
            self._stopped.set()
        with self._changed:
            self._changed.notify_all()

    def _check_running(self) -> None:
        if self._stopped.is_set():
            raise Stopped

    def _sleep(self, seconds: float) -> None:
        if seconds > 0 and self._stopped.wait(seconds):
            raise Stopped
