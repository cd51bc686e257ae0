r"""Streams pieces or checks to a browser: Server-Sent Events or NDJSON for ASGI and WSGI apps.

Plain Python, no web framework needed. `piece_events` turns a generated stream into `piece`
events and a `summary` with the merged citations; `check_events` turns
`check_grounding_stream` into `check` events and a `summary`; a `GroundwireError` becomes an
`error` event that ends the stream. `sse_lines` and `ndjson_lines` frame events as bytes;
`EventStreamResponse` is an ASGI app that sends them, `wsgi_events` a WSGI body. The events'
data are in `groundwire.features.stream_events`; the docs' "Streaming" page gives the schema.

>>> from groundwire.features.stream_events import piece_event
>>> b"".join(sse_lines([piece_event("東京", 2)])).decode()
'event: piece\ndata: {"text": "東京", "length": 2}\n\n'
>>> b"".join(ndjson_lines([piece_event("Hi", 2)])).decode()
'{"event": "piece", "data": {"text": "Hi", "length": 2}}\n'
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterable, AsyncIterator, Callable, Iterable, Iterator
from typing import Any, Literal

from groundwire.contract.errors import GroundwireError
from groundwire.contract.generation import GenerateResult
from groundwire.features.sentence_stream import SentenceCheck, StreamSummary
from groundwire.features.stream_events import (
    Event,
    check_event,
    check_summary_event,
    error_event,
    merged_summary_event,
    piece_event,
)
from groundwire.features.stream_merge import StreamMerge

Format = Literal["sse", "ndjson"]
CONTENT_TYPES: dict[str, bytes] = {
    "sse": b"text/event-stream; charset=utf-8",
    "ndjson": b"application/x-ndjson; charset=utf-8",
}
"""The `Content-Type` of each format."""


def piece_events(pieces: Iterable[GenerateResult]) -> Iterator[Event]:
    """A `piece` event per generated piece, then the `summary` of the merged answer.

    A `GroundwireError` while streaming becomes a last `error` event.
    """
    merge = StreamMerge()
    try:
        for piece in pieces:
            added = merge.add(piece)
            yield piece_event(added, len(merge.text))
    except GroundwireError as error:
        yield error_event(error)
        return
    finally:
        _close_now(pieces)
    yield merged_summary_event(merge.result())


async def async_piece_events(pieces: AsyncIterable[GenerateResult]) -> AsyncIterator[Event]:
    """`piece_events` of an async generated stream."""
    merge = StreamMerge()
    try:
        async for piece in pieces:
            added = merge.add(piece)
            yield piece_event(added, len(merge.text))
    except GroundwireError as error:
        yield error_event(error)
        return
    finally:
        await _close(pieces)
    yield merged_summary_event(merge.result())


def check_events(checks: Iterable[SentenceCheck]) -> Iterator[Event]:
    """A `check` event per checked sentence, then the stream's `summary` (or an `error`)."""
    try:
        for check in checks:
            yield check_event(check)
    except GroundwireError as error:
        yield error_event(error)
        return
    finally:
        _close_now(checks)
    summary = getattr(checks, "summary", None)
    if isinstance(summary, StreamSummary):
        yield check_summary_event(summary)


async def async_check_events(checks: AsyncIterable[SentenceCheck]) -> AsyncIterator[Event]:
    """`check_events` of `AsyncGroundingClient.check_grounding_stream`."""
    try:
        async for check in checks:
            yield check_event(check)
    except GroundwireError as error:
        yield error_event(error)
        return
    finally:
        await _close(checks)
    summary = getattr(checks, "summary", None)
    if isinstance(summary, StreamSummary):
        yield check_summary_event(summary)


def _json(data: dict[str, Any]) -> str:
    return json.dumps(data, ensure_ascii=False, separators=(", ", ": "))


def sse_frame(event: Event) -> bytes:
    """One event as a Server-Sent Event: its name, and its JSON data on one line."""
    name, data = event
    return f"event: {name}\ndata: {_json(data)}\n\n".encode()


