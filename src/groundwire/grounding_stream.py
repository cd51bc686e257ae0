"""Grounds a text stream as it arrives: each complete sentence checked, a few at a time, in order.

The decisions live in `groundwire.core.sentence_stream`; the two drivers here hold the few
lines that wait: `GroundingStream` (threads) and `AsyncGroundingStream` (asyncio tasks). Both
read the text no further ahead than `concurrency` checks in flight, yield the checks in the
text's order, and cancel what is in flight when the caller stops early.
"""

from __future__ import annotations

import asyncio
from collections import deque
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
from typing import Any

from groundwire.core.client_options import ConfigurationError
from groundwire.core.requests import FactLike
from groundwire.core.results import CheckGroundingResult
from groundwire.core.sentence_stream import (
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


def _concurrency(concurrency: int) -> int:
    if not isinstance(concurrency, int) or concurrency < 1:
        raise ConfigurationError(f"concurrency must be a whole number >= 1, not {concurrency!r}")
    return concurrency


class GroundingStream(Iterator[SentenceCheck]):
    """The checks of a text stream's sentences, in order; `summary` once it is read to the end.

    Made by `GroundingClient.check_grounding_stream`; `close()` (or leaving a `with` block)
    stops reading, cancels the checks not started and waits for none.
    """

    summary: StreamSummary | None
    """The whole stream's `StreamSummary`, set when the iteration ends (None before)."""

    def __init__(
        self,
        check: Checker,
        text_chunks: TextChunks,
        facts: Iterable[FactLike],
        *,
        concurrency: int = DEFAULT_STREAM_CONCURRENCY,
        sentences_per_check: int = 1,
        min_chars: int = 0,
        **options: Any,
    ) -> None:
        """A stream of checks; nothing is read or sent before the first `next()`."""
        self.summary = None
        facts = list(facts)
        groups = SentenceGroups(sentences_per_check, min_chars)
        self._run = self._checks(
            check, text_chunks, facts, groups, _concurrency(concurrency), options
        )

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
        in_flight: deque[tuple[SentenceGroup, Future[CheckGroundingResult]]] = deque()
        executor = ThreadPoolExecutor(concurrency, thread_name_prefix="groundwire-stream")

        def done(oldest: tuple[SentenceGroup, Future[CheckGroundingResult]]) -> SentenceCheck:
            group, future = oldest
            checked = sentence_check(group, future.result())
            tally.add(group, checked)
            return checked

        try:
            for new_groups in _fed(groups, text_chunks):
                for group in new_groups:
                    while len(in_flight) >= concurrency:
                        yield done(in_flight.popleft())
                    future = executor.submit(check, group.text, facts, **options)
                    in_flight.append((group, future))
                while in_flight and in_flight[0][1].done():
                    yield done(in_flight.popleft())
            while in_flight:
                yield done(in_flight.popleft())
            self.summary = tally.summary()
        finally:
            for _, future in in_flight:
                future.cancel()
            executor.shutdown(wait=False, cancel_futures=True)


def _fed(groups: SentenceGroups, text_chunks: TextChunks) -> Iterator[list[SentenceGroup]]:
    """The groups each chunk completes, then those the end completes."""
    for chunk in text_chunks:
        yield groups.feed(chunk)
    yield groups.finish()


class AsyncGroundingStream(AsyncIterator[SentenceCheck]):
    """The asyncio twin of `GroundingStream`: `async for check in stream`, then `summary`.

    Made by `AsyncGroundingClient.check_grounding_stream`; the text may come from an async
    iterable (an LLM's stream) or a plain one. `aclose()` cancels the checks in flight.
    """

    summary: StreamSummary | None
    """The whole stream's `StreamSummary`, set when the iteration ends (None before)."""

    def __init__(
        self,
        check: AsyncChecker,
        text_chunks: TextChunks | AsyncIterable[str | bytes],
        facts: Iterable[FactLike],
        *,
        concurrency: int = DEFAULT_STREAM_CONCURRENCY,
        sentences_per_check: int = 1,
        min_chars: int = 0,
        **options: Any,
    ) -> None:
        """A stream of checks; nothing is read or sent before the first `__anext__`."""
        self.summary = None
        facts = list(facts)
        groups = SentenceGroups(sentences_per_check, min_chars)
        self._run = self._checks(
            check, text_chunks, facts, groups, _concurrency(concurrency), options
        )

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
        in_flight: deque[tuple[SentenceGroup, asyncio.Task[CheckGroundingResult]]] = deque()

        async def check_one(text: str) -> CheckGroundingResult:
            return await check(text, facts, **options)

        async def done(
            oldest: tuple[SentenceGroup, asyncio.Task[CheckGroundingResult]],
        ) -> SentenceCheck:
            group, task = oldest
            result = sentence_check(group, await task)
            tally.add(group, result)
            return result

        try:
            async for new_groups in _async_fed(groups, text_chunks):
                for group in new_groups:
                    while len(in_flight) >= concurrency:
                        yield await done(in_flight.popleft())
                    in_flight.append((group, asyncio.ensure_future(check_one(group.text))))
                while in_flight and in_flight[0][1].done():
                    yield await done(in_flight.popleft())
            while in_flight:
                yield await done(in_flight.popleft())
            self.summary = tally.summary()
        finally:
            for _, task in in_flight:
                task.cancel()
            if in_flight:
                await asyncio.gather(*(task for _, task in in_flight), return_exceptions=True)


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
