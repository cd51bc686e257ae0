"""What a request costs the emulator: a refusal at most 2x its size, an answer 10x (+64 MiB).

Each case runs against `groundwire serve` in its own process, measured after one warm-up call
of each kind: peak resident memory while the request is served (the kernel's high-water mark,
reset just before it), then the resident memory once it is answered, which must come back
to within 64 MiB. The issue's own sizes (33 to 63 MB) are `slow`; the default suite sends a
few MiB, already far past what a request may hold.
"""

from __future__ import annotations

import json
import re
import socket
import time
from collections.abc import Callable
from concurrent import futures
from pathlib import Path

import grpc
import pytest

from groundwire.contract.apis import method
from tests.reliability.conftest import StartEmulator
from tests.reliability.processes import EmulatorProcess

MIB = 1 << 20
SLACK_MIB = 64
SETTLE_SECONDS = 10.0
CONFIG = "projects/p/locations/global/groundingConfigs/default_grounding_config"
CHECK = method("discoveryengine", "v1", "CheckGrounding")
CHECK_PATH = f"/v1/{CONFIG}:check"
STREAM_PATH = "/v1/projects/p/locations/global:streamGenerateGroundedContent"
QUESTION = {"contents": [{"role": "user", "parts": [{"text": "Is Paris the capital?"}]}]}


