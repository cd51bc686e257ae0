"""gRPC first, REST when gRPC cannot connect at all: the transport the clients use by default.

A `ConnectionFailure` over gRPC is sent again over REST at once, within the attempt's timeout,
and calls stay on REST for the cool-down. Any other failure is raised as it is. Each switch is
logged once at WARNING on the "groundwire" logger, the end of a cool-down at INFO.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from typing import Generic, TypeVar

from google.protobuf.message import Message

from groundwire.contract.apis import Method
from groundwire.contract.errors import DeadlineExceeded
from groundwire.transports.base import (
    AsyncRequests,
    AsyncTransport,
    ConnectionFailure,
    Metadata,
    Requests,
    Transport,
    over_rest,
)
from groundwire.transports.fallback import FallbackState

logger = logging.getLogger("groundwire")

TransportT = TypeVar("TransportT")


class _Both(Generic[TransportT]):
    """A gRPC and a REST transport of one kind, and the fallback state that picks between them."""

    def __init__(
        self,
        grpc: TransportT,
        rest: TransportT,
        *,
        cooldown: float = 60.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.grpc = grpc
        self.rest = rest
        self._state = FallbackState(cooldown)
        self._cooldown = cooldown
        self._clock = clock
        self._lock = threading.Lock()
        self._cooldown_end_logged = False

    def _use_grpc(self) -> bool:
        """Whether an attempt goes over gRPC; when it does not, marks it as sent over REST."""
        if not self._state.on_rest:
            return True
        if not self._state.prefer_grpc(self._clock()):
            over_rest.set(True)
            return False
        if not self._cooldown_end_logged:
            self._cooldown_end_logged = True
            logger.info("the %g s REST cool-down is over; trying gRPC again", self._cooldown)
        return True

    def _fall_back(
        self, failure: ConnectionFailure, timeout: float | None, started: float
    ) -> float | None:
        """Switches to REST after gRPC failed to connect; what is left of `timeout` for REST."""
        with self._lock:
            switched = self._state.record_connection_failure(self._clock())
            self._cooldown_end_logged = False
        if switched:
            logger.warning(
                "gRPC could not connect (%s); using REST for the next %g s, then trying gRPC again",
                failure.message,
                self._cooldown,
            )
        else:
            logger.debug("gRPC still cannot connect (%s); staying on REST", failure.message)
        over_rest.set(True)
        if timeout is None:
            return None
        left = timeout - (self._clock() - started)
        if left <= 0:
            raise DeadlineExceeded(
                f"gRPC could not connect ({failure.message}) and the "
                f"attempt's timeout of {timeout} s passed before REST"
            )
        return left

    def _grpc_worked(self) -> None:
        if not self._state.on_rest:
            return
        with self._lock:
            switched = self._state.record_grpc_success()
        if switched:
            logger.warning("gRPC connects again; switching back from REST to gRPC")


class AutoTransport(_Both[Transport]):
    """gRPC with a fallback to REST for networks that cannot carry it; thread-safe.

    Example:
        >>> from groundwire.transports.grpc import GrpcTransport
        >>> from groundwire.transports.rest import RestTransport
        >>> transport = AutoTransport(
        ...     GrpcTransport("127.0.0.1:50051", credentials=None, secure=False),
        ...     RestTransport("http://127.0.0.1:8080", credentials=None))
        >>> transport.close()
    """

    def unary(
        self, method: Method, request: Message, *, timeout: float | None, metadata: Metadata
    ) -> Message:
        """Calls over gRPC, or over REST when gRPC cannot connect."""
        if self._use_grpc():
            started = self._clock()
            try:
                response = self.grpc.unary(method, request, timeout=timeout, metadata=metadata)
            except ConnectionFailure as failure:
                timeout = self._fall_back(failure, timeout, started)
            else:
                self._grpc_worked()
                return response
        return self.rest.unary(method, request, timeout=timeout, metadata=metadata)

    def stream(
        self, method: Method, requests: Requests, *, timeout: float | None, metadata: Metadata
    ) -> Iterator[Message]:
        """Streams over gRPC, or over REST when gRPC cannot connect before a first response.

        Requests that are not a sequence are a live exchange, which REST cannot carry: they
        stay on gRPC.
        """
        live = not isinstance(requests, Sequence)
        if live or not self._use_grpc():
            transport = self.grpc if live else self.rest
            yield from transport.stream(method, requests, timeout=timeout, metadata=metadata)
            return
        started = self._clock()
        responses = self.grpc.stream(method, requests, timeout=timeout, metadata=metadata)
        try:
            first = next(responses)
        except StopIteration:
            self._grpc_worked()
            return
        except ConnectionFailure as failure:
            timeout = self._fall_back(failure, timeout, started)
            yield from self.rest.stream(method, requests, timeout=timeout, metadata=metadata)
            return
        self._grpc_worked()
        yield first
        yield from responses

    def close(self) -> None:
        """Closes both transports."""
        try:
            self.grpc.close()
        finally:
            self.rest.close()

    def abandon(self) -> None:
        """Lets go of both transports inherited across `os.fork()` (see `Transport.abandon`)."""
        self.grpc.abandon()
        self.rest.abandon()


class AsyncAutoTransport(_Both[AsyncTransport]):
    """`AutoTransport` for asyncio: gRPC with a fallback to REST, from one event loop."""

    async def unary(
        self, method: Method, request: Message, *, timeout: float | None, metadata: Metadata
    ) -> Message:
        """Calls over gRPC, or over REST when gRPC cannot connect."""
        if self._use_grpc():
            started = self._clock()
            try:
                response = await self.grpc.unary(
                    method, request, timeout=timeout, metadata=metadata
                )
            except ConnectionFailure as failure:
                timeout = self._fall_back(failure, timeout, started)
            else:
                self._grpc_worked()
                return response
        return await self.rest.unary(method, request, timeout=timeout, metadata=metadata)

    async def stream(
        self, method: Method, requests: AsyncRequests, *, timeout: float | None, metadata: Metadata
    ) -> AsyncIterator[Message]:
        """Streams as `AutoTransport.stream` does."""
        live = not isinstance(requests, Sequence)
        may_fall_back = not live and self._use_grpc()
        transport = self.grpc if live or may_fall_back else self.rest
        started = self._clock()
        responses = transport.stream(method, requests, timeout=timeout, metadata=metadata)
        try:
            if may_fall_back:
                try:
                    first = await anext(responses)
                except StopAsyncIteration:
                    self._grpc_worked()
                    return
                except ConnectionFailure as failure:
                    timeout = self._fall_back(failure, timeout, started)
                    responses = self.rest.stream(
                        method, requests, timeout=timeout, metadata=metadata
                    )
                else:
                    self._grpc_worked()
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
    aclose = getattr(responses, "aclose", None)
    if aclose is not None:
        await aclose()
