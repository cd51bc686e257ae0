"""The tasks behind `AsyncGroundingClient.check_grounding_many`: the sync batch's twin.

Every decision is `groundwire.core.batch`'s, as for `groundwire.batch.Batch`; here the
waiting is asyncio's: one task per pending item, at most twice `concurrency` of them.
"""

from __future__ import annotations

import asyncio
import collections
import random
import time
from collections.abc import AsyncIterable, AsyncIterator, Awaitable, Callable, Iterable
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
from groundwire.core.unreachable import dead_endpoint
from groundwire.transports.base import as_async_iterator

__all__ = ["AsyncBatch", "BatchOutcome"]

ResultT = TypeVar("ResultT")

SendAttempt = Callable[[calls.Call[Any], float, "MetadataLike | None"], Awaitable[Any]]
"""Sends one attempt of a planned call with a timeout and metadata; returns its result."""


class _Stopped(Exception):
    """Raised inside a task when the batch has ended (closed, or its endpoint dead)."""


class AsyncBatch(Generic[ResultT]):
    """The outcomes of an async batch, one per input, in input order (`async for`).

    The same as `groundwire.batch.Batch`, awaited: it reads its input (an iterable or an
    async iterable) lazily, runs at most `concurrency` items at once on the running event
    loop, and exposes `concurrency` and `throttled_seconds`. `aclose()` (or leaving an
    `async with` block) cancels what is in progress.
    """

    def __init__(
        self,
        items: Iterable[object] | AsyncIterable[object],
        plan: Callable[[object], Planned],
        send: SendAttempt,
        settings: BatchSettings,
        where: str,
    ) -> None:
        self._items: AsyncIterator[Any] = as_async_iterator(items)  # type: ignore[arg-type]
        self._plan = plan
        self._send = send
        self._settings = settings
        self._where = where
        self._state = BatchState(settings)
        self._changed: asyncio.Condition | None = None
        self._stopped = False
        self._pending: collections.deque[asyncio.Task[BatchOutcome[ResultT]]] = collections.deque()
        self._next_index = 0
        self._exhausted = False
        self._random = random.Random()

    @property
    def concurrency(self) -> int:
        """How many items may be in progress at once right now (the adaptive window)."""
        return self._state.throttle.concurrency

    @property
    def throttled_seconds(self) -> float:
        """Seconds items waited, summed, before retrying a RESOURCE_EXHAUSTED (429)."""
        return self._state.throttled_seconds

    def __aiter__(self) -> AsyncBatch[ResultT]:
        return self

    async def __anext__(self) -> BatchOutcome[ResultT]:
        await self._read_ahead()
        if not self._pending:
            await self.aclose()
            raise StopAsyncIteration
        head = self._pending.popleft()
        try:
            return await head
        except _Stopped:
            await self.aclose()
            if self._state.dead is not None:
                raise self._state.dead from None
            raise StopAsyncIteration from None

    async def _read_ahead(self) -> None:
        while not self._exhausted and len(self._pending) < self._settings.read_ahead:
            if self._stopped:
                return
            try:
                item = await anext(self._items)
            except StopAsyncIteration:
                self._exhausted = True
                return
            self._pending.append(asyncio.ensure_future(self._do(self._next_index, item)))
            self._next_index += 1

    async def aclose(self) -> None:
        """Stops the batch: cancels the items in progress and drops those not started."""
        self._stopped = True
        pending, self._pending = list(self._pending), collections.deque()
        for task in pending:
            task.cancel()
        await asyncio.gather(*pending, return_exceptions=True)
        if self._changed is not None:
            async with self._changed:
                self._changed.notify_all()

    async def __aenter__(self) -> AsyncBatch[ResultT]:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    # -- one item, in a task ---------------------------------------------------------------

    def _condition(self) -> asyncio.Condition:
        if self._changed is None:  # made on the loop that runs the batch
            self._changed = asyncio.Condition()
        return self._changed

    async def _do(self, index: int, item: object) -> BatchOutcome[ResultT]:
        try:
            planned = self._plan(item)
        except GroundwireError as error:
            return BatchOutcome(index, None, error, 0, item_id(item))
        changed = self._condition()
        async with changed:
            while not self._state.may_start():
                self._check_running()
                await changed.wait()
            self._check_running()
            wait = self._state.start(time.monotonic())
        try:
            await self._sleep(wait)
            return await self._attempts(index, planned)
        finally:
            self._state.finish()
            async with changed:
                changed.notify_all()

    async def _attempts(self, index: int, planned: Planned) -> BatchOutcome[ResultT]:
        settings = self._settings
        attempts = Attempts.unobserved(settings.retry, settings.timeout, self._random)
        while True:
            started = time.monotonic()
            try:
                result = await self._send(planned.call, attempts.start(None), settings.metadata)
            except GroundwireError as error:
                await self._attempted(error, started)
                delay = attempts.retry_after(error)
                if delay is None:
                    return BatchOutcome(index, None, error, attempts.attempts, planned.id)
                self._state.waited(error, delay)
                await self._sleep(delay)
                await self._sleep(self._state.pace(time.monotonic()))
            else:
                await self._attempted(None, started)
                return BatchOutcome(index, result, None, attempts.attempts, planned.id)

    async def _attempted(self, error: GroundwireError | None, started: float) -> None:
        connected = error is None or error.connected
        dead = self._state.attempted(
            error, connected=connected, started_at=started, now=time.monotonic()
        )
        if dead and self._state.dead is None and error is not None:
            self._state.dead = dead_endpoint(
                self._where, self._state.watch.consecutive_failures, error
            )
            self._stopped = True
        changed = self._condition()
        async with changed:
            changed.notify_all()
        self._check_running()

    def _check_running(self) -> None:
        if self._stopped:
            raise _Stopped

    async def _sleep(self, seconds: float) -> None:
        """Sleeps, ending early (with `_Stopped`) when the batch stops."""
        if seconds > 0:
            await asyncio.sleep(seconds)
        self._check_running()