def varint(value: int) -> bytes:
    """The protobuf varint of `value`."""
    out = bytearray()
    while value > 0x7F:
        out.append(value & 0x7F | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def text_field(number: int, text: bytes) -> bytes:
    """A length-delimited protobuf field."""
    return varint(number << 3 | 2) + varint(len(text)) + text


def grpc_facts(size: int) -> bytes:
    """A CheckGrounding request of `size` bytes, nearly all of them empty facts."""
    config = text_field(1, CONFIG.encode())
    return config + b"\x1a\x00" * ((size - len(config)) // 2)


def grpc_word(size: int) -> bytes:
    """A CheckGrounding request whose answer is one word of `size` letters."""
    return text_field(1, CONFIG.encode()) + text_field(2, b"a" * size)


def rest_facts(size: int) -> bytes:
    """A CheckGrounding body of `size` bytes, nearly all of them empty facts."""
    return b'{"facts":[' + b",".join([b"{}"] * ((size - 12) // 3)) + b"]}"


def rest_stream(size: int) -> bytes:
    """A stream body of `size` bytes of short questions."""
    element = json.dumps(QUESTION).encode()
    return b"[" + b",".join([element] * (size // (len(element) + 1))) + b"]"


def largest_legal_json() -> dict[str, object]:
    """The largest legal CheckGrounding: 200 facts of 10,000 characters, a 4,096-token answer."""
    fact = "東京は日本の首都です。" * 909
    return {
        "answerCandidate": "Tokyo is the capital of Japan. " * 585,
        "facts": [{"factText": fact} for _ in range(200)],
    }


def rss_mib(server: EmulatorProcess, key: str = "VmRSS") -> float:
    """The server's resident memory now (VmRSS) or at its peak since the last reset (VmHWM)."""
    status = Path(f"/proc/{server.pid}/status").read_text()
    found = re.search(rf"^{key}:\s+(\d+) kB", status, re.MULTILINE)
    assert found is not None
    return int(found.group(1)) / 1024


def http_post(server: EmulatorProcess, path: str, body: bytes) -> tuple[int, bytes]:
    """POSTs `body` over a fresh connection; the status and the first bytes of the answer."""
    with socket.create_connection(("127.0.0.1", server.http_port), timeout=90.0) as connection:
        head = (
            f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
        )
        connection.sendall(head.encode() + body)
        answer = b""
        while b"\r\n\r\n" not in answer or len(answer) < 512:
            chunk = connection.recv(65536)
            if not chunk:
                break
            answer += chunk
    return int(answer.split(b" ", 2)[1]), answer.partition(b"\r\n\r\n")[2]


def grpc_check(server: EmulatorProcess, raw: bytes) -> grpc.StatusCode:
    """Sends CheckGrounding request bytes as they are; the status code of the answer."""
    options = [("grpc.max_send_message_length", 128 * MIB)]
    with grpc.insecure_channel(server.grpc_address, options=options) as channel:
        call = channel.unary_unary(
            CHECK.grpc_path, request_serializer=bytes, response_deserializer=None
        )
        try:
            call(raw, timeout=90.0)
        except grpc.RpcError as error:
            return error.code()
    return grpc.StatusCode.OK


def warm_up(server: EmulatorProcess) -> None:
    """One small call of each kind, so that first-use costs are not counted."""
    assert http_post(server, CHECK_PATH, json.dumps({"answerCandidate": "Hi."}).encode())[0] == 200
    assert http_post(server, STREAM_PATH, json.dumps(QUESTION).encode())[0] == 200
    assert grpc_check(server, grpc_word(3)) == grpc.StatusCode.OK


def cost(server: EmulatorProcess, send: Callable[[], object]) -> tuple[object, float, float]:
    """What `send` answered, how far it raised the server's memory, and what stayed after."""
    warm_up(server)
    before = rss_mib(server)
    Path(f"/proc/{server.pid}/clear_refs").write_text("5")  # resets the high-water mark
    answer = send()
    peak = rss_mib(server, "VmHWM")
    deadline = time.monotonic() + SETTLE_SECONDS
    while rss_mib(server) > before + SLACK_MIB and time.monotonic() < deadline:
        time.sleep(0.2)
    return answer, peak - before, rss_mib(server) - before


def assert_refused_cheaply(
    start_emulator: StartEmulator, send: Callable[[EmulatorProcess], object], size: int
) -> object:
    """`send` is refused within 2x its size + 64 MiB; memory comes back; others are answered."""
    server = start_emulator()
    answer, growth, kept = cost(server, lambda: send(server))
    assert growth <= 2 * size / MIB + SLACK_MIB, f"grew {growth:.0f} MiB for {size / MIB:.0f} MiB"
    assert kept <= SLACK_MIB, f"kept {kept:.0f} MiB"
    warm_up(server)
    return answer


def refused_over_rest(path: str, body: bytes) -> Callable[[EmulatorProcess], object]:
    def send(server: EmulatorProcess) -> object:
        status, answer = http_post(server, path, body)
        assert status == 400, answer[:300]
        return json.loads(answer)["error"]["message"]

    return send


def refused_over_grpc(raw: bytes, *codes: grpc.StatusCode) -> Callable[[EmulatorProcess], object]:
    def send(server: EmulatorProcess) -> object:
        code = grpc_check(server, raw)
        assert code in (codes or (grpc.StatusCode.INVALID_ARGUMENT,))
        return code

    return send


SIZE = 8 * MIB


def test_grpc_empty_facts_are_refused_at_a_small_cost(start_emulator: StartEmulator) -> None:
    assert_refused_cheaply(start_emulator, refused_over_grpc(grpc_facts(SIZE)), SIZE)


def test_a_grpc_one_word_answer_is_refused_at_a_small_cost(start_emulator: StartEmulator) -> None:
    assert_refused_cheaply(start_emulator, refused_over_grpc(grpc_word(SIZE)), SIZE)


def test_rest_empty_facts_are_refused_at_a_small_cost(start_emulator: StartEmulator) -> None:
    message = assert_refused_cheaply(
        start_emulator, refused_over_rest(CHECK_PATH, rest_facts(SIZE)), SIZE
    )
    assert "facts has more than 200 facts" in str(message)


def test_a_rest_stream_of_many_requests_is_refused_at_a_small_cost(
    start_emulator: StartEmulator,
) -> None:
    message = assert_refused_cheaply(
        start_emulator, refused_over_rest(STREAM_PATH, rest_stream(SIZE)), SIZE
    )
    assert "past the emulator's limit" in str(message)


def test_three_refused_at_once_cost_little_while_rest_goes_on_answering(
    start_emulator: StartEmulator,
) -> None:
    server = start_emulator()
    raw = grpc_facts(SIZE)
    body = json.dumps({"answerCandidate": "Hi."}).encode()

    def three_at_once_and_a_probe() -> object:
        with futures.ThreadPoolExecutor(3) as pool:
            codes = [pool.submit(grpc_check, server, raw) for _ in range(3)]
            probe = http_post(server, CHECK_PATH, body)[0]
            return [code.result() for code in codes], probe

    answer, growth, kept = cost(server, three_at_once_and_a_probe)
    assert answer == ([grpc.StatusCode.INVALID_ARGUMENT] * 3, 200)
    assert growth <= 3 * 2 * SIZE / MIB + SLACK_MIB
    assert kept <= SLACK_MIB


@pytest.mark.parametrize("protocol", ["rest", "grpc"])
def test_the_largest_legal_request_costs_at_most_ten_times_its_size(
    start_emulator: StartEmulator, protocol: str
) -> None:
    document = largest_legal_json()
    if protocol == "rest":
        body = json.dumps(document).encode()

        def send() -> object:
            return http_post(server, CHECK_PATH, body)[0]

    else:
        request = CHECK.request_class(
            grounding_config=CONFIG,
            answer_candidate=str(document["answerCandidate"]),
            facts=[{"fact_text": fact["factText"]} for fact in document["facts"]],  # type: ignore[attr-defined]
        )
        body = request.SerializeToString()

        def send() -> object:
            return grpc_check(server, body).name

    server = start_emulator()
    answer, growth, kept = cost(server, send)
    assert answer in (200, "OK")
    assert growth <= 10 * len(body) / MIB + SLACK_MIB
    assert kept <= SLACK_MIB


def issue_case(kind: str, size: int) -> Callable[[EmulatorProcess], object]:
    """The issue's requests, built only when their test runs."""
    if kind == "grpc facts":
        codes = (grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.RESOURCE_EXHAUSTED)
        return refused_over_grpc(grpc_facts(size), *codes)
    if kind == "grpc word":
        return refused_over_grpc(grpc_word(size))
    if kind == "rest facts":
        return refused_over_rest(CHECK_PATH, rest_facts(size))
    return refused_over_rest(STREAM_PATH, rest_stream(size))


@pytest.mark.slow
@pytest.mark.parametrize(
    ("kind", "size"),
    [
        ("grpc facts", 31_000_000),
        ("grpc facts", 63_000_000),  # past the 32 MiB message cap: RESOURCE_EXHAUSTED
        ("grpc word", 31 * MIB),
        ("rest facts", 33_000_000),
        ("rest stream", 33_000_000),
    ],
)
def test_the_issues_requests_are_refused_at_a_small_cost(
    start_emulator: StartEmulator, kind: str, size: int
) -> None:
    assert_refused_cheaply(start_emulator, issue_case(kind, size), size)


@pytest.mark.slow
def test_memory_comes_back_after_many_large_refusals(start_emulator: StartEmulator) -> None:
    server = start_emulator()
    sends = [
        refused_over_grpc(grpc_facts(30 * MIB)),
        refused_over_rest(STREAM_PATH, rest_stream(30 * MIB)),
        refused_over_rest(CHECK_PATH, rest_facts(15 * MIB)),
    ]

    def seven_rounds() -> object:
        return [send(server) for _ in range(7) for send in sends]

    _, _, kept = cost(server, seven_rounds)
    assert kept <= SLACK_MIB, f"kept {kept:.0f} MiB after 21 refusals"
