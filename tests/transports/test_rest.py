"""Both REST transports, blocking and asyncio, against a real HTTP/1.1 server on loopback."""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
from google.protobuf.message import Message
from google.rpc import error_details_pb2

from groundwire.contract.errors import (
    ClientClosed,
    DeadlineExceeded,
    GroundwireError,
    Internal,
    InvalidArgument,
    Unavailable,
)
from groundwire.transports.base import ConnectionFailure
from groundwire.transports.rest import SYSTEM_QUERY, RestTransport
from groundwire.transports.rest_aio import AsyncRestTransport
from tests.reliability.raw_servers import RawServer, http_reply
from tests.transports import canned, servers
from tests.transports.kinds import Transports
from tests.transports.servers import RestServer


@pytest.fixture
def transport(kinds: Transports, rest_server: RestServer) -> Any:
    return kinds.rest(rest_server.base_url, credentials=None)


def test_a_unary_call_returns_the_response_with_cjk_and_emoji_intact(
    kinds: Transports, transport: Any
) -> None:
    response = kinds.check(transport, canned.OK)
    assert response == canned.check_response()
    assert response.cited_chunks[0].chunk_text == canned.TEXT


def test_the_request_is_posted_as_json_with_the_metadata_as_headers(
    kinds: Transports, transport: Any, rest_server: RestServer
) -> None:
    kinds.check(transport, canned.OK)
    headers = rest_server.seen.metadata[-1]
    assert headers["content-type"] == "application/json"
    for name, value in canned.METADATA:
        assert headers[name] == value
    assert "authorization" not in headers
    assert rest_server.seen.paths[-1].startswith(f"/v1/{canned.CONFIG}:check?")
    assert rest_server.seen.paths[-1].endswith(SYSTEM_QUERY)


def test_a_call_names_its_host_asks_for_gzip_and_gives_its_length(
    kinds: Transports, transport: Any, rest_server: RestServer
) -> None:
    kinds.check(transport, canned.OK)
    sent = rest_server.seen.metadata[-1]
    assert sent["host"] == f"127.0.0.1:{rest_server.server_address[1]}"
    assert sent["accept-encoding"] == "gzip"
    assert int(sent["content-length"]) == len(rest_server.seen.bodies[-1])


def test_connections_are_kept_alive(
    kinds: Transports, transport: Any, rest_server: RestServer
) -> None:
    for _ in range(3):
        kinds.check(transport, canned.OK)
    assert len(rest_server.seen.peers) == 3
    assert len(set(rest_server.seen.peers)) == 1


def test_a_google_json_error_with_details_is_the_same_error_as_over_grpc(
    kinds: Transports, transport: Any
) -> None:
    with pytest.raises(InvalidArgument) as raised:
        kinds.check(transport, canned.INVALID)
    assert raised.value.message == canned.INVALID_MESSAGE
    bad_request = raised.value.detail(error_details_pb2.BadRequest)
    assert bad_request is not None
    assert list(bad_request.field_violations) == [canned.VIOLATION]


def test_unavailable_sent_by_a_reachable_server_is_not_a_connection_failure(
    kinds: Transports, transport: Any
) -> None:
    with pytest.raises(Unavailable) as raised:
        kinds.check(transport, canned.UNAVAILABLE)
    assert not isinstance(raised.value, ConnectionFailure)
    assert raised.value.message == canned.UNAVAILABLE_MESSAGE


def test_a_proxys_html_502_page_is_unavailable_with_an_excerpt(
    kinds: Transports, transport: Any
) -> None:
    with pytest.raises(Unavailable) as raised:
        kinds.check(transport, servers.HTML)
    assert "Bad Gateway" in raised.value.message
    assert "<" not in raised.value.message
    assert raised.value.http_status == 502


@pytest.mark.parametrize("answer", [servers.GARBAGE, servers.TRUNCATED, servers.ARRAY])
def test_a_2xx_body_that_is_not_the_message_is_an_internal_error(
    kinds: Transports, transport: Any, answer: str
) -> None:
    with pytest.raises(Internal) as raised:
        kinds.check(transport, answer)
    assert "CheckGrounding" in raised.value.message


@pytest.mark.parametrize("answer", [servers.DROP, servers.CUT])
def test_a_dropped_connection_is_a_retryable_unavailable(
    kinds: Transports, transport: Any, answer: str
) -> None:
    with pytest.raises(Unavailable) as raised:
        kinds.check(transport, answer)
    assert not isinstance(raised.value, ConnectionFailure)
    assert raised.value.retryable


