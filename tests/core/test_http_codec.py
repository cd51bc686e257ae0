"""The client's HTTP/1.1 parser reads good responses however split, and refuses bad ones."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from groundwire.wire.http_codec import (
    END,
    MAX_HEAD_BYTES,
    Event,
    ProtocolError,
    ResponseHead,
    ResponseParser,
    encode_request,
)

CHUNKED = (
    b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Type: application/json\r\n\r\n"
    b'5\r\n[{"a"\r\n'
    b"3;name=value\r\n:1}\r\n"
    b"1\r\n]\r\n"
    b"0\r\nX-Trailer: yes\r\n\r\n"
)
SIZED = b"HTTP/1.1 201 Created\r\nContent-Length: 11\r\nX-Many: 1\r\nx-many: 2\r\n\r\nhello world"


def parse(raw: bytes, *, piece: int | None = None, method: str = "POST") -> list[Event]:
    parser = ResponseParser(method)
    step = piece or max(len(raw), 1)
    events: list[Event] = []
    for start in range(0, len(raw), step):
        events += parser.feed(raw[start : start + step])
    return events


def body_of(events: list[Event]) -> bytes:
    return b"".join(event for event in events if isinstance(event, bytes))


def head_of(events: list[Event]) -> ResponseHead:
    head = events[0]
    assert isinstance(head, ResponseHead)
    return head


@given(st.integers(min_value=1, max_value=40))
def test_a_response_split_anywhere_gives_the_same_events(piece: int) -> None:
    for raw, body in ((CHUNKED, b'[{"a":1}]'), (SIZED, b"hello world")):
        events = parse(raw, piece=piece)
        assert body_of(events) == body
        assert events[-1] is END
        assert sum(event is END for event in events) == 1


def test_headers_are_read_in_any_case_and_repeated_ones_are_joined() -> None:
    head = head_of(parse(SIZED))

    assert (head.status, head.reason, head.keep_alive) == (201, "Created", True)
    assert head.headers["X-MANY"] == "1, 2"


def test_a_clean_end_leaves_the_connection_reusable() -> None:
    for raw in (CHUNKED, SIZED):
        parser = ResponseParser()
        parser.feed(raw)
        assert parser.finished
        assert parser.reusable


def test_connection_close_and_http_1_0_are_not_reused() -> None:
    for raw in (
        b"HTTP/1.1 200 OK\r\nConnection: keep-alive, Close\r\nContent-Length: 0\r\n\r\n",
        b"HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n",
    ):
        parser = ResponseParser()
        assert parser.feed(raw)[-1] is END
        assert not parser.reusable


def test_a_body_without_a_length_ends_when_the_server_closes_and_is_not_reused() -> None:
    parser = ResponseParser()
    events = parser.feed(b"HTTP/1.1 200 OK\r\n\r\npart one, ")
    events += parser.feed(b"part two")
    assert END not in events
    events += parser.feed_eof()

    assert body_of(events) == b"part one, part two"
    assert events[-1] is END
    assert not parser.reusable


def test_interim_responses_are_skipped() -> None:
    events = parse(b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")

    assert head_of(events).status == 200
    assert body_of(events) == b"ok"


@pytest.mark.parametrize("status", [204, 304])
def test_no_content_and_not_modified_have_no_body(status: int) -> None:
    parser = ResponseParser()
    events = parser.feed(b"HTTP/1.1 %d X\r\nContent-Length: 40\r\n\r\n" % status)

    assert events[1:] == [END]
    assert parser.reusable


def test_a_successful_connect_ends_at_its_head_and_the_tunnel_is_not_http_any_more() -> None:
    parser = ResponseParser("CONNECT")

    assert parser.feed(b"HTTP/1.1 200 Connection established\r\n\r\n")[1:] == [END]
    assert not parser.reusable
    assert not parser.leftover


SMUGGLED = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n"


def test_bytes_after_the_end_leave_the_response_whole_and_the_connection_unused() -> None:
    parser = ResponseParser()
    events = parser.feed(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok" + SMUGGLED + b"no")

    assert body_of(events) == b"ok"
    assert parser.leftover
    assert not parser.reusable
    with pytest.raises(ProtocolError, match="after the end"):
        parser.feed(b"more")


MALFORMED = {
    "not HTTP": b"SSH-2.0-OpenSSH_9.6\r\n\r\n",
    "HTTP/2 status line": b"HTTP/2 200\r\n\r\n",
    "a status of two digits": b"HTTP/1.1 20 OK\r\n\r\n",
    "a status with letters": b"HTTP/1.1 2xx OK\r\n\r\n",
    "lower-case protocol": b"http/1.1 200 OK\r\n\r\n",
    "bare LF line ends": b"HTTP/1.1 200 OK\nContent-Length: 0\n\n\r\n\r\n",
    "a header without a colon": b"HTTP/1.1 200 OK\r\nContent-Length 0\r\n\r\n",
    "a space before the colon": b"HTTP/1.1 200 OK\r\nContent-Length : 0\r\n\r\n",
    "a folded header": b"HTTP/1.1 200 OK\r\nX-A: 1\r\n  folded\r\nContent-Length: 0\r\n\r\n",
    "a NUL in a value": b"HTTP/1.1 200 OK\r\nX-A: a\x00b\r\nContent-Length: 0\r\n\r\n",
    "a bare CR in a value": b"HTTP/1.1 200 OK\r\nX-A: a\rb\r\nContent-Length: 0\r\n\r\n",
    "Content-Length beside Transfer-Encoding": (
        b"HTTP/1.1 200 OK\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"
    ),
    "two different lengths": b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 7\r\n\r\nok",
    "a length with a sign": b"HTTP/1.1 200 OK\r\nContent-Length: +2\r\n\r\nok",
    "a length in hex": b"HTTP/1.1 200 OK\r\nContent-Length: 0x2\r\n\r\nok",
    "a negative length": b"HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n",
    "an absurd length": b"HTTP/1.1 200 OK\r\nContent-Length: 9999999999999999999999\r\n\r\n",
    "a coding other than chunked": b"HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n",
    "chunked twice": b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked, chunked\r\n\r\n0\r\n\r\n",
    "chunked over HTTP/1.0": b"HTTP/1.0 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
    "a chunk size that is not hex": CHUNKED.replace(b"5\r\n", b"5g\r\n"),
    "a chunk size with a sign": CHUNKED.replace(b"5\r\n", b"+5\r\n"),
    "a chunk size with a 0x prefix": CHUNKED.replace(b"5\r\n", b"0x5\r\n"),
    "a chunk size with an underscore": CHUNKED.replace(b"5\r\n", b"0_5\r\n"),
    "a chunk size before a space": CHUNKED.replace(b"5\r\n", b" 5\r\n"),
    "a chunk size too large to be honest": CHUNKED.replace(b"5\r\n", b"1" * 16 + b"\r\n"),
    "a chunk longer than its size": CHUNKED.replace(b'5\r\n[{"a"', b'4\r\n[{"a"'),
    "a malformed trailer": CHUNKED.replace(b"X-Trailer: yes", b"X-Trailer yes"),
    "a switch of protocols": b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: h2c\r\n\r\n",
}


@pytest.mark.parametrize("raw", MALFORMED.values(), ids=MALFORMED.keys())
def test_a_malformed_or_ambiguous_response_is_refused(raw: bytes) -> None:
    with pytest.raises(ProtocolError):
        parse(raw)


@pytest.mark.parametrize("raw", MALFORMED.values(), ids=MALFORMED.keys())
def test_a_malformed_response_is_refused_byte_by_byte_too(raw: bytes) -> None:
    with pytest.raises(ProtocolError):
        parse(raw, piece=1)


def test_a_head_over_the_limit_is_refused_before_it_ends() -> None:
    parser = ResponseParser()
    parser.feed(b"HTTP/1.1 200 OK\r\n")
    filler = b"X-Filler: " + b"x" * 990 + b"\r\n"
    for _ in range(MAX_HEAD_BYTES // len(filler)):
        assert parser.feed(filler) == []
    with pytest.raises(ProtocolError, match="larger than"):
        parser.feed(filler)


def test_a_chunk_size_line_that_never_ends_is_refused() -> None:
    parser = ResponseParser()
    parser.feed(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5")
    with pytest.raises(ProtocolError, match="too long"):
        parser.feed(b";" + b"x" * 2000)


@pytest.mark.parametrize(
    "raw",
    [b"", b"HTTP/1.1 200 OK\r\nContent-Le", SIZED[:-3], CHUNKED[:-9]],
    ids=["nothing", "half a head", "a short body", "no last chunk"],
)
def test_a_close_before_the_end_is_a_reset_connection(raw: bytes) -> None:
    parser = ResponseParser()
    parser.feed(raw)
    with pytest.raises(ConnectionResetError):
        parser.feed_eof()


def test_a_request_is_one_buffer_with_its_length() -> None:
    request = encode_request("POST", "/v1/a:b?x=1", [("host", "h"), ("x-a", "é")], b"body")

    assert request == (
        b"POST /v1/a:b?x=1 HTTP/1.1\r\nhost: h\r\nx-a: \xe9\r\ncontent-length: 4\r\n\r\nbody"
    )


@pytest.mark.parametrize(
    ("target", "headers"),
    [
        ("/v1/x HTTP/1.1\r\nx-evil: 1\r\n\r\nPOST /", []),
        ("/v1/x", [("x-a", "1\r\nx-evil: 2")]),
        ("/v1/x", [("x-a", "1\nx-evil: 2")]),
        ("/v1/x", [("x-a\r\nx-evil", "2")]),
        ("/v1/x", [("x a", "2")]),
        ("/v1/x", [("x-a", "名前")]),
    ],
)
def test_a_request_that_could_split_into_two_is_refused(
    target: str, headers: list[tuple[str, str]]
) -> None:
    with pytest.raises(ValueError):  # noqa: PT011 - the message names the part, not a pattern
        encode_request("POST", target, headers, b"")
