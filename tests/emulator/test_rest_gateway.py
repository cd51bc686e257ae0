"""The REST gateway speaks Google's paths, proto3 JSON and JSON errors, and survives any body."""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterable, Iterator
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest
from google.protobuf.message import Message
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from groundwire.contract.apis import Method
from groundwire.emulator import Emulator, service
from tests.emulator.support import (
    CHECK_BODY,
    CHECK_PATH,
    CORROBORATE_PATH,
    GENERATE_PATH,
    PARIS,
    STREAM_PATH,
    generate_json,
)


@pytest.fixture(scope="module")
def http(emu: Emulator) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=emu.http_url, timeout=5) as client:
        yield client


def error_of(response: httpx.Response, status: int) -> dict[str, Any]:
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/json")
    error: dict[str, Any] = response.json()["error"]
    assert error["code"] == status
    return error


def violated_fields(error: dict[str, Any]) -> list[str]:
    (detail,) = [d for d in error["details"] if d["@type"].endswith("google.rpc.BadRequest")]
    return [violation["field"] for violation in detail["fieldViolations"]]


def test_check_grounding_answers_proto3_json(http: httpx.Client) -> None:
    response = http.post(CHECK_PATH, json=CHECK_BODY)
    assert response.status_code == 200
    (claim,) = response.json()["claims"]
    assert claim["claimText"] == "Paris is the capital of France."
    assert claim["citationIndices"] == [0]


def test_the_official_clients_system_parameters_are_accepted(http: httpx.Client) -> None:
    plain = http.post(GENERATE_PATH, json=generate_json())
    as_ints = http.post(GENERATE_PATH + "?$alt=json;enum-encoding=int", json=generate_json())
    metadata = [r.json()["candidates"][0]["groundingMetadata"] for r in (plain, as_ints)]
    assert metadata[0]["retrievalMetadata"] == [{"source": "INLINE_CONTENT"}]
    assert metadata[1]["retrievalMetadata"] == [{"source": 2}]


def test_malformed_json_is_a_400_in_googles_error_shape(http: httpx.Client) -> None:
    error = error_of(
        http.post(
            CHECK_PATH,
            content=b'{"answerCandidate": ',
            headers={"content-type": "application/json"},
        ),
        400,
    )
    assert error["status"] == "INVALID_ARGUMENT"
    assert violated_fields(error) == ["body"]


def test_a_body_that_is_not_json_by_content_type_is_a_400(http: httpx.Client) -> None:
    response = http.post(
        CHECK_PATH, content=json.dumps(CHECK_BODY), headers={"content-type": "text/plain"}
    )
    assert violated_fields(error_of(response, 400)) == ["Content-Type"]


def test_unknown_fields_are_a_400(http: httpx.Client) -> None:
    error = error_of(http.post(CHECK_PATH, json={**CHECK_BODY, "answer": "x"}), 400)
    assert "answer" in error["message"]


@pytest.mark.parametrize(
    "path",
    [
        "/v1/nowhere:check",
        "/v1/projects/p/groundingConfigs/default_grounding_config:check",
        "/v1/projects/p/locations:corroborateContent",
    ],
)
def test_a_path_that_no_http_rule_matches_is_a_404(http: httpx.Client, path: str) -> None:
    # Google's front end routes by the rules' patterns: a malformed resource name in the
    # path matches no rule, so it is NOT_FOUND before any method sees it.
    assert error_of(http.post(path, json={}), 404)["status"] == "NOT_FOUND"


def test_an_unknown_grounding_config_is_a_404(http: httpx.Client) -> None:
    path = CHECK_PATH.replace("default_grounding_config", "mine")
    assert error_of(http.post(path, json=CHECK_BODY), 404)["status"] == "NOT_FOUND"


def test_unknown_paths_are_a_404_and_wrong_verbs_a_405(http: httpx.Client) -> None:
    assert error_of(http.post("/v2/projects/p:check", json={}), 404)["status"] == "NOT_FOUND"
    wrong_verb = http.get(CHECK_PATH)
    error_of(wrong_verb, 405)
    assert wrong_verb.headers["allow"] == "POST"


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"facts": [{"factText": "fact"}] * 201}, "facts"),
        ({"facts": [{"factText": "x" * 10_001}]}, "facts[0].fact_text"),
        ({"groundingSpec": {"citationThreshold": 1.5}}, "grounding_spec.citation_threshold"),
    ],
)
def test_documented_limits_name_the_field(
    http: httpx.Client, body: dict[str, Any], field: str
) -> None:
    response = http.post(CHECK_PATH, json={"answerCandidate": "Paris is in France.", **body})
    assert violated_fields(error_of(response, 400)) == [field]


