"""Stubs, the journal and the admin API: a test steers the emulator and sees what was sent."""

from __future__ import annotations

import contextlib
import http.client
import json
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import grpc
import httpx
import pytest

from groundwire.contract.errors import (
    DeadlineExceeded,
    Internal,
    InvalidArgument,
    NotFound,
    ResourceExhausted,
    Unavailable,
)
from groundwire.contract.retry import RetryPolicy
from groundwire.emulator import Emulator, emulator
from groundwire.emulator.answering import Pacing
from groundwire.emulator.control import ControlOptions
from tests.emulator.support import (
    CHECK,
    CHECK_BODY,
    CHECK_PATH,
    GROUNDING_CONFIG,
    STREAM,
    STREAM_PATH,
    check_request,
    generate_json,
    run_python,
    unary_call,
)

SECRET_TOKEN = "ya29.a0-never-in-the-journal-0123456789"
V1_CHECK = "google.cloud.discoveryengine.v1.GroundedGenerationService/CheckGrounding"


@pytest.fixture
def clean(emu: Emulator) -> Iterator[Emulator]:
    emu.reset()
    yield emu
    emu.reset()


def _admin(emu: Emulator, verb: str, path: str, body: Any = None) -> tuple[int, Any]:
    """One admin call in plain HTTP (http.client), as any language would make it."""
    address = urlsplit(emu.http_url)
    connection = http.client.HTTPConnection(address.hostname or "", address.port, timeout=10)
    try:
        data = None if body is None else json.dumps(body)
        headers = {"Content-Type": "application/json"} if data else {}
        connection.request(verb, f"/groundwire/v1/{path}", body=data, headers=headers)
        answer = connection.getresponse()
        return answer.status, json.loads(answer.read() or b"null")
    finally:
        connection.close()


def _violation(document: Any) -> str:
    (detail,) = document["error"]["details"]
    return str(detail["fieldViolations"][0]["field"])


def _text(element: dict[str, Any]) -> str:
    return str(element["candidates"][0]["content"]["parts"][0]["text"])


OFFICIAL_CHECK = """
import json, sys
import grpc
from google.cloud import discoveryengine_v1 as de
from google.cloud.discoveryengine_v1.services.grounded_generation_service import transports

channel = grpc.insecure_channel(sys.argv[1])
client = de.GroundedGenerationServiceClient(
    transport=transports.GroundedGenerationServiceGrpcTransport(channel=channel))
response = client.check_grounding(request=de.CheckGroundingRequest(
    grounding_config="projects/p/locations/global/groundingConfigs/default_grounding_config",
    answer_candidate="Paris is in France.",
    facts=[de.GroundingFact(fact_text="Paris is the capital of France.")]))
print(json.dumps({"support_score": response.support_score,
                  "claims": [claim.claim_text for claim in response.claims]}))
"""


@pytest.mark.official
def test_a_stub_registered_over_plain_http_answers_the_official_client_over_grpc(
    clean: Emulator,
) -> None:
    stub = {
        "method": "CheckGrounding",
        "match": {"answerCandidate": "Paris is in France."},
        "response": {"supportScore": 0.125, "claims": [{"claimText": "stubbed claim"}]},
    }
    status, registered = _admin(clean, "POST", "stubs", stub)
    assert status == 200
    assert registered["method"] == "CheckGrounding"
    answer = json.loads(run_python(OFFICIAL_CHECK, clean.grpc_address))
    assert answer == {"support_score": 0.125, "claims": ["stubbed claim"]}
    status, journal = _admin(clean, "GET", "requests?method=CheckGrounding")
    assert status == 200
    (entry,) = journal["requests"]
    assert entry["transport"] == "grpc"
    assert entry["version"] == "v1"
    assert entry["grpcMethod"] == V1_CHECK
    assert entry["request"]["answerCandidate"] == "Paris is in France."
    assert entry["request"]["facts"] == [{"factText": "Paris is the capital of France."}]


