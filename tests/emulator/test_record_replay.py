"""Record and replay: what an upstream answered is what a replay answers, and no secret is kept."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
import httpx
import pytest
from google.protobuf import json_format

from groundwire.emulator import Emulator, emulator
from groundwire.emulator.control import ControlOptions
from groundwire.emulator.recorder import RecordOptions, Upstream
from groundwire.emulator.replay import ReplayOptions
from tests.emulator.support import (
    CHECK,
    CHECK_BODY,
    CHECK_PATH,
    CORROBORATE,
    GENERATE_PATH,
    PARIS,
    PROJECT_LOCATION,
    STREAM,
    STREAM_PATH,
    check_request,
    generate_json,
)

pytestmark = pytest.mark.timeout(60)

ROME = "Rome is the capital of Spain."
RETRY_INFO = {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "2s"}
PIECE_GAP_MS = 150


def _piece(text: str) -> dict[str, Any]:
    return {"candidates": [{"content": {"role": "model", "parts": [{"text": text}]}}]}


UPSTREAM_STUBS: list[dict[str, Any]] = [
    {
        "method": "CheckGrounding",
        "match": {"answerCandidate": CHECK_BODY["answerCandidate"]},
        "response": {"supportScore": 0.123, "citedChunks": [{"chunkText": "recorded chunk"}]},
    },
    {
        "method": "CheckGrounding",
        "match": {"answerCandidate": ROME},
        "error": {
            "code": "RESOURCE_EXHAUSTED",
            "message": "recorded quota",
            "details": [RETRY_INFO],
        },
    },
    {
        "method": "StreamGenerateGroundedContent",
        "stream": [
            {"response": _piece("Recorded ")},
            {"response": _piece("from upstream."), "delayMs": PIECE_GAP_MS},
        ],
    },
    {"method": "CorroborateContent", "response": {"corroborationScore": 0.321}},
]
"""What the stand-in for Google answers: values no engine would give."""

CORROBORATE_BODY = {
    "content": {"parts": [{"text": "Paris is in France."}]},
    "facts": [{"summary": PARIS}],
}


@dataclass(frozen=True)
class Answers:
    """What one server answered to the same calls: raw gRPC bytes, REST JSON."""

    grpc_check: bytes
    grpc_error: tuple[grpc.StatusCode, str, bytes]
    grpc_stream: list[bytes]
    grpc_corroborate: bytes
    rest_check: Any
    rest_error: Any
    rest_stream: Any
    piece_gap: float
    """Seconds between the two pieces of the gRPC stream, as they arrived."""


def _identity(data: bytes) -> bytes:
    return data


def _status_details(error: Any) -> bytes:
    trailers: dict[str, Any] = dict(error.trailing_metadata() or ())
    details = trailers.get("grpc-status-details-bin", b"")
    return details if isinstance(details, bytes) else details.encode()


def ask(server: Emulator) -> Answers:
    """Makes the same calls to `server` over both protocols and keeps what it answered."""
    with grpc.insecure_channel(server.grpc_address) as channel:
        unary = channel.unary_unary(
            CHECK.grpc_path, request_serializer=_identity, response_deserializer=_identity
        )
        check = unary(check_request().SerializeToString(), timeout=10)
        with pytest.raises(grpc.RpcError) as failed:
            unary(check_request(answer=ROME).SerializeToString(), timeout=10)
        error: Any = failed.value
        grpc_error = (error.code(), error.details() or "", _status_details(error))
        stream_request: Any = STREAM.request_class(location=PROJECT_LOCATION)
        stream_request.contents.add(role="user").parts.add(text="What is the capital?")
        stream = channel.stream_stream(
            STREAM.grpc_path, request_serializer=_identity, response_deserializer=_identity
        )
        pieces, arrivals = [], []
        for piece in stream(iter([stream_request.SerializeToString()]), timeout=10):
            pieces.append(piece)
            arrivals.append(time.monotonic())
        corroborate_request = json_format.ParseDict(
            CORROBORATE_BODY, CORROBORATE.request_class(parent=PROJECT_LOCATION)
        )
        corroborate = channel.unary_unary(
            CORROBORATE.grpc_path, request_serializer=_identity, response_deserializer=_identity
        )(corroborate_request.SerializeToString(), timeout=10)
    url = server.http_url
    rest_check = httpx.post(url + CHECK_PATH, json=CHECK_BODY, timeout=10)
    rest_error = httpx.post(
        url + CHECK_PATH, json={**CHECK_BODY, "answerCandidate": ROME}, timeout=10
    )
    stream_body = {"contents": [{"role": "user", "parts": [{"text": "What is the capital?"}]}]}
    rest_stream = httpx.post(url + STREAM_PATH, json=stream_body, timeout=10)
    assert rest_error.status_code == 429
    return Answers(
        grpc_check=check,
        grpc_error=grpc_error,
        grpc_stream=pieces,
        grpc_corroborate=corroborate,
        rest_check=rest_check.json(),
        rest_error=rest_error.json(),
        rest_stream=rest_stream.json(),
        piece_gap=arrivals[-1] - arrivals[0],
    )


@pytest.fixture(scope="module")
def google() -> Iterator[Emulator]:
    """A second emulator standing in for Google, answering through stubs."""
    with emulator() as upstream:
        for stub in UPSTREAM_STUBS:
            upstream.stub(**stub)
        yield upstream


@pytest.fixture(scope="module")
def recorded(
    google: Emulator, tmp_path_factory: pytest.TempPathFactory
) -> tuple[Path, Answers, Answers]:
    """A cassette recorded through a recorder; what Google and the recorder answered."""
    path = tmp_path_factory.mktemp("cassettes") / "recorded.jsonl"
    direct = ask(google)
    recording = RecordOptions(path, Upstream(google.grpc_address))
    with emulator(control=ControlOptions(cassette=recording)) as recorder:
        through_recorder = ask(recorder)
    return path, direct, through_recorder


def test_a_recorder_passes_the_upstreams_answers_on_unchanged(
    recorded: tuple[Path, Answers, Answers],
) -> None:
    _, direct, through_recorder = recorded
    assert direct.rest_check["supportScore"] == pytest.approx(0.123)
    assert through_recorder == _same_timing(direct, through_recorder)


def test_a_cassette_keeps_each_exchange_with_its_stream_timing(
    recorded: tuple[Path, Answers, Answers],
) -> None:
    path, _, _ = recorded
    header, *exchanges = (json.loads(line) for line in path.read_text().splitlines())
    assert header["groundwireCassette"] == 1
    assert [exchange["transport"] for exchange in exchanges] == ["grpc"] * 4 + ["rest"] * 3
    streamed = exchanges[2]["stream"]
    assert [piece["response"] for piece in streamed] == [
        _piece("Recorded "),
        _piece("from upstream."),
    ]
    # The recorder measures the gap as the pieces reach it; a loaded machine can deliver the
    # first one late and so shorten it a little (145 of 150 ms was seen), as in the replay test.
    assert streamed[1]["delayMs"] >= PIECE_GAP_MS * 0.9
    assert exchanges[1]["error"]["code"] == "RESOURCE_EXHAUSTED"
    assert exchanges[1]["error"]["details"] == [RETRY_INFO]


def test_a_replay_answers_byte_for_byte_over_grpc_and_as_equal_json_over_rest(
    recorded: tuple[Path, Answers, Answers],
) -> None:
    path, direct, _ = recorded
    with emulator(replay=path) as replay:
        replayed = ask(replay)
    assert replayed == _same_timing(direct, replayed)
    assert replayed.piece_gap >= PIECE_GAP_MS / 1000 * 0.9  # the recorded pacing


def test_a_request_that_was_not_recorded_fails_naming_the_closest(
    recorded: tuple[Path, Answers, Answers],
) -> None:
    path, _, _ = recorded
    with emulator(replay=ReplayOptions(path, speed=0)) as replay:
        answer = httpx.post(
            replay.http_url + CHECK_PATH,
            json={**CHECK_BODY, "answerCandidate": "Paris is the capital of Italy."},
            timeout=10,
        )
        with grpc.insecure_channel(replay.grpc_address) as channel:
            unary = channel.unary_unary(
                CHECK.grpc_path, request_serializer=_identity, response_deserializer=_identity
            )
            with pytest.raises(grpc.RpcError) as failed:
                unary(check_request(answer="Unrecorded.").SerializeToString(), timeout=10)
    error = answer.json()["error"]
    assert answer.status_code == 400
    assert error["status"] == "FAILED_PRECONDITION"
    assert f"line 2 of {path}" in error["message"]
    assert "differs at answerCandidate" in error["message"]
    failed_call: Any = failed.value
    assert failed_call.code() == grpc.StatusCode.FAILED_PRECONDITION


def test_with_the_engine_as_fallback_an_unrecorded_request_gets_the_engines_answer(
    recorded: tuple[Path, Answers, Answers],
) -> None:
    path, _, _ = recorded
    with emulator(replay=ReplayOptions(path, fallback="engine", speed=0)) as replay:
        recorded_one = httpx.post(replay.http_url + CHECK_PATH, json=CHECK_BODY, timeout=10)
        unrecorded = httpx.post(
            replay.http_url + CHECK_PATH,
            json={**CHECK_BODY, "answerCandidate": "Paris is the capital of France!"},
            timeout=10,
        )
    assert recorded_one.json()["supportScore"] == pytest.approx(0.123)
    assert unrecorded.status_code == 200
    assert unrecorded.json().get("supportScore") != pytest.approx(0.123)


def test_a_stub_answers_ahead_of_the_replay(recorded: tuple[Path, Answers, Answers]) -> None:
    path, _, _ = recorded
    with emulator(replay=ReplayOptions(path, speed=0)) as replay:
        replay.stub("CheckGrounding", response={"supportScore": 0.75})
        answer = httpx.post(replay.http_url + CHECK_PATH, json=CHECK_BODY, timeout=10)
    assert answer.json()["supportScore"] == 0.75


def test_requests_match_whatever_the_order_of_their_fields(
    recorded: tuple[Path, Answers, Answers],
) -> None:
    path, _, _ = recorded
    reordered = {"facts": CHECK_BODY["facts"], "answerCandidate": CHECK_BODY["answerCandidate"]}
    with emulator(replay=ReplayOptions(path, speed=0)) as replay:
        answer = httpx.post(replay.http_url + CHECK_PATH, json=reordered, timeout=10)
        generate = httpx.post(replay.http_url + GENERATE_PATH, json=generate_json(), timeout=10)
    assert answer.json()["supportScore"] == pytest.approx(0.123)
    error = generate.json()["error"]
    assert error["status"] == "FAILED_PRECONDITION"
    assert "holds no v1 GenerateGroundedContent call" in error["message"]


def _same_timing(expected: Answers, actual: Answers) -> Answers:
    """`expected`, with `actual`'s timing: answers are compared, not how long they took."""
    import dataclasses

    return dataclasses.replace(expected, piece_gap=actual.piece_gap)


