"""The web bridge through real servers on loopback, uvicorn (ASGI) and wsgiref (WSGI), and httpx."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Callable, Iterator
from typing import Any
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

import httpx
import pytest

from groundwire.contract.errors import InvalidArgument
from groundwire.contract.generation import GenerateResult
from groundwire.contract.results import CheckGroundingResult
from groundwire.emulator import Emulator
from groundwire.features.grounding_stream import AsyncGroundingStream
from groundwire.integrations.web import (
    EventStreamResponse,
    async_check_events,
    async_piece_events,
    check_events,
    piece_events,
    wsgi_events,
)
from tests.support.asgi import served

uvicorn = pytest.importorskip("uvicorn")

FACTS = ["東京は日本の首都です。", "Paris is the capital of France."]
ANSWER = "東京は日本の首都です。Paris is the capital of France 🇫🇷. The moon is made of cheese!"
WAIT = 30.0  # only catches a hang


def tokens() -> Iterator[bytes]:
    encoded = ANSWER.encode()
    for start in range(0, len(encoded), 5):
        yield encoded[start : start + 5]


def read_sse(response: httpx.Response) -> list[tuple[str, dict[str, Any]]]:
    """The events of an SSE body: `event:` and `data:` lines, a blank line ending each."""
    events, name, data = [], "", ""
    for line in response.iter_lines():
        if line.startswith("event: "):
            name = line[len("event: ") :]
        elif line.startswith("data: "):
            data = line[len("data: ") :]
        elif not line and name:
            events.append((name, json.loads(data)))
            name, data = "", ""
    return events


def read_ndjson(response: httpx.Response) -> list[tuple[str, dict[str, Any]]]:
    return [(r["event"], r["data"]) for r in map(json.loads, response.iter_lines()) if r]


READERS = {"sse": read_sse, "ndjson": read_ndjson}
TYPES = {"sse": "text/event-stream", "ndjson": "application/x-ndjson"}


HUNG_CHECKS_CANCELLED = threading.Event()


async def hanging_check(text: str, facts: object, **options: object) -> CheckGroundingResult:
    """The first sentence's check answers; the others wait until they are cancelled."""
    if text != "東京は日本の首都です。":
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            HUNG_CHECKS_CANCELLED.set()
            raise
    return CheckGroundingResult(text, 1.0, (), (), None)  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def asgi_url(grounding_emulator: Emulator) -> Iterator[str]:
    """A uvicorn server on loopback whose paths stream the emulator's answers and checks."""

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        assert scope["type"] == "http"
        query = dict(p.split("=") for p in scope["query_string"].decode().split("&"))
        form, transport = query["format"], query["transport"]
        async with grounding_emulator.async_client(transport=transport) as client:
            if scope["path"] == "/generate":
                pieces = client.stream_generate_grounded_content("東京は首都? Paris?", facts=FACTS)
                events: Any = async_piece_events(pieces)
            elif scope["path"] == "/check":
                events = async_check_events(client.check_grounding_stream(tokens(), FACTS))
            elif scope["path"] == "/hang":
                stream = AsyncGroundingStream(hanging_check, tokens(), FACTS, concurrency=2)
                events = async_check_events(stream)
            else:
                events = async_check_events(client.check_grounding_stream(tokens(), ["x" * 10_001]))
            await EventStreamResponse(events, form)(scope, receive, send)

    with served(app, lifespan="off") as url:
        yield url


def events_from(url: str, form: str) -> list[tuple[str, dict[str, Any]]]:
    with httpx.Client(timeout=WAIT) as http, http.stream("GET", url) as response:
        assert response.status_code == 200
        assert response.headers["content-type"].startswith(TYPES[form])
        return READERS[form](response)


def assert_check_events(events: list[tuple[str, dict[str, Any]]]) -> None:
    names = [name for name, _ in events]
    assert names == ["check", "check", "check", "summary"]
    encoded, utf16 = ANSWER.encode(), ANSWER.encode("utf-16-le")
    for _, data in events[:-1]:
        assert ANSWER[data["start"] : data["end"]] == data["text"]
        assert encoded[data["start_byte"] : data["end_byte"]].decode() == data["text"]
        assert (
            utf16[2 * data["start_utf16"] : 2 * data["end_utf16"]].decode("utf-16-le")
            == data["text"]
        )
        for claim in data["claims"]:
            assert ANSWER[claim["start"] : claim["end"]] == claim["text"]
    assert events[0][1]["claims"][0]["citations"][0]["fact_index"] == 0
    assert events[-1][1]["calls"] == 3


