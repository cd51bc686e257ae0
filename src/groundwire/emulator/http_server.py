"""A small HTTP/1.1 server on asyncio and h11 that bounds what every client can hold.

h11 turns bytes into events and back; this module owns the sockets and the clocks. A
request's head and body are read with no handler slot taken, each within its own timeout,
into a shared byte budget; only then does the request wait for one of the handler slots.
Open connections are capped, per peer address and in all: at a cap the oldest idle one is
closed to make room, and only when none is idle is a new one answered 429. Errors a client
causes at the HTTP level (a malformed head, a slow body, a broken gzip body) are answered
in Google's JSON error shape and never echo what the client sent.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
import time
import zlib
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from http import HTTPStatus
from typing import NoReturn
from urllib.parse import unquote

import h11

from groundwire.contract.errors import (
    DeadlineExceeded,
    GroundwireError,
    InvalidArgument,
    ResourceExhausted,
    Unavailable,
    bad_request,
)
from groundwire.contract.scrubber import scrub_secrets
from groundwire.emulator.limits import Limits
from groundwire.emulator.serving import Activity
from groundwire.wire.error_codecs import error_to_json

MAX_HEAD_BYTES = 64 * 1024
"""A request line and headers above this are refused with 431."""

LINGER_SECONDS = 2.0
"""How long a refused upload is read and discarded, so the client sees the answer, not a reset."""

_READ_BYTES = 256 * 1024
_GZIP = 16 + zlib.MAX_WBITS
_DECODERS = {"gzip": _GZIP, "x-gzip": _GZIP, "deflate": zlib.MAX_WBITS}
_log = logging.getLogger(__name__)
_access = logging.getLogger("groundwire.emulator.access")


@dataclass(frozen=True)
class HttpRequest:
    """One request, read in full: `path` is percent-decoded, header names are lower case."""

    method: str
    path: str
    query: str
    headers: Mapping[str, str]
    body: bytes


class ClientGone(ConnectionError):
    """The client closed the connection, or stopped reading for longer than allowed."""


Handler = Callable[[HttpRequest, "Reply"], Awaitable[None]]
"""Answers one request through its `Reply`: `send` a whole response, or `start`, `write`s, `end`."""


class Reply:
    """The response to one request; writes wait for the client, within `write_timeout`."""

    def __init__(
        self, connection: h11.Connection, writer: asyncio.StreamWriter, method: str, limits: Limits
    ) -> None:
        self._connection = connection
        self._writer = writer
        self._head_only = method == "HEAD"
        self._limits = limits
        self.status = 0
        self.sent_bytes = 0
        self.closing = False
        self.extra_headers: list[tuple[str, str]] = []
        """Headers a wrapping handler adds to whatever the response is (CORS)."""

    async def send(self, status: int, headers: list[tuple[str, str]], body: bytes) -> None:
        """Sends a whole response with its Content-Length."""
        await self.start(status, [*headers, ("Content-Length", str(len(body)))])
        await self.write(body)
        await self.end()

    async def start(self, status: int, headers: list[tuple[str, str]]) -> None:
        """Sends the status line and headers; the body follows with `write` (chunked if needed)."""
        self.status = status
        headers = [*headers, *self.extra_headers]
        if self.closing:
            headers = [*headers, ("Connection", "close")]
        await self._send(h11.Response(status_code=status, headers=headers))

    async def write(self, data: bytes) -> None:
        """Sends part of the body, waiting (bounded) until the client has room for it."""
        if data and not self._head_only:
            self.sent_bytes += len(data)
            await self._send(h11.Data(data=data))

    async def end(self) -> None:
        """Ends the response."""
        await self._send(h11.EndOfMessage())

    def abort(self) -> NoReturn:
        """Closes the connection at once, mid-response, as a network failure would."""
        self._writer.transport.abort()
        raise ClientGone("the response's outcome closed the connection")

    async def _send(self, event: h11.Event) -> None:
        data = self._connection.send(event)
        if self._writer.transport.is_closing():
            raise ClientGone("the client closed the connection")
        if data:
            self._writer.write(data)
        try:
            async with asyncio.timeout(self._limits.write_timeout):
                await self._writer.drain()
        except TimeoutError:
            raise ClientGone("the client stopped reading the response") from None
        except ConnectionError as error:
            raise ClientGone(str(error)) from None


class _Refused(Exception):
    """The request cannot be served; answer `error` and close the connection."""

    def __init__(self, error: GroundwireError) -> None:
        super().__init__(error.message)
        self.error = error


class _Budget:
    """Bytes of request bodies held at once, across every connection."""

    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        self.held = 0

    def take(self, size: int) -> None:
        if self.held + size > self.capacity:
            raise _Refused(
                Unavailable("the emulator holds too many request bodies at once; retry shortly")
            )
        self.held += size

    def give(self, size: int) -> None:
        self.held -= size


class HttpServer:
    """Serves `handler` on a listening socket, holding every client to `limits`.

    Each connection it accepts is counted in `activity`.

    Example:
        >>> async def hello(request, reply):
        ...     await reply.send(200, [], b"hi")
        >>> server = HttpServer(hello, Limits())  # then `await server.start(sock)`
    """

    def __init__(self, handler: Handler, limits: Limits, activity: Activity | None = None) -> None:
        self._handler = handler
        self._limits = limits
        self._activity = activity or Activity()
        self._slots = asyncio.Semaphore(limits.max_concurrent_requests)
        self._budget = _Budget(limits.max_buffered_body_bytes)
        self._server: asyncio.Server | None = None
        self._connections: dict[asyncio.Task[None], asyncio.StreamWriter] = {}
        self._by_peer: dict[str, dict[asyncio.Task[None], None]] = {}
        self._idle: set[asyncio.Task[None]] = set()
        self._closing = False

    async def start(self, sock: socket.socket, backlog: int = 1024) -> None:
        """Starts accepting connections on `sock`, which is bound."""
        self._server = await asyncio.start_server(self._serve, sock=sock, backlog=backlog)

    async def close(self, grace: float) -> None:
        """Stops accepting, closes idle connections, and gives running requests `grace` s.

        Connections are ended by closing their sockets, so each task finishes on its own
        (a cancelled connection task would make asyncio's stream machinery log an error).
        """
        self._closing = True
        if self._server is not None:
            self._server.close()
        self._drop([task for task in self._connections if task in self._idle])
        busy = list(self._connections)
        if not busy:
            return
        _, pending = await asyncio.wait(busy, timeout=grace)
        self._drop(list(pending))
        if pending:
            _, stuck = await asyncio.wait(pending, timeout=1.0)
            for task in stuck:
                task.cancel()

    def _drop(self, tasks: list[asyncio.Task[None]]) -> None:
        for task in tasks:
            writer = self._connections.get(task)
            if writer is not None:
                writer.transport.abort()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        peer = _peer_address(writer)
        self._activity.connections_accepted += 1
        self._activity.changed()
        full = self._make_room(peer)
        if full is not None:
            await self._refuse(reader, writer, full)
            writer.close()
            return
        self._connections[task] = writer
        self._by_peer.setdefault(peer, {})[task] = None
        try:
            await self._serve_requests(reader, writer, task)
        except (ClientGone, ConnectionError) as error:
            _log.debug("a client left: %s", error)
            writer.transport.abort()  # close() would wait to flush to a client that reads nothing
        except _Refused as refused:
            _log.debug("refused a request: %s", refused.error.message)
            await self._refuse(reader, writer, refused.error)
        except Exception:  # an emulator bug ends this connection, never the server
            _log.exception("emulator bug while serving an HTTP connection")
        except asyncio.CancelledError:  # only `close` cancels, after its grace: the end
            writer.transport.abort()
        finally:
            self._forget(task, peer)
            writer.close()

    def _make_room(self, peer: str) -> ResourceExhausted | None:
        """Room for one more connection from `peer`, or the error that refuses it.

        At either cap (`max_connections_per_peer` for this peer, `max_connections` for all),
        the oldest idle connection under that cap is closed to make room: a client holding
        idle connections cannot lock others out, and loopback clients, which share one
        address, still get in. Only when every connection under the cap is busy is the new
        one refused.
        """
        per_peer, in_all = self._limits.max_connections_per_peer, self._limits.max_connections
        if not self._room_among(list(self._by_peer.get(peer, {})), per_peer):
            return _no_room(per_peer, "from one peer")
        if not self._room_among(list(self._connections), in_all):
            return _no_room(in_all, "in all")
        return None

    def _room_among(self, tasks: list[asyncio.Task[None]], limit: int) -> bool:
        """Whether `tasks` are under `limit`, once the oldest idle one is closed if need be."""
        if len(tasks) < limit:
            return True
        oldest = next((task for task in tasks if task in self._idle), None)
        if oldest is None:
            return False
        writer = self._connections[oldest]
        self._forget(oldest, _peer_address(writer))
        writer.close()  # its task sees the end of the stream and finishes on its own
        return True

    def _forget(self, task: asyncio.Task[None], peer: str) -> None:
        self._connections.pop(task, None)
        self._idle.discard(task)
        own = self._by_peer.get(peer)
        if own is not None:
            own.pop(task, None)
            if not own:
                del self._by_peer[peer]

    async def _serve_requests(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, task: asyncio.Task[None]
    ) -> None:
        connection = h11.Connection(h11.SERVER, max_incomplete_event_size=MAX_HEAD_BYTES)
        first = True
        while not self._closing:
            self._idle.add(task)
            try:
                head = await self._read_head(connection, reader, first)
            finally:
                self._idle.discard(task)
            if head is None:
                return
            first = False
            started = time.perf_counter()
            headers = _headers(head)
            body = await self._read_body(connection, reader, writer, headers)
            try:
                reply = Reply(connection, writer, head.method.decode("ascii"), self._limits)
                reply.closing = self._closing or _framed_twice(headers)
                request = _request(head, headers, body)
                async with self._slots:
                    await self._handler(request, reply)
            finally:
                self._budget.give(len(body))
            _log_access(writer, head, reply, started)
            if connection.our_state is not h11.DONE or connection.their_state is not h11.DONE:
                return
            connection.start_next_cycle()

    async def _read_head(
        self, connection: h11.Connection, reader: asyncio.StreamReader, first: bool
    ) -> h11.Request | None:
        """The next request's head; None when the client closed, or stayed silent too long.

        The whole head must arrive within `header_timeout` of the connection's opening (its
        first request) or of its first byte (a keep-alive connection, idle until then for at
        most `idle_timeout`). A pipelined head h11 already holds needs no wait.
        """
        loop = asyncio.get_running_loop()
        opened = loop.time()
        data = b""
        held = len(connection.trailing_data[0])
        if not held:
            wait = self._limits.header_timeout if first else self._limits.idle_timeout
            try:
                async with asyncio.timeout(wait):
                    data = await reader.read(_READ_BYTES)
            except TimeoutError:
                return None
            if not data:
                return None
        first_byte = opened if first else loop.time()
        try:
            async with asyncio.timeout_at(first_byte + self._limits.header_timeout):
                event = await _next_event(connection, reader, data, head_held=held)
        except TimeoutError:
            raise _Refused(_timed_out("the request head")) from None
        if isinstance(event, h11.ConnectionClosed):
            return None
        assert isinstance(event, h11.Request)
        return event

    async def _read_body(
        self,
        connection: h11.Connection,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        headers: Mapping[str, str],
    ) -> bytes:
        limit = self._limits.max_body_bytes
        length = headers.get("content-length", "")
        if length.isdigit() and int(length) > limit:
            raise _Refused(_too_large(limit))
        decoder = _decoder(headers.get("content-encoding", "identity"))
        if connection.client_is_waiting_for_100_continue:
            writer.write(connection.send(h11.InformationalResponse(status_code=100, headers=[])))
        chunks: list[bytes] = []
        size = 0
        try:
            async with asyncio.timeout(self._limits.body_timeout):
                while isinstance(event := await _next_event(connection, reader), h11.Data):
                    chunk = _decode(decoder, bytes(event.data), limit - size)
                    self._budget.take(len(chunk))
                    size += len(chunk)
                    chunks.append(chunk)
                if decoder is not None and not decoder.eof:
                    raise _Refused(_broken_encoding("the compressed body ends early"))
        except TimeoutError:
            self._budget.give(size)
            raise _Refused(_timed_out("the request body")) from None
        except BaseException:
            self._budget.give(size)
            raise
        return b"".join(chunks)

    async def _refuse(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, error: GroundwireError
    ) -> None:
        """Answers `error` and closes, reading what the client still sends for a moment."""
        body = error_to_json(error)
        reason = _reason(error.http_status)
        writer.write(
            f"HTTP/1.1 {error.http_status} {reason}\r\nContent-Type: application/json; "
            f"charset=utf-8\r\nContent-Length: {len(body)}\r\nConnection: close\r\n\r\n".encode()
            + body
        )
        # OSError, not only ConnectionError: write_eof() on a socket the client has reset
        # raises ENOTCONN, which is no fault of ours and no traceback's worth.
        with contextlib.suppress(OSError, TimeoutError):
            async with asyncio.timeout(LINGER_SECONDS):
                await writer.drain()
                if writer.can_write_eof():
                    writer.write_eof()
                while await reader.read(_READ_BYTES):
                    pass


async def _next_event(
    connection: h11.Connection,
    reader: asyncio.StreamReader,
    data: bytes = b"",
    *,
    head_held: int | None = None,
) -> h11.Event:
    """The next h11 event, reading as needed; a malformed request or early EOF is refused.

    With `head_held` (the bytes h11 held before), the event is a request head, refused with
    431 past MAX_HEAD_BYTES: h11 checks only a head still incomplete, not one that came whole.
    """
    received = (head_held or 0) + len(data)
    if data:
        connection.receive_data(data)
    at_eof = False
    while True:
        try:
            event = connection.next_event()
        except h11.RemoteProtocolError as error:
            if at_eof:
                raise ClientGone("the client closed the connection mid-request") from None
            raise _Refused(_malformed(error)) from None
        if event is not h11.NEED_DATA:
            assert not isinstance(event, type)
            maybe_over = head_held is not None and received > MAX_HEAD_BYTES  # else it is not
            if maybe_over and received - len(connection.trailing_data[0]) > MAX_HEAD_BYTES:
                raise _Refused(_head_too_large())
            return event
        data = await reader.read(_READ_BYTES)
        received += len(data)
        at_eof = not data
        connection.receive_data(data)


def _framed_twice(headers: Mapping[str, str]) -> bool:
    """Whether the head has both Content-Length and Transfer-Encoding.

    h11 frames such a body by Transfer-Encoding; RFC 9112 6.1 then requires closing the
    connection after the answer, since an intermediary may have framed it the other way and
    what follows is not to be trusted as a next request.
    """
    return "content-length" in headers and "transfer-encoding" in headers


def _request(head: h11.Request, headers: dict[str, str], body: bytes) -> HttpRequest:
    path, _, query = head.target.decode("ascii", "replace").partition("?")
    return HttpRequest(
        method=head.method.decode("ascii"),
        path=unquote(path),
        query=query,
        headers=headers,
        body=body,
    )


def _headers(head: h11.Request) -> dict[str, str]:
    """The head's headers by lower-case name; repeated ones joined with ", " (in linear time).

    Read once per request, from h11's list (iterating its `Headers` goes item by item).
    """
    values: dict[str, list[str]] = {}
    for name, value in head.headers.raw_items():
        values.setdefault(name.decode("latin-1").lower(), []).append(value.decode("latin-1"))
    return {key: ", ".join(kept) for key, kept in values.items()}


def _decoder(encoding: str) -> zlib._Decompress | None:
    name = encoding.strip().lower()
    if name in ("", "identity"):
        return None
    if name in _DECODERS:
        return zlib.decompressobj(_DECODERS[name])
    raise _Refused(
        InvalidArgument(
            f"Content-Encoding {name[:40]!r} is not supported; send gzip, deflate or identity",
            http_status=415,
        )
    )


def _decode(decoder: zlib._Decompress | None, data: bytes, room: int) -> bytes:
    """`data` decoded, refused with 413 past `room` bytes: a small body cannot inflate to 1 GiB."""
    if decoder is None:
        decoded = data
    else:
        try:
            decoded = decoder.decompress(data, room + 1)
        except zlib.error:
            raise _Refused(_broken_encoding("the compressed body is corrupt")) from None
        if decoder.unconsumed_tail:
            raise _Refused(_too_large(room))
    if len(decoded) > room:
        raise _Refused(_too_large(room))
    return decoded


def _too_large(limit: int) -> InvalidArgument:
    return InvalidArgument(
        f"the body is over the emulator's limit of {limit:,} bytes", http_status=413
    )


def _broken_encoding(reason: str) -> InvalidArgument:
    return bad_request([("body", reason)], f"the body cannot be decoded: {reason}")


def _timed_out(part: str) -> DeadlineExceeded:
    return DeadlineExceeded(f"{part} did not arrive in time", http_status=408)


def _malformed(error: h11.RemoteProtocolError) -> InvalidArgument:
    """The error for a request h11 cannot parse; h11's message may quote the request, so no."""
    if error.error_status_hint == 431:
        return _head_too_large()
    return InvalidArgument("the request is not valid HTTP/1.1", http_status=400)


