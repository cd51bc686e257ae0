"""HTTP/1.1 for a client, with no I/O: request bytes out, a response parsed strictly as it comes.

On a kept-alive connection, a response framed two ways could leave bytes that the next call
reads as its own answer: the parser refuses every ambiguous framing, and a connection is
reusable only when its response ended exactly where its framing said.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass

MAX_HEAD_BYTES = 64 * 1024
"""A status line and headers (or a chunked body's trailers) larger than this are refused."""

_MAX_CHUNK_LINE = 1024
_TOKEN = rb"[!#$%&'*+.^_`|~0-9A-Za-z-]+"
_STATUS_LINE = re.compile(rb"HTTP/1\.([01]) ([1-9][0-9]{2})(?: ([\t\x20-\x7e\x80-\xff]*))?")
_HEADER_LINE = re.compile(rb"(" + _TOKEN + rb"):[ \t]*([\t\x20-\x7e\x80-\xff]*?)[ \t]*")
_CHUNK_LINE = re.compile(rb"([0-9A-Fa-f]{1,15})[ \t]*(?:;[\t\x20-\x7e\x80-\xff]*)?")
_REQUEST_TARGET = re.compile(r"[\x21-\x7e]+")
_HEADER_NAME = re.compile(_TOKEN.decode())
_HEADER_VALUE = re.compile(r"[\t\x20-\x7e\x80-\xff]*")


class ProtocolError(Exception):
    """The server's bytes are not an HTTP/1.1 response a careful client accepts."""


class Headers(Mapping[str, str]):
    """Response headers by name, in any case; a repeated header's values joined by ", "."""

    def __init__(self, pairs: Iterable[tuple[str, str]]) -> None:
        self._values: dict[str, str] = {}
        for name, value in pairs:
            key = name.lower()
            self._values[key] = f"{self._values[key]}, {value}" if key in self._values else value

    def __getitem__(self, name: str) -> str:
        return self._values[name.lower()]

    def __iter__(self) -> Iterator[str]:
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)


@dataclass(frozen=True)
class ResponseHead:
    """A response's status line and headers; `keep_alive` says the server keeps the connection."""

    status: int
    reason: str
    headers: Headers
    keep_alive: bool


class EndOfMessage:
    """The last event of a response: its body is complete."""


END = EndOfMessage()
"""The one `EndOfMessage` the parser gives out."""

Event = ResponseHead | bytes | EndOfMessage
"""What `ResponseParser.feed` gives out: the head, then pieces of the body, then `END`."""


def _header_line(name: str, value: str) -> bytes:
    if _HEADER_NAME.fullmatch(name) is None:
        raise ValueError(f"not a valid HTTP header name: {name!r}")
    if _HEADER_VALUE.fullmatch(value) is None:
        raise ValueError(f"the value of the HTTP header {name!r} has a control character")
    return f"{name}: {value}\r\n".encode("latin-1")


def encode_request(
    method: str, target: str, headers: Iterable[tuple[str, str]], body: bytes | None
) -> bytes:
    r"""The bytes of a request: its line, `headers`, the body's Content-Length, and the body.

    Raises ValueError for a target or header that could split the request, as `http.client`.

    Example:
        >>> encode_request("POST", "/v1/x", [("host", "example.com")], b"{}")
        b'POST /v1/x HTTP/1.1\r\nhost: example.com\r\ncontent-length: 2\r\n\r\n{}'
    """
    if _REQUEST_TARGET.fullmatch(target) is None:
        raise ValueError(f"not a valid HTTP request target: {target!r}")
    lines = [f"{method} {target} HTTP/1.1\r\n".encode("ascii")]
    lines += [_header_line(name, value) for name, value in headers]
    if body is None:
        lines.append(b"\r\n")
        return b"".join(lines)
    lines.append(b"content-length: %d\r\n\r\n" % len(body))
    lines.append(body)
    return b"".join(lines)


