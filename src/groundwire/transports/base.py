"""The contract between the clients and the transports that carry their calls.

A transport sends request messages and gives back responses, knowing nothing of retries,
validation or results; every failure leaves it as a `GroundwireError`, whatever the protocol.
"""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator, Iterable, Iterator, Sequence
from contextvars import ContextVar
from typing import Protocol

from google.protobuf.message import Message

from groundwire.contract.addresses import is_loopback
from groundwire.contract.apis import Method
from groundwire.contract.errors import ClientClosed, Unavailable, bad_request

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

    Unlike UNAVAILABLE from a reachable server, it makes the auto transport fall back to REST.
    """

    connected = False


def client_closed() -> ClientClosed:
    """The error of a call whose transport was closed before or while it ran."""
    return ClientClosed("client closed")


class Transport(Protocol):
    """A blocking transport (gRPC or REST); safe to share between threads.

    ``timeout`` is the attempt's, in seconds (None: none); past it, `DeadlineExceeded`.
    """

    def unary(
        self, method: Method, request: Message, *, timeout: float | None, metadata: Metadata
    ) -> Message:
        """Sends one request, returns the one response."""
        ...

    def stream(
        self, method: Method, requests: Requests, *, timeout: float | None, metadata: Metadata
    ) -> Iterator[Message]:
        """Sends the requests, yields the responses as they arrive; closing early cancels.

        REST reads all requests before sending, so a live exchange needs gRPC.
        """
        ...

    def close(self) -> None:
        """Closes the connections; calls in flight and later calls fail with `ClientClosed`."""
        ...

    def abandon(self) -> None:
        """In a forked child, lets go of inherited connections without touching the parent's.

        The transport cannot be used afterwards.
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
    """Raises ValueError unless clear text to `host` is safe (emulator only).

    Never with credentials; only to loopback unless `allow_remote` (a remote emulator).
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
    """The requests of a REST stream, which must be a sequence: a live exchange would hang."""
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
