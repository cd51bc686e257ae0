"""gRPC first, REST when gRPC cannot connect at all: the transport the clients use by default.

A call that fails with `ConnectionFailure` over gRPC is sent again over REST at once, with
what is left of the attempt's timeout, and calls keep going over REST for the cool-down; then
gRPC is tried again. Every other failure, including UNAVAILABLE from a reachable server, is
raised as it is (the client retries).
Each switch is logged once, at WARNING, on the "groundwire" logger.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import AsyncIterable, AsyncIterator, Callable, Iterable, Iterator, Sequence

from google.protobuf.message import Message

from groundwire.core.apis import Method
from groundwire.core.errors import DeadlineExceeded
from groundwire.core.fallback import FallbackState
from groundwire.transports.base import (
    AsyncTransport,
    ConnectionFailure,
    Metadata,
    Transport,
    as_async_iterator,
)

logger = logging.getLogger("groundwire")

Clock = Callable[[], float]


class _Switch:
    """The fallback state plus its logging, shared by the sync and async transports."""

    def __init__(self, cooldown: float, clock: Clock) -> None:
        self.state = FallbackState(cooldown)
        self.cooldown = cooldown
        self.clock = clock
        self._lock = threading.Lock()

    def use_grpc(self) -> bool:
        state = self.state
        return not state.on_rest or state.prefer_grpc(self.clock())

    def connection_failed(self, failure: ConnectionFailure) -> None:
        with self._lock:
            switched = self.state.record_connection_failure(self.clock())
        if switched:
            logger.warning("gRPC could not connect (%s); using REST for the next %g s, "
                           "then trying gRPC again", failure.message, self.cooldown)
        else:
            logger.debug("gRPC still cannot connect (%s); staying on REST", failure.message)

    def time_left(self, timeout: float | None, started: float,
                  failure: ConnectionFailure) -> float | None:
        """What REST gets of an attempt's `timeout` after gRPC failed to connect.

        Raises DeadlineExceeded when gRPC used it all up.
        """
        if timeout is None:
            return None
        left = timeout - (self.clock() - started)
        if left <= 0:
            raise DeadlineExceeded(f"gRPC could not connect ({failure.message}) and the "
                                   f"attempt's timeout of {timeout} s passed before REST")
        return left

    def grpc_worked(self) -> None:
        if not self.state.on_rest:
            return
        with self._lock:
            switched = self.state.record_grpc_success()
        if switched:
            logger.warning("gRPC connects again; switching back from REST to gRPC")


class _SyncReplay:
    """Lets REST send again the requests a failed gRPC stream had already read.

    gRPC reads requests on its own thread; every request read is kept (until `forget`) and
    each new iteration starts again from the first.
    """

    def __init__(self, requests: Iterable[Message]) -> None:
        self._source = iter(requests)
        self._seen: list[Message] = []
        self._remember = True
        self._lock = threading.Lock()

    def __iter__(self) -> Iterator[Message]:
        index = 0
        while True:
            with self._lock:
                if index < len(self._seen):
                    item = self._seen[index]
                else:
                    try:
                        item = next(self._source)
                    except StopIteration:
                        return
                    if self._remember:
                        self._seen.append(item)
            index += 1
            yield item

    def forget(self) -> None:
        """The stream has connected: nothing will be sent again, so nothing is kept."""
        with self._lock:
            self._remember = False
            self._seen.clear()


class AutoTransport:
    """gRPC with a fallback to REST for networks that cannot carry it; thread-safe.

    Example:
        >>> from groundwire.transports.grpc import GrpcTransport
        >>> from groundwire.transports.rest import RestTransport
        >>> transport = AutoTransport(
        ...     GrpcTransport("127.0.0.1:50051", credentials=None, secure=False),
        ...     RestTransport("http://127.0.0.1:8080", credentials=None))
        >>> transport.close()
    """

    def __init__(self, grpc: Transport, rest: Transport, *, cooldown: float = 60.0,
                 clock: Clock = time.monotonic) -> None:
        self.grpc = grpc
        self.rest = rest
        self._switch = _Switch(cooldown, clock)

    def unary(self, method: Method, request: Message, *, timeout: float | None,
              metadata: Metadata) -> Message:
        """Calls over gRPC, or over REST when gRPC cannot connect."""
        if self._switch.use_grpc():
            started = self._switch.clock()
            try:
                response = self.grpc.unary(method, request, timeout=timeout, metadata=metadata)
            except ConnectionFailure as failure:
                self._switch.connection_failed(failure)
                timeout = self._switch.time_left(timeout, started, failure)
            else:
                self._switch.grpc_worked()
                return response
        return self.rest.unary(method, request, timeout=timeout, metadata=metadata)

    def stream(self, method: Method, requests: Iterable[Message], *, timeout: float | None,
               metadata: Metadata) -> Iterator[Message]:
        """Streams over gRPC, or over REST when gRPC cannot connect before a first response."""
        if not self._switch.use_grpc():
            yield from self.rest.stream(method, requests, timeout=timeout, metadata=metadata)
            return
        replay = None if isinstance(requests, Sequence) else _SyncReplay(requests)
        started = self._switch.clock()
        responses = self.grpc.stream(method, requests if replay is None else replay,
                                     timeout=timeout, metadata=metadata)
        try:
            first = next(responses)
        except StopIteration:
            self._switch.grpc_worked()
            return
        except ConnectionFailure as failure:
            self._switch.connection_failed(failure)
            timeout = self._switch.time_left(timeout, started, failure)
            yield from self.rest.stream(method, requests if replay is None else replay,
                                        timeout=timeout, metadata=metadata)
            return
        self._switch.grpc_worked()
        if replay is not None:
            replay.forget()
        yield first
        yield from responses

    def close(self) -> None:
        """Closes both transports."""
        try:
            self.grpc.close()
        finally:
            self.rest.close()


class _AsyncReplay:
    """`_SyncReplay` for asyncio. The next request is fetched by a task of its own, so that a
    gRPC request reader cancelled while it waits does not close the caller's generator."""

    def __init__(self, requests: Iterable[Message] | AsyncIterable[Message]) -> None:
        self._source = as_async_iterator(requests)
        self._seen: list[Message] = []
        self._dropped = 0
        self._remember = True
        self._fetch: asyncio.Future[None] | None = None
        self._ended = False

    async def __aiter__(self) -> AsyncIterator[Message]:
        index = 0
        while True:
            if index - self._dropped >= len(self._seen) and not self._ended:
                if self._fetch is None or self._fetch.done():
                    self._fetch = asyncio.ensure_future(self._fetch_next())
                await asyncio.shield(self._fetch)
            position = index - self._dropped
            if position >= len(self._seen):
                return
            item = self._seen[position]
            if not self._remember:
                self._dropped += len(self._seen)
                self._seen.clear()
            index += 1
            yield item

    async def _fetch_next(self) -> None:
        try:
            self._seen.append(await anext(self._source))
        except StopAsyncIteration:
            self._ended = True

    def forget(self) -> None:
        """The stream has connected: requests are still passed on but no longer kept."""
        self._remember = False