class ResponseParser:
    r"""Feeds one response's bytes in as they arrive, gets its head and body pieces out.

    Interim (1xx) responses are skipped; without a length or chunking, the body ends at
    `feed_eof`. Raises `ProtocolError` for anything malformed or ambiguous (a head over
    `MAX_HEAD_BYTES`, Content-Length beside Transfer-Encoding, a signed chunk size, bytes
    after the end...). `request_method` matters for HEAD and CONNECT, which have no body.

    Example:
        >>> parser = ResponseParser()
        >>> head, body, end = parser.feed(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhi")
        >>> head.status, head.headers["content-length"], body, end is END, parser.reusable
        (200, '2', b'hi', True, True)
    """

    def __init__(self, request_method: str = "POST") -> None:
        self._request_method = request_method
        self._buffer = b""
        self._scanned = 0
        self._step = self._read_head
        self._remaining = 0
        self.head: ResponseHead | None = None
        self.finished = False
        self.reusable = False
        """Whether the connection may carry another request: the response ended cleanly."""

    @property
    def leftover(self) -> bool:
        """Whether bytes came after the end of the response (it is then not `reusable`)."""
        return self.finished and bool(self._buffer)

    def feed(self, data: bytes) -> list[Event]:
        """The events that `data`, the next bytes from the server, completes (often none)."""
        if self.finished:
            self.reusable = False
            if data:
                raise ProtocolError("the server sent bytes after the end of its response")
            return []
        buffer = self._buffer + data if self._buffer else data
        events: list[Event] = []
        position = 0
        while not self.finished:
            taken = self._step(buffer, position, events)
            if taken == position:
                break
            position = taken
        self._buffer = buffer[position:]
        if self.finished and self._buffer:
            self.reusable = False
        return events

    def feed_eof(self) -> list[Event]:
        """`END` if the server's close ends the body; `ConnectionResetError` if it cut it short."""
        if self.finished:
            self.reusable = False
            return []
        if self._step == self._read_until_close:
            self.finished = True
            return [END]
        if self.head is None and not self._buffer:
            raise ConnectionResetError("the server closed the connection without a response")
        raise ConnectionResetError("the server closed the connection in the middle of its response")

    def _read_head(self, buffer: bytes, position: int, events: list[Event]) -> int:
        end = buffer.find(b"\r\n\r\n", position + max(self._scanned - 3, 0))
        if end < 0:
            self._scanned = len(buffer) - position  # a trickled head is searched once
            if len(buffer) - position > MAX_HEAD_BYTES:
                raise ProtocolError(f"the response head is larger than {MAX_HEAD_BYTES} bytes")
            return position
        if end - position > MAX_HEAD_BYTES:
            raise ProtocolError(f"the response head is larger than {MAX_HEAD_BYTES} bytes")
        self._scanned = 0
        lines = buffer[position:end].split(b"\r\n")
        status_line = _STATUS_LINE.fullmatch(lines[0])
        if status_line is None:
            raise ProtocolError(f"not an HTTP/1.1 status line: {_shown(lines[0])}")
        status = int(status_line[2])
        headers = _headers(lines[1:])
        if 100 <= status < 200:
            if status == 101:
                raise ProtocolError("the server switched protocols, which no request asked for")
            return end + 4  # an interim response; the real one follows
        self._start_body(status, status_line[1] == b"1", headers)
        self.head = ResponseHead(
            status, (status_line[3] or b"").decode("latin-1"), headers, self.reusable
        )
        events.append(self.head)
        if self._step == self._read_head:  # no body at all
            self._end(events)
        return end + 4

    def _start_body(self, status: int, http11: bool, headers: Headers) -> None:
        connection = headers.get("connection", "").lower()
        self.reusable = http11 and "close" not in (token.strip() for token in connection.split(","))
        coding = headers.get("transfer-encoding")
        length = headers.get("content-length")
        if coding is not None and length is not None:
            raise ProtocolError("the response has both Content-Length and Transfer-Encoding")
        no_body = status in (204, 304) or self._request_method == "HEAD"
        if self._request_method == "CONNECT" and 200 <= status < 300:
            self.reusable = False  # the connection becomes a tunnel
            return
        if no_body:
            return
        if coding is not None:
            if not http11 or coding.strip().lower() != "chunked":
                raise ProtocolError(f"a transfer coding other than chunked: {coding!r}")
            self._step = self._read_chunk_size
        elif length is not None:
            self._remaining = _content_length(length)
            self._step = self._read_sized
        else:
            self.reusable = False  # the body ends when the server closes the connection
            self._step = self._read_until_close

    def _read_sized(self, buffer: bytes, position: int, events: list[Event]) -> int:
        if self._remaining == 0:
            self._end(events)
            return position
        taken = min(self._remaining, len(buffer) - position)
        if taken:
            events.append(buffer[position : position + taken])  # the whole buffer is not copied
            self._remaining -= taken
            if self._remaining == 0:
                self._end(events)
        return position + taken

    def _read_chunk_size(self, buffer: bytes, position: int, events: list[Event]) -> int:
        end = buffer.find(b"\r\n", position, position + _MAX_CHUNK_LINE)
        if end < 0:
            if len(buffer) - position >= _MAX_CHUNK_LINE:
                raise ProtocolError("a chunk size line is too long")
            return position
        size_line = _CHUNK_LINE.fullmatch(buffer, position, end)
        if size_line is None:
            raise ProtocolError(f"not a chunk size: {_shown(buffer[position:end])}")
        self._remaining = int(size_line[1], 16)
        self._step = self._read_chunk if self._remaining else self._read_trailers
        return end + 2

    def _read_chunk(self, buffer: bytes, position: int, events: list[Event]) -> int:
        taken = min(self._remaining, len(buffer) - position)
        if taken:
            events.append(buffer[position : position + taken])
            self._remaining -= taken
        if self._remaining == 0:
            self._step = self._read_chunk_end
        return position + taken

    def _read_chunk_end(self, buffer: bytes, position: int, events: list[Event]) -> int:
        if len(buffer) - position < 2:
            return position
        if buffer[position : position + 2] != b"\r\n":
            raise ProtocolError("a chunk is longer than its size said")
        self._step = self._read_chunk_size
        return position + 2

    def _read_trailers(self, buffer: bytes, position: int, events: list[Event]) -> int:
        if buffer.startswith(b"\r\n", position):
            self._end(events)
            return position + 2
        end = buffer.find(b"\r\n\r\n", position)
        if end < 0:
            if len(buffer) - position > MAX_HEAD_BYTES:
                raise ProtocolError(f"the trailers are larger than {MAX_HEAD_BYTES} bytes")
            return position
        _headers(buffer[position:end].split(b"\r\n"))  # checked, then dropped: none is used
        self._end(events)
        return end + 4

    def _read_until_close(self, buffer: bytes, position: int, events: list[Event]) -> int:
        if position < len(buffer):
            events.append(buffer[position:])
        return len(buffer)

    def _end(self, events: list[Event]) -> None:
        self.finished = True
        events.append(END)


def _headers(lines: list[bytes]) -> Headers:
    pairs = []
    for line in lines:
        header = _HEADER_LINE.fullmatch(line)
        if header is None:
            raise ProtocolError(f"not a header line: {_shown(line)}")
        pairs.append((header[1].decode("ascii"), header[2].decode("latin-1")))
    return Headers(pairs)


def _content_length(value: str) -> int:
    lengths = {length.strip() for length in value.split(",")}
    if len(lengths) != 1:
        raise ProtocolError(f"Content-Length values disagree: {value!r}")
    (length,) = lengths
    if not length.isascii() or not length.isdigit() or len(length) > 18:
        raise ProtocolError(f"not a Content-Length: {value!r}")
    return int(length)


def _shown(raw: bytes) -> str:
    return repr(raw[:60]) + ("…" if len(raw) > 60 else "")