RECORDER_TOKEN = "fake-recorder-token-0123456789"
CLIENT_TOKEN = "client-token-abcdef0123456789"


def _self_signed() -> tuple[bytes, bytes]:
    """A key and a certificate for 127.0.0.1 (PEM), made for this test."""
    import datetime
    import ipaddress

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "stand-in for Google")])
    now = datetime.datetime.now(datetime.UTC)
    certificate = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(hours=1))
        .add_extension(
            x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
            critical=False,
        )
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    key_pem = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    return key_pem, certificate.public_bytes(serialization.Encoding.PEM)


@pytest.fixture
def tls_google() -> Iterator[tuple[str, bytes, list[dict[str, str]]]]:
    """A loopback TLS gRPC server standing in for Google: address, certificate, calls' metadata."""
    from concurrent import futures

    received: list[dict[str, str]] = []

    def check(request: bytes, context: grpc.ServicerContext) -> bytes:
        received.append({key: str(value) for key, value in context.invocation_metadata()})
        return CHECK.response_class(support_score=0.456).SerializeToString()

    _, service, name = CHECK.grpc_path.split("/")
    handler = grpc.method_handlers_generic_handler(
        service, {name: grpc.unary_unary_rpc_method_handler(check)}
    )
    key_pem, certificate_pem = _self_signed()
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
    server.add_generic_rpc_handlers((handler,))
    port = server.add_secure_port(
        "127.0.0.1:0", grpc.ssl_server_credentials([(key_pem, certificate_pem)])
    )
    server.start()
    try:
        yield f"127.0.0.1:{port}", certificate_pem, received
    finally:
        server.stop(0)