def test_stubs_match_on_text_regex_and_subsets_else_the_engine_answers(clean: Emulator) -> None:
    clean.stub(
        "CheckGrounding",
        match={"answerCandidate": {"regex": "^Rome"}, "facts": [{"factText": "Rome is old."}]},
        response={"supportScore": 0.75},
    )
    client = clean.client(transport="rest")
    with client:
        hit = client.check_grounding("Rome is in Italy.", facts=["Hm.", "Rome is old."])
        miss = client.check_grounding("Rome is in Italy.", facts=["Hm."])
    assert hit.support_score == 0.75
    assert not hit.claims
    assert miss.support_score != 0.75
    assert miss.claims


def test_priority_then_newest_first_and_times_then_fall_through(clean: Emulator) -> None:
    clean.stub("CheckGrounding", response={"supportScore": 0.125})
    clean.stub("CheckGrounding", response={"supportScore": 0.25})
    clean.stub("CheckGrounding", response={"supportScore": 0.75}, priority=5, times=1)
    with clean.client() as client:
        scores = [client.check_grounding("A.", facts=["A."]).support_score for _ in range(3)]
    assert scores == [0.75, 0.25, 0.25]
    stubs = clean.stubs()
    assert [stub["answered"] for stub in stubs] == [1, 2, 0]


def test_a_full_grpc_name_stubs_one_version_only(clean: Emulator) -> None:
    clean.stub(V1_CHECK, response={"supportScore": 0.5})
    with clean.client(api_version="v1") as v1, clean.client(api_version="v1beta") as v1beta:
        assert v1.check_grounding("A.", facts=["A."]).support_score == 0.5
        assert v1beta.check_grounding("A.", facts=["A."]).support_score != 0.5


@pytest.mark.parametrize("transport", ["grpc", "rest"])
def test_unavailable_twice_then_success_drives_groundwires_retry(
    clean: Emulator, transport: str
) -> None:
    unavailable = {"error": {"code": "UNAVAILABLE", "message": "flaky"}}
    clean.stub(
        "CheckGrounding",
        sequence=[unavailable, unavailable, {"response": {"supportScore": 0.5}}],
    )
    retry = RetryPolicy(initial=0.01, maximum=0.05, max_attempts=5)
    with clean.client(transport=transport, retry=retry) as client:
        assert client.check_grounding("A.", facts=["A."]).support_score == 0.5
    assert len(clean.requests("CheckGrounding")) == 3
    with clean.client(transport=transport, retry=None) as client:
        assert client.check_grounding("A.", facts=["A."]).support_score == 0.5  # the last repeats


@pytest.mark.parametrize("transport", ["grpc", "rest"])
def test_resource_exhausted_with_retry_info_says_how_long_to_wait(
    clean: Emulator, transport: str
) -> None:
    retry_info = {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "2s"}
    clean.stub(
        "CheckGrounding",
        error={"code": "RESOURCE_EXHAUSTED", "message": "quota", "details": [retry_info]},
    )
    with (
        clean.client(transport=transport, retry=None) as client,
        pytest.raises(ResourceExhausted) as raised,
    ):
        client.check_grounding("A.", facts=["A."])
    assert raised.value.retry_delay == 2.0
    assert raised.value.message == "quota"


@pytest.mark.parametrize("transport", ["grpc", "rest"])
def test_a_stall_meets_the_callers_deadline(clean: Emulator, transport: str) -> None:
    clean.stub("CheckGrounding", response={"supportScore": 0.5}, delay_ms=5000)
    started = time.monotonic()
    with clean.client(transport=transport, retry=None) as client, pytest.raises(DeadlineExceeded):
        client.check_grounding("A.", facts=["A."], timeout=0.3)
    assert time.monotonic() - started < 4.5  # the deadline, not the stall, ended the call


STREAMED = [
    {"response": {"candidates": [{"content": {"parts": [{"text": "first "}]}}]}},
    {"response": {"candidates": [{"content": {"parts": [{"text": "second"}]}}]}, "delayMs": 50},
]


def test_a_stream_stub_closes_the_grpc_connection_mid_stream(clean: Emulator) -> None:
    clean.stub("StreamGenerateGroundedContent", stream=[*STREAMED, {"abort": True}])
    request = STREAM.request_class(location="projects/p/locations/global")
    with grpc.insecure_channel(clean.grpc_address) as own:  # the stub breaks its connection
        call = own.stream_stream(
            STREAM.grpc_path,
            request_serializer=lambda request: request.SerializeToString(),
            response_deserializer=STREAM.response_class.FromString,
        )
        responses: Any = call(iter([request]), timeout=10)
        received = [_piece_text(next(responses)) for _ in range(2)]
        with pytest.raises(grpc.RpcError) as raised:
            next(responses)
    assert received == ["first ", "second"]
    assert raised.value.code() == grpc.StatusCode.UNAVAILABLE
    with grpc.insecure_channel(clean.grpc_address) as fresh:
        response: Any = unary_call(fresh, CHECK, check_request())
        assert response.claims  # the server serves on


