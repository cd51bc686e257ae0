"""The contract between the clients and the transports that carry their calls.

A transport sends one request message (or a stream of them) for a `Method` and gives back
response messages; it knows nothing of retries, validation or results. Every failure leaves a
transport as a `GroundwireError`, whichever protocol carried the call.
"""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator, Iterable, Iterator, Sequence
from contextvars import ContextVar
from typing import Protocol

from google.protobuf.message import Message

from groundwire.core.apis import Method
from groundwire.core.endpoints import is_loopback
from groundwire.core.errors import ClientClosed, Unavailable, bad_request

Metadata = Sequence[tuple[str, str]]
"""Per-call metadata as (lowercase name, value) pairs: gRPC metadata, or REST HTTP headers."""

Requests = Iterable[Message]
"""The requests of a blocking stream: a sequence, or an iterator for a live exchange (gRPC)."""

AsyncRequests = Iterable[Message] | AsyncIterable[Message]
"""The requests of an asyncio stream: a sequence, an iterator or an async iterator."""

over_rest: ContextVar[bool] = ContextVar("groundwire_over_rest", default=False)
"""Set by the auto transport when it sends an attempt over REST, for interceptors to read."""


class ConnectionFailure(Unavailable):
    """No connection could be made at all (refused, no HTTP/2, TLS/ALPN handshake failed).

    As opposed to UNAVAILABLE sent by a reachable server: only this one makes the auto
    transport fall back from gRPC to REST. It is still an `Unavailable`, so it is retryable.
    """

    connected = False


def client_closed() -> ClientClosed:
    """The error of a call whose transport was closed before or while it ran."""
    return ClientClosed("client closed")


class Transport(Protocol):
    """A blocking transport (gRPC or REST); safe to share between threads.

    ``timeout`` is the attempt's timeout in seconds (None: no limit); passing it raises
    `DeadlineExceeded`. ``metadata`` is sent as gRPC metadata or as HTTP headers.
    """

    def unary(
        self, method: Method, request: Message, *, timeout: float | None, metadata: Metadata
    ) -> Message:
        """Sends one request, returns the one response."""
        ...

    def stream(
        self, method: Method, requests: Requests, *, timeout: float | None, metadata: Metadata
    ) -> Iterator[Message]:
        """Sends the requests, yields the responses as they arrive.

        Closing the iterator early cancels the call. Over REST all requests are read before
        anything is sent, so an interactive exchange (send after reading) needs gRPC.
        """
        ...

    def close(self) -> None:
        """Closes the connections; calls in flight and later calls fail with `ClientClosed`."""
        ...

    def abandon(self) -> None:
        """Lets go of connections inherited across `os.fork()`, in the child.

        Nothing is sent on them and nothing the parent still uses is shut down: the parent
        keeps its calls and connections. The transport cannot be used afterwards.
        """
        ...


class AsyncTransport(Protocol):
    """An asyncio transport (gRPC or REST), bound to the event loop it is first used on."""

    async def unary(
        self, method: Method, request: Message, *, timeout: float | None, metadata: Metadata
    ) -> Message:
        """Sends one request, returns the one response."""
        ...

    def stream(
        self, method: Method, requests: AsyncRequests, *, timeout: float | None, metadata: Metadata
    ) -> AsyncIterator[Message]:
        """Sends the requests, yields the responses as they arrive (see `Transport.stream`)."""
        ...

    async def close(self) -> None:
        """Closes the connections; calls in flight and later calls fail with `ClientClosed`."""
        ...


async def as_async_iterator(requests: AsyncRequests) -> AsyncIterator[Message]:
    """Requests given as a list, a generator or an async generator, as one async iterator.

    Example:
        >>> import asyncio
        >>> async def read_all(requests):
        ...     return [request async for request in as_async_iterator(requests)]
        >>> asyncio.run(read_all(["a", "b"]))
        ['a', 'b']
    """
    if isinstance(requests, AsyncIterable):
        async for request in requests:
            yield request
    else:
        for request in requests:
            yield request


def refuse_plaintext(
    where: str, host: str, has_credentials: bool, *, allow_remote: bool = False
) -> None:
    """Raises ValueError unless a clear-text connection to `host` is safe (emulator only).

    Real credentials never travel in clear text, and clear text only goes to loopback,
    unless `allow_remote` (the user's explicit switch for a remote emulator).
    """
    if has_credentials:
        raise ValueError(
            f"{where}: credentials are never sent over a plaintext connection; "
            "use TLS, or no credentials for a local emulator"
        )
    if not allow_remote and not is_loopback(host):
        raise ValueError(
            f"{where}: plaintext is only allowed to a loopback address "
            f"(localhost, 127.0.0.0/8, ::1), not {host!r}"
        )


def fixed_requests(requests: object) -> Sequence[Message]:
    """The requests of a REST stream, which must be a fixed sequence.

    REST sends every request in one body before it reads a response, so a live exchange (an
    iterator that sends after it reads) would wait forever: it is refused, clearly.
    """
    if not isinstance(requests, Sequence):
        raise bad_request(
            [
                (
                    "requests",
                    "a live exchange that sends after reading needs gRPC; over REST "
                    "pass the requests as a list",
                )
            ],
            "interactive bidirectional streaming is gRPC-only",
        )
    return requests
