"""Grounds a text stream as it arrives: each complete sentence checked, a few at a time, in order.

The decisions live in `groundwire.features.sentence_stream`; the two drivers here hold the few
lines that wait: `GroundingStream` (threads) and `AsyncGroundingStream` (asyncio tasks). Both
read the text no further ahead than `concurrency` checks in flight, yield the checks in the
text's order, and cancel what is in flight when the caller stops early.
"""

from __future__ import annotations

import asyncio
import queue
import threading
from collections.abc import (
    AsyncGenerator,
    AsyncIterable,
    AsyncIterator,
    Awaitable,
    Callable,
    Generator,
    Iterable,
    Iterator,
)
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from groundwire.contract.requests import FactLike
from groundwire.contract.results import CheckGroundingResult
from groundwire.features.pacing import check_concurrency
from groundwire.features.sentence_stream import (
    SentenceCheck,
    SentenceGroup,
    SentenceGroups,
    StreamSummary,
    StreamTally,
    fact_characters,
    sentence_check,
)

DEFAULT_STREAM_CONCURRENCY = 4
"""Checks in flight at once when the caller does not say."""

TextChunks = Iterable[str | bytes]


Checker = Callable[..., CheckGroundingResult]
"""What a sync stream checks with: `GroundingClient.check_grounding`, or any such callable."""

AsyncChecker = Callable[..., Awaitable[CheckGroundingResult]]
"""What an async stream checks with: `AsyncGroundingClient.check_grounding`, or the like."""

CheckerT = TypeVar("CheckerT")
ChunksT = TypeVar("ChunksT")


class _Stream(Generic[CheckerT, ChunksT]):
    """What both streams are made of: `summary`, and their checks run by `_checks`."""

    summary: StreamSummary | None
    """The whole stream's `StreamSummary`, set when the iteration ends (None before)."""

    def __init__(
        self,
        check: CheckerT,
        text_chunks: ChunksT,
        facts: Iterable[FactLike],
        *,
        concurrency: int = DEFAULT_STREAM_CONCURRENCY,
        sentences_per_check: int = 1,
        min_chars: int = 0,
        **options: Any,
    ) -> None:
        """A stream of checks; nothing is read or sent before its first sentence is asked for."""
        check_concurrency(concurrency)
        self.summary = None
        groups = SentenceGroups(sentences_per_check, min_chars)
        self._run = self._checks(check, text_chunks, list(facts), groups, concurrency, options)

    def _checks(self, *arguments: Any) -> Any:
        raise NotImplementedError

    def _finish(self, end: _End, tally: StreamTally) -> None:
        """At the text's end: the reading's error, else the summary is set."""
        if end.error is not None:
            raise end.error
        self.summary = tally.summary()


class GroundingStream(_Stream[Checker, TextChunks], Iterator[SentenceCheck]):
    """The checks of a text stream's sentences, in order; `summary` once it is read to the end.

    Made by `GroundingClient.check_grounding_stream`; `close()` (or leaving a `with` block)
    stops reading, cancels the checks not started and waits for none.
    """

    def __next__(self) -> SentenceCheck:
        """The next sentence's check, waiting for it if needed."""
        return next(self._run)

    def close(self) -> None:
        """Stops: reads no more text, cancels the checks not started."""
        self._run.close()

    def __enter__(self) -> GroundingStream:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def _checks(
        self,
        check: Checker,
        text_chunks: TextChunks,
        facts: list[FactLike],
        groups: SentenceGroups,
        concurrency: int,
        options: dict[str, Any],
    ) -> Generator[SentenceCheck, None, None]:
        tally = StreamTally(fact_characters(facts))
        slots = threading.Semaphore(concurrency)  # a slot: a check sent and not yet yielded
        ready: queue.SimpleQueue[_Checking | _End] = queue.SimpleQueue()
        stop = threading.Event()
        executor = ThreadPoolExecutor(concurrency, thread_name_prefix="groundwire-stream")

        def read() -> None:
            """Reads the text in its own thread, so that a check is yielded while it waits."""
            try:
                for new_groups in _fed(groups, text_chunks):
                    for group in new_groups:
                        slots.acquire()
                        if stop.is_set():
                            return
                        future = executor.submit(check, group.text, facts, **options)
                        ready.put(_Checking(group, future))
                    if stop.is_set():
                        return
                ready.put(_End(None))
            except BaseException as error:  # the caller's to see, in its own thread
                ready.put(_End(error))

        threading.Thread(target=read, name="groundwire-stream-reader", daemon=True).start()
        try:
            while not isinstance(item := ready.get(), _End):
                try:
                    checked = sentence_check(item.group, item.future.result())
                finally:
                    slots.release()
                tally.add(item.group, checked)
                yield checked
            self._finish(item, tally)
        finally:
            stop.set()
            for _ in range(concurrency):
                slots.release()
            executor.shutdown(wait=False, cancel_futures=True)