def test_a_body_over_the_limit_is_refused_as_soon_as_content_length_says_so(
    emu: Emulator,
) -> None:
    url = urlsplit(emu.http_url)
    with socket.create_connection((url.hostname, url.port), timeout=5) as connection:
        connection.sendall(
            f"POST {CHECK_PATH} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            f"Content-Length: {64 * 1024 * 1024}\r\n\r\n{{".encode()
        )
        answer = _read_one_response(connection)
    assert answer.startswith("HTTP/1.1 413"), answer
    assert '"code":413' in answer


def _read_one_response(connection: socket.socket) -> str:
    """Reads a whole response with a Content-Length (however the server split its writes)."""
    received = b""
    while b"\r\n\r\n" not in received or len(received) < _response_length(received):
        piece = connection.recv(65536)
        if not piece:
            break
        received += piece
    return received.decode()


def _response_length(received: bytes) -> int:
    head, _, _ = received.partition(b"\r\n\r\n")
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            return len(head) + 4 + int(value)
    return len(received)


def test_a_streamed_body_over_the_limit_is_refused_with_413(http: httpx.Client) -> None:
    def body() -> Iterator[bytes]:
        yield b'{"answerCandidate": "'
        for _ in range(33):
            yield b"x" * (1024 * 1024)
        yield b'"}'

    response = http.post(CHECK_PATH, content=body(), headers={"content-type": "application/json"})
    assert "limit" in error_of(response, 413)["message"]


STREAM_HOLD = 5.0
"""How long the emulator holds a stream's rest for its first answer to arrive: a hang guard."""


def test_a_stream_is_a_json_array_sent_element_by_element(
    emu: Emulator, monkeypatch: pytest.MonkeyPatch
) -> None:
    words = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota"]
    heavy_facts = tuple(
        " ".join(words[(fact * 7 + word * 3) % 9] + "." * (word % 9 == 8) for word in range(1400))
        for fact in range(60)
    )
    requests = [generate_json(), *[generate_json("alpha beta?", heavy_facts)] * 3]
    first_arrived = threading.Event()
    held: list[bool] = []  # whether the client had the first answer while the rest waited
    handle_stream = service.handle_stream

    def held_after_the_first(
        method: Method, requests: Iterable[Message], judge: Any = None
    ) -> Iterator[Message]:
        responses = iter(handle_stream(method, requests, judge))
        yield next(responses)
        held.append(first_arrived.wait(STREAM_HOLD))
        yield from responses

    monkeypatch.setattr(service, "handle_stream", held_after_the_first)
    body = b""
    with httpx.stream("POST", emu.http_url + STREAM_PATH, json=requests, timeout=9) as response:
        assert response.headers["transfer-encoding"] == "chunked"
        for chunk in response.iter_raw():
            body += chunk
            if b'"candidates"' in body:
                first_arrived.set()
    elements = json.loads(body)
    assert len(elements) > len(requests)
    assert all(e["candidates"][0]["content"]["role"] == "model" for e in elements)
    # The engine answers each request of the stream on its own, once the switchboard hands it on.
    assert held == [True] * len(requests), "the first answer arrives before the last is made"


def test_a_client_leaving_mid_stream_does_not_hurt_the_server(
    emu: Emulator, http: httpx.Client
) -> None:
    requests = [generate_json()] * 50
    with httpx.stream("POST", emu.http_url + STREAM_PATH, json=requests, timeout=5) as response:
        next(response.iter_raw())
    assert http.post(CHECK_PATH, json=CHECK_BODY).status_code == 200


def test_a_single_request_object_streams_too(http: httpx.Client) -> None:
    elements = http.post(STREAM_PATH, json=generate_json()).json()
    assert "groundingMetadata" in elements[-1]["candidates"][0]
    assert all("groundingMetadata" not in e["candidates"][0] for e in elements[:-1])


def test_alt_sse_sends_one_event_per_response(http: httpx.Client) -> None:
    response = http.post(STREAM_PATH + "?alt=sse", json=[generate_json(), generate_json()])
    assert response.headers["content-type"].startswith("text/event-stream")
    events = [e for e in response.text.split("\r\n\r\n") if e]
    assert all(event.startswith("data: ") for event in events)
    texts = [json.loads(e[6:])["candidates"][0]["content"]["parts"][0]["text"] for e in events]
    assert "".join(texts).count("Paris") == 2


def test_an_error_after_the_first_response_ends_the_stream_with_an_error_element(
    http: httpx.Client,
) -> None:
    elements = http.post(STREAM_PATH, json=[generate_json(), {"contents": []}]).json()
    assert elements[-1]["error"]["status"] == "INVALID_ARGUMENT"
    assert "candidates" in elements[0]


def test_google_search_sources_are_a_failed_precondition(http: httpx.Client) -> None:
    body = generate_json()
    body["groundingSpec"]["groundingSources"] = [{"googleSearchSource": {}}]
    error = error_of(http.post(GENERATE_PATH, json=body), 400)
    assert error["status"] == "FAILED_PRECONDITION"
    assert "cannot reach Google Search" in error["message"]


def test_corroborate_content_answers_over_rest(http: httpx.Client) -> None:
    body = {
        "content": {"parts": [{"text": "Paris is the capital of France."}]},
        "facts": [{"summary": PARIS}],
    }
    (claim,) = http.post(CORROBORATE_PATH, json=body).json()["claims"]
    assert claim["factIndexes"] == [0]


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=12), children, max_size=4)
    ),
    max_leaves=20,
)
field_names = st.sampled_from(
    [
        "answerCandidate",
        "facts",
        "factText",
        "attributes",
        "groundingSpec",
        "citationThreshold",
        "enableClaimLevelScore",
        "userLabels",
        "groundingConfig",
        "answer_candidate",
    ]
)
check_like = st.dictionaries(field_names, json_values, max_size=5)


@settings(
    max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(body=json_values | check_like | st.binary(max_size=64))
def test_random_bodies_are_refused_with_4xx_never_5xx(http: httpx.Client, body: Any) -> None:
    content = body if isinstance(body, bytes) else json.dumps(body).encode()
    response = http.post(CHECK_PATH, content=content, headers={"content-type": "application/json"})
    assert response.status_code < 500, response.text
    if response.status_code >= 400:
        assert "error" in response.json()
    assert http.post(CHECK_PATH, json=CHECK_BODY).status_code == 200