def assert_piece_events(events: list[tuple[str, dict[str, Any]]]) -> None:
    names = [name for name, _ in events]
    assert names[-1] == "summary"
    assert set(names[:-1]) == {"piece"}
    text = "".join(data["text"] for _, data in events[:-1])
    assert [data["length"] for _, data in events[:-1]][-1] == len(text)
    summary = events[-1][1]
    assert summary["length"] == len(text)
    assert summary["supports"]
    encoded = text.encode()
    for support in summary["supports"]:
        assert text[support["start"] : support["end"]] == support["claim_text"]
        assert (
            encoded[support["start_byte"] : support["end_byte"]].decode() == support["claim_text"]
        )
        assert all(0 <= i < len(summary["sources"]) for i in support["sources"])


@pytest.mark.parametrize("form", ["sse", "ndjson"])
@pytest.mark.parametrize("transport", ["grpc", "rest"])
def test_asgi_streams_each_sentence_check_then_the_summary(
    asgi_url: str, form: str, transport: str
) -> None:
    assert_check_events(events_from(f"{asgi_url}/check?format={form}&transport={transport}", form))


@pytest.mark.parametrize("form", ["sse", "ndjson"])
@pytest.mark.parametrize("transport", ["grpc", "rest"])
def test_asgi_streams_pieces_then_the_merged_citations(
    asgi_url: str, form: str, transport: str
) -> None:
    assert_piece_events(
        events_from(f"{asgi_url}/generate?format={form}&transport={transport}", form)
    )


def test_a_failure_is_an_error_event(asgi_url: str) -> None:
    events = events_from(f"{asgi_url}/fail?format=sse&transport=grpc", "sse")
    assert [name for name, _ in events] == ["error"]
    assert events[0][1]["code"] == "INVALID_ARGUMENT"


def test_a_client_that_goes_away_cancels_the_checks_in_flight(asgi_url: str) -> None:
    url = f"{asgi_url}/hang?format=ndjson&transport=grpc"
    with httpx.Client(timeout=WAIT) as http, http.stream("GET", url) as response:
        first = json.loads(next(response.iter_lines()))
    assert first["event"] == "check"
    assert HUNG_CHECKS_CANCELLED.wait(WAIT)


@pytest.fixture
def wsgi_server() -> Iterator[Callable[[Callable[..., Any]], str]]:
    """Starts a wsgiref server on loopback for a WSGI app; stops it at the end."""
    running: list[tuple[WSGIServer, threading.Thread]] = []

    class Quiet(WSGIRequestHandler):
        def log_message(self, *args: Any) -> None:
            """No access log in the test output."""

    def start(app: Callable[..., Any]) -> str:
        server = make_server("127.0.0.1", 0, app, handler_class=Quiet)
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        running.append((server, thread))
        return f"http://127.0.0.1:{server.server_port}"

    yield start
    for server, thread in running:
        server.shutdown()
        thread.join(WAIT)
        server.server_close()


@pytest.mark.parametrize("transport", ["grpc", "rest"])
def test_wsgi_streams_checks_and_pieces(
    wsgi_server: Callable[[Callable[..., Any]], str], grounding_emulator: Emulator, transport: str
) -> None:
    client = grounding_emulator.client(transport=transport)

    def app(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterator[bytes]:
        if environ["PATH_INFO"] == "/check":
            return wsgi_events(
                check_events(client.check_grounding_stream(tokens(), FACTS)), start_response
            )
        pieces = client.stream_generate_grounded_content("東京は首都? Paris?", facts=FACTS)
        return wsgi_events(piece_events(pieces), start_response, "ndjson")

    with client:
        url = wsgi_server(app)
        assert_check_events(events_from(f"{url}/check", "sse"))
        assert_piece_events(events_from(f"{url}/generate", "ndjson"))


def test_an_error_while_generating_ends_with_an_error_event() -> None:
    def failing() -> Iterator[GenerateResult]:
        yield GenerateResult("Hi", None, (), (), (), None)  # type: ignore[arg-type]
        raise InvalidArgument("prompt is empty")

    events = list(piece_events(failing()))
    assert events == [
        ("piece", {"text": "Hi", "length": 2}),
        ("error", {"code": "INVALID_ARGUMENT", "message": "prompt is empty"}),
    ]


def test_an_unknown_format_is_refused() -> None:
    with pytest.raises(ValueError, match="ndjson"):
        EventStreamResponse([], "xml")  # type: ignore[arg-type]