def ndjson_frame(event: Event) -> bytes:
    """One event as an NDJSON line: `{"event": name, "data": {...}}`."""
    name, data = event
    return (_json({"event": name, "data": data}) + "\n").encode()


_FRAMES: dict[str, Callable[[Event], bytes]] = {"sse": sse_frame, "ndjson": ndjson_frame}


def sse_lines(events: Iterable[Event]) -> Iterator[bytes]:
    """The events as Server-Sent Events, one frame each."""
    return map(sse_frame, events)


def ndjson_lines(events: Iterable[Event]) -> Iterator[bytes]:
    """The events as NDJSON lines."""
    return map(ndjson_frame, events)


def _frame_for(format: Format) -> Callable[[Event], bytes]:
    frame = _FRAMES.get(format)
    if frame is None:
        raise ValueError(f"format must be 'sse' or 'ndjson', not {format!r}")
    return frame


def wsgi_events(
    events: Iterable[Event], start_response: Callable[..., Any], format: Format = "sse"
) -> Iterator[bytes]:
    """A WSGI response body streaming `events`; starts the response with the right headers.

    In a WSGI app: ``return wsgi_events(check_events(stream), start_response)``.
    """
    frame = _frame_for(format)
    start_response(
        "200 OK",
        [("Content-Type", CONTENT_TYPES[format].decode()), ("Cache-Control", "no-cache")],
    )
    return map(frame, events)


class EventStreamResponse:
    """An ASGI app that streams `events` (async or plain iterable) as SSE or NDJSON.

    In an ASGI app (Starlette, FastAPI or bare): ``await EventStreamResponse(events)(scope,
    receive, send)``. A plain iterable is read in a worker thread, so that a slow check does
    not hold the event loop; when the client goes away, the events' source is closed (which
    cancels the checks in flight).
    """

    def __init__(
        self, events: AsyncIterable[Event] | Iterable[Event], format: Format = "sse"
    ) -> None:
        """A response for `events`, in `format` (`"sse"` or `"ndjson"`)."""
        self._events = events
        self._frame = _frame_for(format)
        self._content_type = CONTENT_TYPES[format]

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        """Sends the response: the headers, then each event as it comes."""
        await send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": [
                    (b"content-type", self._content_type),
                    (b"cache-control", b"no-cache"),
                    (b"x-accel-buffering", b"no"),
                ],
            }
        )
        streaming = asyncio.ensure_future(self._send_events(send))
        disconnected = asyncio.ensure_future(_disconnect(receive))
        try:
            await asyncio.wait((streaming, disconnected), return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in (streaming, disconnected):
                task.cancel()
            await asyncio.gather(streaming, disconnected, return_exceptions=True)
        failure = None if streaming.cancelled() else streaming.exception()
        if failure is not None:
            raise failure

    async def _send_events(self, send: Any) -> None:
        events = self._events
        try:
            async for event in _as_async(events):
                body = self._frame(event)
                await send({"type": "http.response.body", "body": body, "more_body": True})
            await send({"type": "http.response.body", "body": b"", "more_body": False})
        finally:
            await _close(events)


async def _disconnect(receive: Any) -> None:
    """Returns when the client has gone away (the ASGI `http.disconnect` message)."""
    while (await receive())["type"] != "http.disconnect":
        continue


async def _as_async(events: AsyncIterable[Event] | Iterable[Event]) -> AsyncIterator[Event]:
    if isinstance(events, AsyncIterable):
        async for event in events:
            yield event
        return
    iterator = iter(events)

    def next_event() -> Event | None:
        return next(iterator, None)

    while True:
        found: Event | None = await asyncio.to_thread(next_event)
        if found is None:
            return
        yield found


async def _close(events: object) -> None:
    """Closes a generator of events (and through it the stream it reads), if it is one."""
    aclose = getattr(events, "aclose", None)
    if aclose is not None:
        await aclose()
        return
    _close_now(events)


def _close_now(events: object) -> None:
    """Closes a plain generator or stream (a no-op on one read to its end, or a list)."""
    close = getattr(events, "close", None)
    if close is not None:
        close()