class AsyncAutoTransport:
    """`AutoTransport` for asyncio: gRPC with a fallback to REST, from one event loop."""

    def __init__(self, grpc: AsyncTransport, rest: AsyncTransport, *, cooldown: float = 60.0,
                 clock: Clock = time.monotonic) -> None:
        self.grpc = grpc
        self.rest = rest
        self._switch = _Switch(cooldown, clock)

    async def unary(self, method: Method, request: Message, *, timeout: float | None,
                    metadata: Metadata) -> Message:
        """Calls over gRPC, or over REST when gRPC cannot connect."""
        if self._switch.use_grpc():
            started = self._switch.clock()
            try:
                response = await self.grpc.unary(method, request, timeout=timeout,
                                                 metadata=metadata)
            except ConnectionFailure as failure:
                self._switch.connection_failed(failure)
                timeout = self._switch.time_left(timeout, started, failure)
            else:
                self._switch.grpc_worked()
                return response
        return await self.rest.unary(method, request, timeout=timeout, metadata=metadata)

    async def stream(self, method: Method,
                     requests: Iterable[Message] | AsyncIterable[Message], *,
                     timeout: float | None, metadata: Metadata) -> AsyncIterator[Message]:
        """Streams over gRPC, or over REST when gRPC cannot connect before a first response."""
        if not self._switch.use_grpc():
            responses = self.rest.stream(method, requests, timeout=timeout, metadata=metadata)
            try:
                async for response in responses:
                    yield response
            finally:
                await _close(responses)
            return
        replay = None if isinstance(requests, Sequence) else _AsyncReplay(requests)
        sent = requests if replay is None else replay
        started = self._switch.clock()
        responses = self.grpc.stream(method, sent, timeout=timeout, metadata=metadata)
        try:
            try:
                first = await anext(responses)
            except StopAsyncIteration:
                self._switch.grpc_worked()
                return
            except ConnectionFailure as failure:
                self._switch.connection_failed(failure)
                timeout = self._switch.time_left(timeout, started, failure)
                responses = self.rest.stream(method, sent, timeout=timeout, metadata=metadata)
            else:
                self._switch.grpc_worked()
                if replay is not None:
                    replay.forget()
                yield first
            async for response in responses:
                yield response
        finally:
            await _close(responses)

    async def close(self) -> None:
        """Closes both transports."""
        try:
            await self.grpc.close()
        finally:
            await self.rest.close()


async def _close(responses: AsyncIterator[Message]) -> None:
    """Closes an async generator left early, so that its call is cancelled at once."""
    aclose = getattr(responses, "aclose", None)
    if aclose is not None:
        await aclose()