@dataclass(frozen=True)
class _Checking:
    """A check sent: its group and its result to come."""

    group: SentenceGroup
    future: Future[CheckGroundingResult]


@dataclass(frozen=True)
class _End:
    """The text is read to its end, or its reading failed with `error`."""

    error: BaseException | None


def _fed(groups: SentenceGroups, text_chunks: TextChunks) -> Iterator[list[SentenceGroup]]:
    """The groups each chunk completes, then those the end completes."""
    for chunk in text_chunks:
        yield groups.feed(chunk)
    yield groups.finish()


class AsyncGroundingStream(
    _Stream[AsyncChecker, TextChunks | AsyncIterable[str | bytes]], AsyncIterator[SentenceCheck]
):
    """The asyncio twin of `GroundingStream`: `async for check in stream`, then `summary`.

    Made by `AsyncGroundingClient.check_grounding_stream`; the text may come from an async
    iterable (an LLM's stream) or a plain one. `aclose()` cancels the checks in flight.
    """

    async def __anext__(self) -> SentenceCheck:
        """The next sentence's check, waiting for it if needed."""
        return await self._run.__anext__()

    async def aclose(self) -> None:
        """Stops: reads no more text, cancels the checks in flight."""
        await self._run.aclose()

    async def _checks(
        self,
        check: AsyncChecker,
        text_chunks: TextChunks | AsyncIterable[str | bytes],
        facts: list[FactLike],
        groups: SentenceGroups,
        concurrency: int,
        options: dict[str, Any],
    ) -> AsyncGenerator[SentenceCheck, None]:
        tally = StreamTally(fact_characters(facts))
        slots = asyncio.Semaphore(concurrency)  # a slot: a check sent and not yet yielded
        ready: asyncio.Queue[_AsyncChecking | _End] = asyncio.Queue()
        in_flight: set[asyncio.Task[CheckGroundingResult]] = set()

        async def check_one(text: str) -> CheckGroundingResult:
            return await check(text, facts, **options)

        async def read() -> None:
            """Reads the text in its own task, so that a check is yielded while it waits."""
            try:
                async for new_groups in _async_fed(groups, text_chunks):
                    for group in new_groups:
                        await slots.acquire()
                        task = asyncio.ensure_future(check_one(group.text))
                        in_flight.add(task)
                        ready.put_nowait(_AsyncChecking(group, task))
                ready.put_nowait(_End(None))
            except Exception as error:  # the caller's to see, in its own task
                ready.put_nowait(_End(error))

        reader = asyncio.ensure_future(read())
        try:
            while not isinstance(item := await ready.get(), _End):
                try:
                    checked = sentence_check(item.group, await item.task)
                finally:
                    in_flight.discard(item.task)
                    slots.release()
                tally.add(item.group, checked)
                yield checked
            self._finish(item, tally)
        finally:
            reader.cancel()
            for task in in_flight:
                task.cancel()
            await asyncio.gather(reader, *in_flight, return_exceptions=True)


@dataclass(frozen=True)
class _AsyncChecking:
    """A check sent: its group and the task that makes its result."""

    group: SentenceGroup
    task: asyncio.Task[CheckGroundingResult]


async def _async_fed(
    groups: SentenceGroups, text_chunks: TextChunks | AsyncIterable[str | bytes]
) -> AsyncIterator[list[SentenceGroup]]:
    """The groups each chunk completes, then those the end completes."""
    if isinstance(text_chunks, AsyncIterable):
        async for chunk in text_chunks:
            yield groups.feed(chunk)
    else:
        for chunk in text_chunks:
            yield groups.feed(chunk)
    yield groups.finish()
