"""The tasks behind `AsyncGroundingClient.check_grounding_many`: the sync batch's twin."""

from __future__ import annotations

import asyncio
import collections
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, TypeVar

from groundwire.contract import calls
from groundwire.contract.errors import GroundwireError
from groundwire.contract.metadata import MetadataLike
from groundwire.features.batch import BatchOutcome, Engine, ItemAttempts, Many, Stopped
from groundwire.transports.base import as_async_iterator

__all__ = ["AsyncBatch", "BatchOutcome"]

ResultT = TypeVar("ResultT")

SendAttempt = Callable[[calls.Call[Any], float, "MetadataLike | None"], Awaitable[Any]]


class AsyncBatch(Engine[ResultT]):
    """The outcomes of an async batch, one per input, in input order (`async for`).

    The same as `groundwire.batch.Batch`, awaited: it reads its input (an iterable or an
    async iterable) lazily, runs at most `concurrency` items at once on the running event
    loop, and exposes `concurrency` and `throttled_seconds`. `aclose()` (or leaving an
    `async with` block) cancels what is in progress.
    """

    def __init__(self, many: Many[ResultT], send: SendAttempt) -> None:
        super().__init__(many, send)
        self._items: AsyncIterator[Any] = as_async_iterator(many.items)
        self._changed = asyncio.Condition()  # bound to the loop that first waits on it
        self._stopped = False

    def __aiter__(self) -> AsyncBatch[ResultT]:
        return self

    async def __anext__(self) -> BatchOutcome[ResultT]:
        await self._read_ahead()
        if not self._pending:
            await self.aclose()
            raise StopAsyncIteration
        head = self._pending.popleft()
        try:
            result: BatchOutcome[ResultT] = await head
            return result
        except Stopped:
            await self.aclose()
            if self._state.dead is not None:
                raise self._state.dead from None
            raise StopAsyncIteration from None

    async def _read_ahead(self) -> None:
        while self._reading() and not self._stopped:
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
        await self._notify()

    async def __aenter__(self) -> AsyncBatch[ResultT]:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    async def _do(self, index: int, item: object) -> BatchOutcome[ResultT]:
        plan = self._item(index, item)
        if isinstance(plan, BatchOutcome):
            return plan
        async with self._changed:
            await self._changed.wait_for(self._may_start)
            wait = self._state.start(self._state.clock())
        try:
            await self._sleep(wait)
            return await self._attempts(plan)
        finally:
            self._state.finish()
            await self._notify()

    def _may_start(self) -> bool:
        """Whether the item may take a slot; `Stopped` once the batch has ended."""
        if self._stopped:
            raise Stopped
        return self._state.may_start()

    async def _attempts(self, plan: ItemAttempts) -> BatchOutcome[ResultT]:
        send, metadata = self._send, self._many.settings.metadata
        while True:
            outcome: float | BatchOutcome[ResultT]
            try:
                outcome = plan.succeeded(await send(plan.planned.call, plan.begin(), metadata))
            except GroundwireError as error:
                outcome = plan.failed(error)
            await self._notify()
            if self._stopped:
                raise Stopped
            if isinstance(outcome, BatchOutcome):
                return outcome
            await self._sleep(outcome)
            await self._sleep(plan.pace())

    async def _notify(self) -> None:
        """Wakes the tasks waiting for a slot; stops the batch once the endpoint is dead."""
        self._stopped = self._stopped or self._state.dead is not None
        async with self._changed:
            self._changed.notify_all()

    async def _sleep(self, seconds: float) -> None:
        """Sleeps, then raises `Stopped` if the batch has stopped."""
        if seconds > 0:
            await asyncio.sleep(seconds)
        if self._stopped:
            raise Stopped