def test_the_pool_recovers_after_a_dropped_connection(kinds: Transports, transport: Any) -> None:
    with pytest.raises(Unavailable):
        kinds.check(transport, servers.DROP)
    assert kinds.check(transport, canned.OK) == canned.check_response()


def test_a_response_that_breaks_http_is_a_retryable_unavailable_naming_it(
    kinds: Transports,
) -> None:
    two_ways = http_reply(
        b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"
    )
    with RawServer(two_ways) as server, pytest.raises(Unavailable) as raised:
        kinds.check(kinds.rest(server.url, credentials=None), canned.OK)
    assert "broke HTTP/1.1" in raised.value.message
    assert raised.value.retryable
    assert not isinstance(raised.value, ConnectionFailure)


def test_a_call_past_its_timeout_raises_deadline_exceeded(
    kinds: Transports, transport: Any
) -> None:
    kinds.check(transport)  # connected first: the timeout, not a slow connect, ends the call
    with pytest.raises(DeadlineExceeded):
        kinds.check(transport, canned.SLOW, timeout=0.2)


def test_calls_after_close_are_client_closed(kinds: Transports, transport: Any) -> None:
    kinds.run(transport.close())
    with pytest.raises(ClientClosed):
        kinds.check(transport, canned.OK)


TRICKLED_BODY = b'{"supportScore": 0.5}' + b" " * 20
TRICKLED_HEAD = (
    b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n"
    b"content-length: %d\r\n\r\n" % len(TRICKLED_BODY)
)


@contextlib.contextmanager
def trickling_server(head_first: bool) -> Iterator[str]:
    """A server that answers one byte every 0.1 s: 4 to 6 s in all, always a little more.

    The head comes at once when `head_first`, else byte by byte like the body.
    """
    listener = socket.create_server(("127.0.0.1", 0))
    stop = threading.Event()

    def serve() -> None:
        connection, _ = listener.accept()
        with connection:
            request = b""
            while b"\r\n\r\n" not in request:
                request += connection.recv(65536)
            trickled = TRICKLED_BODY
            if head_first:
                connection.sendall(TRICKLED_HEAD)
            else:
                trickled = TRICKLED_HEAD + TRICKLED_BODY
            for byte in trickled:
                if stop.wait(0.1):
                    return
                connection.sendall(bytes([byte]))

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}"
    finally:
        stop.set()
        listener.close()
        thread.join(timeout=3)


@pytest.mark.parametrize("head_first", [True, False], ids=["body", "head and body"])
def test_the_timeout_bounds_the_whole_attempt_not_each_read(
    kinds: Transports, head_first: bool
) -> None:
    with trickling_server(head_first) as base_url:
        transport = kinds.rest(base_url, credentials=None)
        started = time.monotonic()
        with pytest.raises(DeadlineExceeded):
            kinds.unary(transport, canned.check_request(), timeout=0.5)
    assert time.monotonic() - started < 3.5  # far past 0.5 s, and before the trickle's 4 s end


def test_a_refused_port_is_a_connection_failure(kinds: Transports, refused_port: int) -> None:
    transport = kinds.rest(f"http://127.0.0.1:{refused_port}", credentials=None)
    with pytest.raises(ConnectionFailure):
        kinds.check(transport, canned.OK)


def test_a_bad_resource_name_fails_before_anything_is_sent(
    kinds: Transports, transport: Any, rest_server: RestServer
) -> None:
    request = canned.check_request()
    request.grounding_config = "not/a/config"
    with pytest.raises(InvalidArgument):
        kinds.unary(transport, request, timeout=1.0, metadata=())
    assert rest_server.seen.calls == 0


def test_a_live_stream_is_refused_clearly_since_rest_reads_every_request_first(
    kinds: Transports, transport: Any, rest_server: RestServer
) -> None:
    with pytest.raises(InvalidArgument, match="gRPC-only"):
        kinds.stream(transport, kinds.live(canned.stream_request(text) for text in ("一", "二")))
    assert rest_server.seen.calls == 0