def _piece_text(response: Any) -> str:
    return str(response.candidates[0].content.parts[0].text)


def test_a_stream_stub_closes_the_rest_connection_mid_stream(clean: Emulator) -> None:
    clean.stub("StreamGenerateGroundedContent", stream=[*STREAMED, {"abort": True}])
    body = bytearray()

    def read_all() -> None:
        with httpx.stream("POST", clean.http_url + STREAM_PATH, json=generate_json()) as answer:
            for chunk in answer.iter_raw():
                body.extend(chunk)

    with pytest.raises(httpx.RemoteProtocolError):
        read_all()
    assert b'"second"' in body
    assert not body.rstrip().endswith(b"]")


def test_a_stream_stub_can_end_with_an_error_over_grpc(clean: Emulator) -> None:
    clean.stub(
        "StreamGenerateGroundedContent",
        stream=[*STREAMED, {"error": {"code": "INTERNAL", "message": "broke"}}],
    )
    with clean.client(retry=None) as client:
        stream = client.stream_generate_grounded_content("Where is Paris?")
        texts = [next(stream).text for _ in range(2)]
        with pytest.raises(Internal, match="broke"):
            next(stream)
    assert texts == ["first ", "second"]


def test_a_stream_stub_can_end_with_an_error_over_rest(clean: Emulator) -> None:
    clean.stub(
        "StreamGenerateGroundedContent",
        stream=[*STREAMED, {"error": {"code": "INTERNAL", "message": "broke"}}],
    )
    elements = httpx.post(clean.http_url + STREAM_PATH, json=generate_json(), timeout=10).json()
    assert [_text(element) for element in elements[:2]] == ["first ", "second"]
    assert elements[2]["error"]["status"] == "INTERNAL"


@pytest.mark.parametrize(
    ("stub", "field"),
    [
        ({"response": {"supportScore": 1}}, "method"),
        ({"method": "Nope", "response": {}}, "method"),
        ({"method": "CheckGrounding"}, "outcome"),
        ({"method": "CheckGrounding", "response": {"supportScore": "x"}}, "response"),
        ({"method": "CheckGrounding", "response": {"noSuchField": 1}}, "response"),
        ({"method": "CheckGrounding", "stream": [{"abort": True}]}, "stream"),
        ({"method": "CheckGrounding", "match": {"answer_candiate": "x"}, "response": {}}, None),
        ({"method": "CheckGrounding", "match": {"answerCandidate": {"regex": "("}}}, None),
        ({"method": "CheckGrounding", "times": 0, "response": {}}, "times"),
        ({"method": "CheckGrounding", "sequence": []}, "sequence"),
        ({"method": "CheckGrounding", "sequence": [{"error": {"code": 99}}]}, None),
        ({"method": "CheckGrounding", "response": {}, "colour": "red"}, "colour"),
    ],
)
def test_a_malformed_stub_gets_a_400_naming_its_field(
    clean: Emulator, stub: dict[str, Any], field: str | None
) -> None:
    status, document = _admin(clean, "POST", "stubs", stub)
    assert status == 400
    assert document["error"]["status"] == "INVALID_ARGUMENT"
    expected = (
        field
        or {
            "answer_candiate": "match.answer_candiate",
            "(": "match.answerCandidate.regex",
            "99": "sequence[0].error.code",
        }[next(key for key in ("answer_candiate", "(", "99") if key in json.dumps(stub))]
    )
    assert _violation(document) == expected
    assert _admin(clean, "GET", "stubs") == (200, {"stubs": []})


def test_the_python_api_raises_typed_errors(clean: Emulator) -> None:
    with pytest.raises(InvalidArgument, match=r"supportScore|support_score"):
        clean.stub("CheckGrounding", response={"supportScore": "high"})
    with pytest.raises(NotFound):
        clean.remove_stub("no-such-stub")