def test_the_recorders_token_goes_upstream_over_tls_and_no_token_reaches_the_cassette(
    tls_google: tuple[str, bytes, list[dict[str, str]]], tmp_path: Path
) -> None:
    import google.oauth2.credentials

    address, certificate, received = tls_google
    credentials = google.oauth2.credentials.Credentials(token=RECORDER_TOKEN)
    upstream = Upstream(address, credentials=credentials, root_certificates=certificate)
    path = tmp_path / "tls.jsonl"
    secrets = (("authorization", f"Bearer {CLIENT_TOKEN}"), ("cookie", f"session={CLIENT_TOKEN}"))
    with emulator(control=ControlOptions(cassette=RecordOptions(path, upstream))) as recorder:
        with grpc.insecure_channel(recorder.grpc_address) as channel:
            unary = channel.unary_unary(
                CHECK.grpc_path, request_serializer=_identity, response_deserializer=_identity
            )
            unary(check_request().SerializeToString(), timeout=10, metadata=secrets)
        answer = httpx.post(
            recorder.http_url + CHECK_PATH, json=CHECK_BODY, headers=dict(secrets), timeout=10
        )
    assert answer.json()["supportScore"] == pytest.approx(0.456)
    assert [call["authorization"] for call in received] == [f"Bearer {RECORDER_TOKEN}"] * 2
    assert all("cookie" not in call for call in received)
    cassette = path.read_text()
    assert cassette.count("supportScore") == 2
    for secret in (RECORDER_TOKEN, CLIENT_TOKEN, "authorization", "cookie", "session="):
        assert secret not in cassette.lower()