def test_a_stream_posts_every_request_as_one_json_array(
    kinds: Transports, transport: Any, rest_server: RestServer
) -> None:
    requests = [canned.stream_request(text) for text in ("一", "二 🎉", canned.TEXT)]
    responses = kinds.stream(transport, requests, metadata=canned.METADATA)
    assert [canned.streamed_text(r) for r in responses] == [
        "0: 一",
        "1: 二 🎉",
        f"2: {canned.TEXT}",
    ]
    assert rest_server.seen.bodies[-1].startswith(b"[{")
    assert rest_server.seen.paths[-1].startswith(
        f"/v1/{canned.LOCATION}:streamGenerateGroundedContent?"
    )
    assert rest_server.seen.metadata[-1]["x-goog-api-client"] == canned.METADATA[1][1]


def test_a_stream_yields_each_element_as_soon_as_it_has_arrived(
    kinds: Transports, transport: Any, rest_server: RestServer
) -> None:
    rest_server.gate = threading.Event()
    requests = [canned.stream_request(text) for text in ("a", "b", "c")]
    texts: list[str] = []

    def arrived(response: Message) -> None:
        texts.append(canned.streamed_text(response))
        assert rest_server.gate is not None
        rest_server.gate.set()  # the server sends the rest only now

    kinds.stream(transport, requests, each=arrived, timeout=5.0)
    assert texts == ["0: a", "1: b", "2: c"]
    assert rest_server.gate_passed is True


def test_a_stream_past_its_timeout_raises_deadline_exceeded(
    kinds: Transports, transport: Any, rest_server: RestServer
) -> None:
    kinds.check(transport)  # connected first: the timeout, not a slow connect, ends the call
    rest_server.gate = threading.Event()  # never set: the server stalls after one element
    requests = [canned.stream_request(text) for text in ("a", "b")]
    texts: list[str] = []
    with pytest.raises(DeadlineExceeded):
        kinds.stream(
            transport, requests, each=lambda r: texts.append(canned.streamed_text(r)), timeout=0.5
        )
    assert texts == ["0: a"]
    rest_server.gate.set()


def test_an_error_element_in_a_stream_is_raised_after_the_earlier_responses(
    kinds: Transports, transport: Any
) -> None:
    requests = [canned.stream_request(servers.STREAM_ERROR), canned.stream_request("b")]
    texts: list[str] = []
    with pytest.raises(Unavailable) as raised:
        kinds.stream(transport, requests, each=lambda r: texts.append(canned.streamed_text(r)))
    assert len(texts) == 1
    assert texts[0].startswith("0: ")
    assert raised.value.message == canned.UNAVAILABLE_MESSAGE


def test_a_truncated_stream_is_an_internal_error(kinds: Transports, transport: Any) -> None:
    requests = [canned.stream_request(servers.STREAM_TRUNCATED), canned.stream_request("b")]
    with pytest.raises(GroundwireError) as raised:
        kinds.stream(transport, requests)
    assert isinstance(raised.value, Internal)
    assert "ended early" in raised.value.message


def test_a_stream_whose_requests_name_different_resources_fails_before_sending(
    kinds: Transports, transport: Any, rest_server: RestServer
) -> None:
    other = canned.stream_request("b")
    other.location = "projects/other/locations/global"
    with pytest.raises(InvalidArgument):
        kinds.stream(transport, [canned.stream_request("a"), other])
    assert rest_server.seen.calls == 0


@pytest.mark.parametrize(
    ("base_url", "reason"),
    [
        ("http://example.com", "plaintext is only allowed to a loopback address"),
        ("http://10.1.2.3:8080", "plaintext is only allowed to a loopback address"),
        ("ftp://127.0.0.1", "use https://"),
        ("http://foo.localhost:8080", "plaintext is only allowed to a loopback address"),
    ],
)
@pytest.mark.parametrize("transport_class", [RestTransport, AsyncRestTransport])
def test_plaintext_is_refused_to_a_host_that_is_not_loopback(
    transport_class: type[Any], base_url: str, reason: str
) -> None:
    with pytest.raises(ValueError, match=reason):
        transport_class(base_url, credentials=None)


@pytest.mark.parametrize("transport_class", [RestTransport, AsyncRestTransport])
def test_plaintext_is_refused_with_credentials(transport_class: type[Any]) -> None:
    from google.oauth2.credentials import Credentials

    with pytest.raises(ValueError, match="credentials"):
        transport_class("http://127.0.0.1:8080", credentials=Credentials(token="secret"))
