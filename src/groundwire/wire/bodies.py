"""A response body as it arrives, decompressed, capped and decoded, with no I/O (both REST clients).

Inflating in bounded pieces keeps a gzip bomb's memory within the cap, and lets a reader look
at its deadline between two pieces.
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING

from groundwire.contract.errors import GroundwireError, Internal, MessageTooLarge
from groundwire.contract.transcoding import decode_message
from groundwire.wire.error_codecs import error_from_http

if TYPE_CHECKING:
    from google.protobuf.message import Message

    from groundwire.contract.apis import Method

MAX_MESSAGE_BYTES = 64 * 1024 * 1024
"""The largest gRPC message sent or taken, by the client and the emulator: room for the largest
response (the largest legal request, 200 facts of 10,000 four-byte characters, is ≈8 MB)."""

MAX_RESPONSE_BYTES = MAX_MESSAGE_BYTES
"""The default cap on a decoded response body: the gRPC message limit."""

PIECE_BYTES = 1024 * 1024
"""The most decoded bytes `BodyDecoder.feed` gives out at once."""

_GZIP = 16 + zlib.MAX_WBITS
_EXCERPT = 120


def is_gzip(content_encoding: str | None) -> bool:
    """Whether a Content-Encoding header names gzip (the only coding the clients ask for).

    Example:
        >>> is_gzip("gzip"), is_gzip(" X-GZIP "), is_gzip(None)
        (True, True, False)
    """
    return content_encoding is not None and content_encoding.strip().lower() in ("gzip", "x-gzip")


class BodyDecoder:
    """Feeds a body's bytes in as they arrive, gets its decoded bytes out, at most `limit`.

    Past `limit`, `MessageTooLarge`; a broken or unfinished gzip stream, `Internal`.

    Example:
        >>> import gzip
        >>> decoder = BodyDecoder(gzip=True, limit=10)
        >>> list(decoder.feed(gzip.compress(b"[1, 2]"))), decoder.finish()
        ([b'[1, 2]'], None)
        >>> list(BodyDecoder(gzip=False, limit=3).feed(b"1234"))  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        groundwire.contract.errors.MessageTooLarge: RESOURCE_EXHAUSTED: the response is larger ...
    """

    def __init__(self, *, gzip: bool, limit: int = MAX_RESPONSE_BYTES) -> None:
        if limit < 1:
            raise ValueError("the response size limit must be at least 1 byte")
        self.limit = limit
        self.decoded = 0
        self._inflater = zlib.decompressobj(_GZIP) if gzip else None

    def check_length(self, content_length: str | None) -> None:
        """Fails at once when an uncompressed body's Content-Length is already over the cap."""
        if self._inflater is None and content_length is not None:
            try:
                announced = int(content_length)
            except ValueError:
                return
            if announced > self.limit:
                raise self._too_large()

    def feed(self, raw: bytes) -> Iterator[bytes]:
        """The decoded bytes of `raw`, each piece decoded as it is taken (take all of them)."""
        if self._inflater is None:
            for start in range(0, len(raw), PIECE_BYTES):
                piece = raw[start : start + PIECE_BYTES]
                self._count(len(piece))
                yield piece
            return
        pending = raw
        while pending and not self._inflater.eof:  # bytes after the end are ignored, as zlib does
            # Never more than one byte past the cap in one step: a bomb cannot inflate here.
            most = min(PIECE_BYTES, self.limit - self.decoded + 1)
            try:
                piece = self._inflater.decompress(pending, most)
            except zlib.error as error:
                raise Internal(f"the gzip body is broken: {error}") from None
            self._count(len(piece))
            if piece:
                yield piece
            pending = self._inflater.unconsumed_tail

    def finish(self) -> None:
        """Declares the end of the body; raises `Internal` if a gzip stream stopped early."""
        if self._inflater is not None and not self._inflater.eof:
            raise Internal("the gzip body ended early")

    def _count(self, size: int) -> None:
        self.decoded += size
        if self.decoded > self.limit:
            raise self._too_large()

    def _too_large(self) -> MessageTooLarge:
        return MessageTooLarge(
            f"the response is larger than the limit of {self.limit} bytes (max_response_bytes)"
        )


def decode_response(
    method: Method, body: bytes, stream_headers: Mapping[str, str] | None = None
) -> Message:
    """Decodes a 2xx body; anything but the response message raises `Internal`.

    With `stream_headers`, `body` is a streamed element, and an `{"error": ...}` one raises it.
    """
    what = "answered with a body" if stream_headers is None else "streamed an element"
    try:
        parsed = json.loads(body)
    except (ValueError, RecursionError) as error:
        raise Internal(
            f"{method.name} {what} that is not valid JSON ({error}){excerpt(body)}"
        ) from None
    name = method.response_class.DESCRIPTOR.name
    if not isinstance(parsed, dict):
        raise Internal(
            f"{method.name} answered with a JSON {type(parsed).__name__} instead of "
            f"a {name} object{excerpt(body)}"
        )
    if stream_headers is not None and isinstance(parsed.get("error"), dict) and len(parsed) == 1:
        status = parsed["error"].get("code")
        raise error_from_http(status if isinstance(status, int) else 500, body, stream_headers)
    try:
        return decode_message(parsed, method.response_class)
    except GroundwireError as error:
        raise Internal(
            f"{method.name} answered with a {name} that does not fit its schema: {error.message}"
        ) from None


def excerpt(body: bytes) -> str:
    """A short single-line excerpt of a body, for error messages."""
    text = " ".join(body[: _EXCERPT * 4].decode("utf-8", "replace").split())
    if not text:
        return " (empty body)"
    return f": {text[:_EXCERPT]}…" if len(text) > _EXCERPT else f": {text}"