@pytest.fixture
def tls_sink() -> Iterator[tuple[int, bytes, list[bytes]]]:
    """A loopback TLS listener that answers nothing: its port, certificate, and what reached it."""
    import socket
    import ssl
    import tempfile
    import threading

    key_pem, certificate_pem = _self_signed()
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    with tempfile.TemporaryDirectory() as folder:
        (Path(folder) / "key.pem").write_bytes(key_pem)
        (Path(folder) / "cert.pem").write_bytes(certificate_pem)
        context.load_cert_chain(Path(folder) / "cert.pem", Path(folder) / "key.pem")
    context.set_alpn_protocols(["h2"])
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(0.2)
    received: list[bytes] = []
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                raw, _ = listener.accept()
            except TimeoutError:
                continue
            received.append(b"")
            try:
                with context.wrap_socket(raw, server_side=True) as connection:
                    connection.settimeout(2)
                    received.append(connection.recv(65536))
            except (OSError, ssl.SSLError):
                pass

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield listener.getsockname()[1], certificate_pem, received
    finally:
        stop.set()
        thread.join(timeout=10)
        listener.close()


@pytest.mark.parametrize("transport", ["grpc", "rest"])
def test_a_recorder_never_forwards_to_a_host_a_request_names_as_its_location(
    tls_sink: tuple[int, bytes, list[bytes]],
    tmp_path: Path,
    transport: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import google.oauth2.credentials

    for name in ("GROUNDWIRE_EMULATOR_HOST", "GROUNDWIRE_EMULATOR_REST"):
        monkeypatch.delenv(name, raising=False)
    port, certificate, received = tls_sink
    credentials = google.oauth2.credentials.Credentials(token=RECORDER_TOKEN)
    upstream = Upstream(credentials=credentials, root_certificates=certificate, timeout=5)
    path = tmp_path / "attack.jsonl"
    parent = f"projects/p/locations/dns:127.0.0.1:{port}?"
    request = CORROBORATE.request_class(
        parent=parent, content={"parts": [{"text": "Paris is in France."}]}
    )
    with emulator(control=ControlOptions(cassette=RecordOptions(path, upstream))) as recorder:
        if transport == "grpc":
            with grpc.insecure_channel(recorder.grpc_address) as channel:
                unary = channel.unary_unary(
                    CORROBORATE.grpc_path,
                    request_serializer=_identity,
                    response_deserializer=_identity,
                )
                with pytest.raises(grpc.RpcError) as raised:
                    unary(request.SerializeToString(), timeout=30)
            assert raised.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        else:
            answer = httpx.post(
                f"{recorder.http_url}/v1/{parent.replace('?', '%3F')}:corroborateContent",
                json={"content": {"parts": [{"text": "Paris is in France."}]}},
                timeout=30,
            )
            # The REST router refuses the path itself (404) or its location (400).
            assert answer.status_code in (400, 404)
    assert received == []
    assert not path.exists() or RECORDER_TOKEN not in path.read_text()