def test_stubs_are_listed_removed_one_by_one_and_all_at_once(clean: Emulator) -> None:
    first = clean.stub("CheckGrounding", response={}, id="first")
    clean.stub("CorroborateContent", response={})
    assert first["id"] == "first"
    assert len(clean.stubs()) == 2
    assert _admin(clean, "DELETE", "stubs/first") == (200, {})
    assert [stub["method"] for stub in clean.stubs()] == ["CorroborateContent"]
    assert _admin(clean, "DELETE", "stubs") == (200, {})
    assert clean.stubs() == []
    status, document = _admin(clean, "PUT", "stubs")
    assert status == 405
    assert document["error"]["status"] == "UNIMPLEMENTED"


def test_the_journal_keeps_requests_and_metadata_but_never_a_bearer_token(
    clean: Emulator, channel: grpc.Channel
) -> None:
    secrets: tuple[tuple[str, str | bytes], ...] = (
        ("authorization", f"Bearer {SECRET_TOKEN}"),
        ("x-debug", f"access_token={SECRET_TOKEN}"),
        ("x-team", "search"),
    )
    call = channel.unary_unary(
        CHECK.grpc_path,
        request_serializer=lambda request: request.SerializeToString(),
        response_deserializer=CHECK.response_class.FromString,
    )
    call(check_request(), metadata=secrets, timeout=10)
    answer = httpx.post(
        clean.http_url + CHECK_PATH,
        json=CHECK_BODY,
        headers={"Authorization": f"Bearer {SECRET_TOKEN}", "Cookie": f"sid={SECRET_TOKEN}"},
        timeout=10,
    )
    assert answer.status_code == 200
    status, journal = _admin(clean, "GET", "requests")
    assert status == 200
    assert SECRET_TOKEN not in json.dumps(journal)
    grpc_entry, rest_entry = journal["requests"]
    assert (grpc_entry["transport"], rest_entry["transport"]) == ("grpc", "rest")
    assert grpc_entry["metadata"]["x-team"] == "search"
    assert grpc_entry["metadata"]["authorization"] == "[REDACTED]"
    assert rest_entry["metadata"]["cookie"] == "[REDACTED]"
    assert rest_entry["request"] == {**CHECK_BODY, "groundingConfig": GROUNDING_CONFIG}
    assert _admin(clean, "DELETE", "requests") == (200, {})
    assert clean.requests() == []


def test_the_journal_filters_by_method_and_by_number(clean: Emulator) -> None:
    with clean.client() as client:
        client.check_grounding("A.", facts=["A."])
        marker = clean.requests()[-1]["number"]
        client.generate_grounded_content("Where is Paris?", facts=["Paris is in France."])
        client.check_grounding("B.", facts=["B."])
    assert [entry["method"] for entry in clean.requests(after=marker)] == [
        "GenerateGroundedContent",
        "CheckGrounding",
    ]
    assert len(clean.requests("CheckGrounding")) == 2
    assert len(clean.requests(V1_CHECK)) == 2


def test_the_journal_is_bounded_by_count_and_can_be_off() -> None:
    with emulator(control=ControlOptions(journal_requests=2)) as emu:
        with emu.client() as client:
            for answer in ("A.", "B.", "C."):
                client.check_grounding(answer, facts=["A."])
        kept = [entry["request"]["answerCandidate"] for entry in emu.requests()]
        assert kept == ["B.", "C."]
    with emulator(control=ControlOptions(journal_requests=0)) as emu:
        status, document = _admin(emu, "GET", "requests")
        assert status == 400
        assert "journal is off" in document["error"]["message"]


