"""The two HTTP/1.1 response parsers on hand, the core's `ResponseParser` and h11, side by side.

Issue 23 asks for one parser under both REST pools, the faster at equal strictness. Run
`python -m bench.http_parsers`: for each typical response (a ~2 KB JSON unary answer, a
chunked stream of many elements, a gzip body) it times one exchange as a pool does it
(encode the request, feed the response in 64 KiB reads until its end) and prints the
exchanges per second of each parser, then which of the malformed or ambiguous responses
each refuses.
"""

from __future__ import annotations

import gzip
import json
import time
from collections.abc import Callable

import h11
from h11._version import __version__ as h11_version

from groundwire.wire.http_codec import END, ProtocolError, ResponseParser, encode_request

READ_BYTES = 65536
HEADERS = [("host", "127.0.0.1:8080"), ("content-type", "application/json")]
REQUEST_BODY = b'{"answerCandidate": "x"}'


def _unary() -> bytes:
    body = json.dumps(
        {
            "supportScore": 0.75,
            "citedChunks": [{"chunkText": "t" * 360, "source": str(i)} for i in range(4)],
            "claims": [
                {"startPos": 0, "endPos": 12, "claimText": "c" * 120, "citationIndices": [0]}
            ]
            * 3,
        }
    ).encode()
    return b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: %d\r\n\r\n%s" % (
        len(body),
        body,
    )


def _stream(elements: int = 1000) -> bytes:
    element = json.dumps({"candidates": [{"content": {"parts": [{"text": "w" * 150}]}}]}).encode()
    chunks = [b"%x\r\n%s\r\n" % (len(element) + 1, element + b",") for _ in range(elements)]
    head = (
        b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n"
    )
    return head + b"".join(chunks) + b"0\r\n\r\n"


def _gzip() -> bytes:
    body = gzip.compress(json.dumps([{"text": f"word {i} " * 20} for i in range(4000)]).encode())
    return (
        b"HTTP/1.1 200 OK\r\ncontent-encoding: gzip\r\ncontent-length: %d\r\n\r\n" % len(body)
        + body
    )


def _reads(response: bytes) -> list[bytes]:
    return [response[i : i + READ_BYTES] for i in range(0, len(response), READ_BYTES)]


def core_exchange(reads: list[bytes]) -> int:
    """One exchange on the core's parser; the body's length."""
    encode_request("POST", "/v1/x", HEADERS, REQUEST_BODY)
    parser = ResponseParser("POST")
    size = 0
    for data in reads:
        for event in parser.feed(data):
            if type(event) is bytes:
                size += len(event)
    if not (parser.finished and parser.reusable):
        raise ProtocolError("the response did not end cleanly")
    return size


def h11_exchange(reads: list[bytes]) -> int:
    """One exchange on h11; the body's length."""
    connection = h11.Connection(h11.CLIENT)
    headers = [*HEADERS, ("content-length", str(len(REQUEST_BODY)))]
    connection.send(h11.Request(method="POST", target="/v1/x", headers=headers))
    connection.send(h11.Data(data=REQUEST_BODY))
    connection.send(h11.EndOfMessage())
    size = 0
    for data in reads:
        connection.receive_data(data)
        while True:
            event = connection.next_event()
            if event is h11.NEED_DATA:
                break
            if type(event) is h11.Data:
                size += len(event.data)
            elif type(event) is h11.EndOfMessage:
                break
    if connection.their_state is not h11.DONE or connection.trailing_data[0]:
        raise ProtocolError("the response did not end cleanly")
    return size


def _rate(exchange: Callable[[list[bytes]], int], reads: list[bytes], seconds: float) -> float:
    count, start = 0, time.perf_counter()
    while (elapsed := time.perf_counter() - start) < seconds:
        for _ in range(50):
            exchange(reads)
        count += 50
    return count / elapsed


_OK = b"HTTP/1.1 200 OK\r\n"
_CHUNKED = _OK + b"Transfer-Encoding: chunked\r\n"
MALFORMED = {
    "length and chunked": _CHUNKED + b"Content-Length: 5\r\n\r\n0\r\n\r\n",
    "two lengths": b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 40\r\n\r\nok",
    "negative chunk size": _CHUNKED + b"\r\n-5\r\nhello\r\n0\r\n\r\n",
    "chunk longer than its size": _CHUNKED + b"\r\n2\r\nhello\r\n0\r\n\r\n",
    "oversized head": b"HTTP/1.1 200 OK\r\nX-Big: " + b"x" * (70 * 1024) + b"\r\n\r\n",
    "folded header": b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n folded: header\r\n\r\nok",
    "unknown version": b"HTTP/9.9 200 OK\r\nContent-Length: 2\r\n\r\nok",
    "bytes after the end": b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokHTTP/1.1 200 OK\r\n",
}


def core_refuses(raw: bytes) -> bool:
    """Whether the core's parser refuses `raw` or leaves its connection unusable."""
    parser = ResponseParser("POST")
    try:
        events = parser.feed(raw)
    except ProtocolError:
        return True
    return END not in events or not parser.reusable


def h11_refuses(raw: bytes) -> bool:
    """Whether h11 refuses `raw` or leaves bytes a pool would have to check for itself."""
    connection = h11.Connection(h11.CLIENT)
    connection.send(
        h11.Request(method="POST", target="/", headers=[("host", "x"), ("content-length", "0")])
    )
    connection.send(h11.EndOfMessage())
    connection.receive_data(raw)
    try:
        while (event := connection.next_event()) not in (h11.NEED_DATA, h11.PAUSED):
            if type(event) is h11.EndOfMessage:
                break
    except h11.RemoteProtocolError:
        return True
    return connection.their_state is not h11.DONE or bool(connection.trailing_data[0])


def main(seconds: float = 1.0) -> None:
    """Prints exchanges/s of both parsers per response, then what each refuses."""
    print(f"{'response':<34}{'core ResponseParser':>22}{'h11 ' + h11_version:>16}{'core/h11':>10}")
    for name, response in [
        ("unary JSON", _unary()),
        ("chunked stream, 1000 elements", _stream()),
        ("gzip body", _gzip()),
    ]:
        reads = _reads(response)
        assert core_exchange(reads) == h11_exchange(reads)
        core, other = _rate(core_exchange, reads, seconds), _rate(h11_exchange, reads, seconds)
        label = f"{name} ({len(response) // 1024} KiB)"
        print(f"{label:<34}{core:>18,.0f} /s{other:>12,.0f} /s{core / other:>9.1f}x")
    print(f"\n{'refused':<34}{'core':>8}{'h11':>8}")
    for name, raw in MALFORMED.items():
        print(f"{name:<34}{core_refuses(raw)!s:>8}{h11_refuses(raw)!s:>8}")


if __name__ == "__main__":
    main()