def _head_too_large() -> InvalidArgument:
    return InvalidArgument(f"the request head is over {MAX_HEAD_BYTES:,} bytes", http_status=431)


def _reason(status: int) -> str:
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return "Error"


def _no_room(limit: int, scope: str) -> ResourceExhausted:
    return ResourceExhausted(
        f"the emulator has {limit:,} busy connections open {scope}, its limit; retry shortly"
    )


def _peer_address(writer: asyncio.StreamWriter) -> str:
    """The client's address without its port: what one peer's connections share."""
    peer = writer.get_extra_info("peername")
    return str(peer[0]) if isinstance(peer, tuple) else "-"


def _log_access(
    writer: asyncio.StreamWriter, head: h11.Request, reply: Reply, started: float
) -> None:
    if not _access.isEnabledFor(logging.INFO):
        return
    peer = writer.get_extra_info("peername")
    client = f"{peer[0]}:{peer[1]}" if isinstance(peer, tuple) else "-"
    target = scrub_secrets(head.target.decode("ascii", "replace"))
    _access.info(
        '%s "%s %s HTTP/%s" %d %d %.1fms',
        client,
        head.method.decode("ascii"),
        target,
        head.http_version.decode("ascii"),
        reply.status,
        reply.sent_bytes,
        1e3 * (time.perf_counter() - started),
    )