def test_cors_answers_preflights_for_allowed_origins_only() -> None:
    origin = "http://localhost:5173"
    with emulator(control=ControlOptions(cors_origins=(origin,))) as emu:
        preflight = {
            "Origin": origin,
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "content-type",
        }
        allowed = httpx.options(emu.http_url + CHECK_PATH, headers=preflight, timeout=10)
        assert allowed.status_code == 204
        assert allowed.headers["access-control-allow-origin"] == origin
        assert "POST" in allowed.headers["access-control-allow-methods"]
        assert allowed.headers["access-control-allow-headers"] == "content-type"
        answer = httpx.post(
            emu.http_url + CHECK_PATH, json=CHECK_BODY, headers={"Origin": origin}, timeout=10
        )
        assert answer.status_code == 200
        assert answer.headers["access-control-allow-origin"] == origin
        admin = httpx.get(emu.http_url + "/groundwire/v1/stubs", headers={"Origin": origin})
        assert admin.headers["access-control-allow-origin"] == origin
        stranger = {**preflight, "Origin": "http://evil.example"}
        refused = httpx.options(emu.http_url + CHECK_PATH, headers=stranger, timeout=10)
        assert "access-control-allow-origin" not in refused.headers
        plain = httpx.post(
            emu.http_url + CHECK_PATH, json=CHECK_BODY, headers={"Origin": "http://evil.example"}
        )
        assert "access-control-allow-origin" not in plain.headers


def test_the_admin_api_is_not_served_on_the_grpc_port(clean: Emulator) -> None:
    host, _, port = clean.grpc_address.rpartition(":")
    with socket.create_connection((host, int(port)), timeout=10) as raw:
        raw.sendall(b"GET /groundwire/v1/stubs HTTP/1.1\r\nHost: x\r\n\r\n")
        raw.settimeout(2)
        answer = b""
        with contextlib.suppress(TimeoutError, ConnectionError):
            while chunk := raw.recv(4096):
                answer += chunk
    assert b"200 OK" not in answer
    assert b"stubs" not in answer


def test_without_cors_origins_no_cors_headers_are_sent(emu: Emulator) -> None:
    answer = httpx.post(
        emu.http_url + CHECK_PATH, json=CHECK_BODY, headers={"Origin": "http://localhost"}
    )
    assert "access-control-allow-origin" not in answer.headers


def test_pacing_cuts_engine_streams_into_timed_pieces() -> None:
    pacing = Pacing(piece_chars=5, piece_delay_seconds=0.02)
    with emulator(control=ControlOptions(pacing=pacing)) as emu:
        elements = httpx.post(emu.http_url + STREAM_PATH, json=generate_json(), timeout=10).json()
    texts = [_text(element) for element in elements]
    assert len(texts) > 2
    assert all(len(text) == 5 for text in texts[:-1])
    assert "groundingMetadata" in elements[-1]["candidates"][0]


def test_unavailable_stubs_fail_without_retries(clean: Emulator) -> None:
    clean.stub("CheckGrounding", error={"code": 14}, times=1)
    with clean.client(retry=None) as client:
        with pytest.raises(Unavailable):
            client.check_grounding("A.", facts=["A."])
        assert client.check_grounding("A.", facts=["A."]).claims  # then the engine answers


def test_the_openapi_document_describes_the_stub_fields_and_paths_served(clean: Emulator) -> None:
    from groundwire.emulator.stubs import parse_stub

    document = json.loads(
        (Path(__file__).parents[2] / "docs" / "admin-api.openapi.json").read_text()
    )
    described = set(document["components"]["schemas"]["Stub"]["properties"])
    registered = clean.stub("CheckGrounding", response={}, times=1)
    assert set(clean.stubs()[0]) <= described
    assert set(parse_stub({**registered, "match": {}})) <= described
    for path, verbs in document["paths"].items():
        for verb in verbs:
            clean.stub("CheckGrounding", response={}, id="described")
            body = {"method": "CheckGrounding", "response": {}} if verb == "post" else None
            where = path.removeprefix("/groundwire/v1/").replace("{id}", "described")
            assert _admin(clean, verb.upper(), where, body)[0] == 200, (verb, path)


def test_the_journal_is_bounded_by_bytes_too() -> None:
    from groundwire.emulator.journal import Entry, Journal

    entry = Entry(V1_CHECK, "grpc", 0.0, (), b"x" * 300)
    journal = Journal(max_requests=100, max_bytes=3 * entry.size())  # room for three
    for _ in range(5):
        journal.add(entry)
    assert [entry.number for entry in journal.entries()] == [3, 4, 5]
    journal.add(Entry(V1_CHECK, "grpc", 0.0, (), b"x" * 3000))
    assert journal.entries() == []  # one request past the bound is not kept either
    assert journal.last_number() == 6
