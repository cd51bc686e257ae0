"""Splits a streamed JSON array into its elements as bytes arrive, with no I/O (REST streaming).

Each element is handed out as soon as its last byte is in, found without parsing it. Scanning
bytes is safe however chunks split the text: structural characters are ASCII, never inside a
multi-byte UTF-8 sequence.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Iterator

from groundwire.contract.errors import Internal

_IN_STRING = re.compile(rb'["\\]')
_IN_ELEMENT = re.compile(rb'["\[\]{}]')
_WHITESPACE = frozenset(b" \t\r\n")
_OPENERS = {ord("{"): ord("}"), ord("["): ord("]")}
_BYTE_ORDER_MARK = b"\xef\xbb\xbf"
_EXCERPT = 40


class _Expect(enum.Enum):
    START = "the opening [ or {"
    ELEMENT_OR_END = "an element or ]"
    ELEMENT = "an element after ,"
    INSIDE = "the rest of an element"
    COMMA_OR_END = ", or ]"
    NOTHING = "the end of the body"


class JsonArrayStream:
    """Feeds chunks of a JSON array in, gets each complete top-level element's text out.

    Elements must be objects or arrays; a lone object is yielded once. Malformed input raises
    `Internal` from `feed`, an unfinished array from `close`.

    Example:
        >>> stream = JsonArrayStream()
        >>> list(stream.feed(b'[{"text": "a ]"}, {"te'))
        [b'{"text": "a ]"}']
        >>> list(stream.feed(b'xt": "b"}]'))
        [b'{"text": "b"}']
        >>> stream.close()
    """

    def __init__(self) -> None:
        self._buffer = bytearray()
        self._position = 0
        self._element_start = 0
        self._closers = bytearray()
        self._in_string = False
        self._single_object = False
        self._expect = _Expect.START
        self._received = 0

    def feed(self, chunk: bytes) -> Iterator[bytes]:
        """Adds `chunk` and yields the elements it completed, scanning only as far as taken.

        Take them all before feeding the next chunk.
        """
        if self._received == 0 and self._expect is _Expect.START:
            chunk = chunk.removeprefix(_BYTE_ORDER_MARK)
        self._received += len(chunk)
        self._buffer += chunk
        while self._position < len(self._buffer):
            if self._expect is not _Expect.INSIDE:
                self._step_between_elements()
            elif (element := self._scan_element()) is None:
                break
            else:
                yield element
        self._compact()

    def close(self) -> None:
        """Declares the end of the body; raises `Internal` if the array is not complete."""
        if self._expect is _Expect.NOTHING:
            return
        if self._received == 0:
            raise Internal("the response stream was empty; expected a JSON array")
        raise Internal(
            f"the response stream ended early, while expecting {self._expect.value} "
            f"(after {self._received} bytes)"
        )

    def _scan_element(self) -> bytes | None:
        """The element once it ended; None while more bytes are needed."""
        buffer = self._buffer
        while True:
            if self._in_string:
                found = _IN_STRING.search(buffer, self._position)
                if found is None:
                    self._position = max(self._position, len(buffer))
                    return None
                # After a backslash the next byte is escaped, even if it has not arrived yet.
                is_escape = buffer[found.start()] == 0x5C
                self._position = found.end() + (1 if is_escape else 0)
                self._in_string = is_escape
                continue
            found = _IN_ELEMENT.search(buffer, self._position)
            if found is None:
                self._position = len(buffer)
                return None
            self._position = found.end()
            char = buffer[found.start()]
            if char == 0x22:
                self._in_string = True
            elif char in _OPENERS:
                self._closers.append(_OPENERS[char])
            elif char != self._closers.pop():
                self._fail(found.start(), "a closing bracket that does not match")
            elif not self._closers:
                self._expect = _Expect.NOTHING if self._single_object else _Expect.COMMA_OR_END
                return bytes(buffer[self._element_start : self._position])

    def _step_between_elements(self) -> None:
        """Consumes one byte outside any element: whitespace, [, comma, ] or an element's start."""
        position = self._position
        char = self._buffer[position]
        self._position = position + 1
        if char in _WHITESPACE:
            return
        expect = self._expect
        if expect is _Expect.START and char == ord("["):
            self._expect = _Expect.ELEMENT_OR_END
        elif expect is _Expect.START and char == ord("{"):
            self._single_object = True
            self._start_element(position, char)
        elif expect in (_Expect.ELEMENT_OR_END, _Expect.ELEMENT) and char in _OPENERS:
            self._start_element(position, char)
        elif expect in (_Expect.ELEMENT_OR_END, _Expect.COMMA_OR_END) and char == ord("]"):
            self._expect = _Expect.NOTHING
        elif expect is _Expect.COMMA_OR_END and char == ord(","):
            self._expect = _Expect.ELEMENT
        else:
            self._fail(position, f"expected {expect.value}")

    def _start_element(self, position: int, opener: int) -> None:
        self._element_start = position
        self._closers.append(_OPENERS[opener])
        self._expect = _Expect.INSIDE

    def _compact(self) -> None:
        keep_from = self._element_start if self._expect is _Expect.INSIDE else self._position
        keep_from = min(keep_from, len(self._buffer))
        if keep_from:
            del self._buffer[:keep_from]
            self._position -= keep_from
            self._element_start = max(self._element_start - keep_from, 0)

    def _fail(self, position: int, problem: str) -> None:
        excerpt = bytes(self._buffer[max(position - _EXCERPT, 0) : position + _EXCERPT])
        offset = self._received - len(self._buffer) + position
        raise Internal(
            f"the response stream is not a JSON array: {problem} at byte {offset} "
            f"(near {excerpt.decode('utf-8', 'replace')!r})"
        )
