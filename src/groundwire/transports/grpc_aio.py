"""The asyncio gRPC transport (grpc.aio): the blocking one's twin, sharing all but the waiting."""

from __future__ import annotations

import asyncio
import functools
from collections.abc import AsyncIterator, Iterator
from typing import TypeAlias

import grpc
import grpc.aio
from google.protobuf.message import Message

from groundwire.contract.apis import Method
from groundwire.contract.errors import GroundwireError, Internal
from groundwire.transports import lifetime
from groundwire.transports.base import AsyncRequests, Metadata, as_async_iterator, client_closed
from groundwire.transports.grpc import (
    SETTLED,
    GrpcCalls,
    KeptFailure,
    codecs,
    connect_budget,
    not_connected,
)


class AsyncRequestReader(KeptFailure, AsyncIterator[Message]):
    """`RequestReader` for grpc.aio, whose request task would otherwise cancel the call.

    Example:
        >>> import asyncio
        >>> async def requests():
        ...     yield "first"
        ...     raise ValueError("no second")
        >>> async def read_all(reader):
        ...     return [request async for request in reader]
        >>> reader = AsyncRequestReader(requests())
        >>> asyncio.run(read_all(reader))
        ['first']
        >>> reader.raise_failure()
        Traceback (most recent call last):
        ...
        ValueError: no second
    """

    def __init__(self, requests: AsyncRequests) -> None:
        self._source = as_async_iterator(requests)

    async def __anext__(self) -> Message:
        if self.failure is not None:
            raise StopAsyncIteration
        try:
            return await anext(self._source)
        except StopAsyncIteration:
            raise
        except Exception as error:  # the caller's own error, raised again after the call
            self.failure = error
            raise StopAsyncIteration from None


AioUnaryCall: TypeAlias = "grpc.aio.UnaryUnaryMultiCallable[Message, Message]"


class AsyncGrpcTransport(GrpcCalls[grpc.aio.Channel | None, AioUnaryCall]):
    """Calls over one grpc.aio channel; use it from one event loop (see `GrpcTransport`).

    The channel opens on the first call, in the loop that uses it, so the transport may be
    built anywhere. Calls in flight at `close` fail with `ClientClosed`, not `CancelledError`.

    Example:
        >>> transport = AsyncGrpcTransport("127.0.0.1:50051", credentials=None, secure=False)
        >>> # await transport.unary(...); await transport.close()
    """

    def _new_channel(self) -> grpc.aio.Channel | None:
        return None  # opened by `_open`, in the event loop of the first call

    async def unary(
        self, method: Method, request: Message, *, timeout: float | None, metadata: Metadata
    ) -> Message:
        """Sends one request, returns the response; failures as GroundwireError."""
        call = self._unary_calls.get(method.grpc_path)
        if call is None:
            call = self._open().unary_unary(method.grpc_path, *codecs(method))
            self._unary_calls[method.grpc_path] = call
        try:
            sent: grpc.aio.Metadata | Metadata = _sent(metadata)
        except TypeError:  # unhashable pairs (an interceptor's lists): grpc.aio converts them
            sent = metadata
        try:
            if not self._ready:  # seen READY since the last failure: no state check
                timeout = await self._connect(timeout)
            response = await call(request, timeout=timeout, metadata=sent)
        except grpc.aio.AioRpcError as error:
            self._ready = False  # the next call looks at the channel again
            raise self._error(error) from None
        except (asyncio.CancelledError, grpc.aio.UsageError):
            self._raise_if_closed()
            raise
        if response is None:  # grpc.aio gives None for bytes that do not parse
            raise _unparsed(method)
        return response

    async def stream(
        self, method: Method, requests: AsyncRequests, *, timeout: float | None, metadata: Metadata
    ) -> AsyncIterator[Message]:
        """Starts a bidi stream on first `anext`; yields responses as they arrive.

        Requests are read by a task of their own, so a request generator may wait for
        responses. Closing the iterator cancels the call.
        """
        call = self._open().stream_stream(method.grpc_path, *codecs(method))
        reader = AsyncRequestReader(requests)
        try:
            timeout = await self._connect(timeout)
            responses = call(reader, timeout=timeout, metadata=metadata)
        except (asyncio.CancelledError, grpc.aio.UsageError):
            self._raise_if_closed()
            raise
        failed: GroundwireError | None = None
        try:
            async for response in responses:
                if response is None:  # bytes that do not parse
                    raise _unparsed(method)
                yield response
        except grpc.aio.AioRpcError as error:
            failed = self._error(error)
        except (asyncio.CancelledError, grpc.aio.UsageError):
            self._raise_if_closed()
            raise
        finally:
            responses.cancel()
        reader.raise_failure(failed)

    async def close(self) -> None:
        """Closes the channel and the token adapter; calls in flight fail with `ClientClosed`."""
        self._ready = False
        self._closed = True
        channel, self._channel = self._channel, None
        self._unary_calls.clear()
        if channel is not None:
            lifetime.aio_channels.discard(channel)
            await channel.close(grace=None)
        if self._token_request is not None:
            self._token_request.close()

    async def _connect(self, timeout: float | None) -> float | None:
        """Waits, within `connect_budget`, until the channel can carry a call; returns the rest."""
        channel = self._open()
        state = channel.get_state(try_to_connect=True)
        if state == grpc.ChannelConnectivity.READY:
            self._ready = True
            return timeout
        loop = asyncio.get_running_loop()
        started = loop.time()
        budget = connect_budget(timeout)
        try:
            async with asyncio.timeout(budget):
                while state not in SETTLED:
                    await channel.wait_for_state_change(state)
                    state = channel.get_state(try_to_connect=True)
        except TimeoutError:
            raise not_connected(self.target, budget) from None
        return None if timeout is None else max(timeout - (loop.time() - started), 0.001)

    def _raise_if_closed(self) -> None:
        """Raises `ClientClosed` when `close` (a cancellation, or UsageError) ended the call."""
        task = asyncio.current_task()
        if self._closed and (task is None or task.cancelling() == 0):
            raise client_closed() from None

    def _open(self) -> grpc.aio.Channel:
        """The channel, opened on first use in the running event loop."""
        if self._closed:
            raise client_closed()
        if self._channel is None:
            target, options = self.target, self._options
            self._channel = (
                grpc.aio.insecure_channel(target, options=options)
                if self._tls is None
                else grpc.aio.secure_channel(target, self._tls, options=options)
            )
            lifetime.aio_channels.add(self._channel)  # while open, grpc.aio fails in a child
        return self._channel

    def _connectivity(self) -> grpc.ChannelConnectivity | None:
        return None if self._channel is None else self._channel.get_state(try_to_connect=False)


class _SentMetadata(grpc.aio.Metadata):
    """A call's metadata that grpc.aio sends as it is, in the order given.

    Given a tuple, grpc.aio converts it to `Metadata` and back on every call (4% of a call).
    Never changed: our channels have no grpc.aio interceptors.
    """

    def __init__(self, pairs: Metadata) -> None:
        super().__init__(*pairs)
        self._pairs = pairs

    def __iter__(self) -> Iterator[tuple[str, str | bytes]]:
        return iter(self._pairs)

    def __len__(self) -> int:
        return len(self._pairs)


_sent = functools.lru_cache(maxsize=256)(_SentMetadata)
"""A call's metadata made once per distinct value."""


def _unparsed(method: Method) -> Internal:
    """The error for a response whose bytes do not parse as `method`'s response message."""
    return Internal(
        f"{method.name} answered with bytes that do not parse as a "
        f"{method.response_class.DESCRIPTOR.name}"
    )
