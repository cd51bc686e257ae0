"""The admin API is safe to leave running: no page drives it, no stub stalls it, all bounded.

Issue 36, items 2 to 4: the Host, Origin and Content-Type checks; RE2 for stub patterns; the
journal and the stubs bounded by the memory they take, and the journal read a page at a time.
"""

from __future__ import annotations

import concurrent.futures
import json
import socket
import sys
import tracemalloc
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import h11
import httpx
import pytest

from groundwire.emulator import Emulator
from groundwire.emulator.control import ControlOptions, ControlState, local_state
from groundwire.emulator.in_process import start_servers
from groundwire.emulator.journal import MAX_HEADER_BYTES, MAX_HEADERS, Entry, Journal
from tests.emulator.support import CHECK, CHECK_BODY, CHECK_PATH

pytestmark = pytest.mark.timeout(120)

STUBS = "/groundwire/v1/stubs"
REQUESTS = "/groundwire/v1/requests"
HANG_GUARD_SECONDS = 60.0
"""A generous bound on one HTTP call, only so that a stalled emulator fails the test."""
ANY_CALL: dict[str, Any] = {"method": "CheckGrounding", "response": {"supportScore": 0.01}}


@dataclass
class Running:
    emu: Emulator
    state: ControlState

    @property
    def port(self) -> int:
        return urlsplit(self.emu.http_url).port or 0

    @property
    def journal(self) -> Journal:
        assert isinstance(self.state.journal, Journal)
        return self.state.journal


@contextmanager
def running(**options: Any) -> Iterator[Running]:
    """An emulator on loopback whose stub book and journal the test can look into."""
    state = local_state(ControlOptions(**options))
    servers = start_servers("127.0.0.1", 0, 0, control=state)
    try:
        yield Running(Emulator(servers.grpc_address, servers.http_url, servers.activity), state)
    finally:
        servers.stop(grace=1.0)


@pytest.fixture(scope="module")
def plain() -> Iterator[Running]:
    with running() as emulator:
        yield emulator


@pytest.fixture
def fresh(plain: Running) -> Iterator[Running]:
    plain.emu.reset()
    yield plain
    plain.emu.reset()


def raw_request(port: int, head: bytes, body: bytes = b"") -> tuple[int, bytes]:
    """Sends one request as written (any Host, any headers); its status and body."""
    with socket.create_connection(("127.0.0.1", port), timeout=HANG_GUARD_SECONDS) as raw:
        raw.sendall(head + body)
        connection = h11.Connection(h11.CLIENT)
        status, chunks = 0, []
        while True:
            event = connection.next_event()
            if event is h11.NEED_DATA:
                connection.receive_data(raw.recv(65536))
            elif isinstance(event, h11.Response):
                status = event.status_code
            elif isinstance(event, h11.Data):
                chunks.append(bytes(event.data))
            elif isinstance(event, h11.EndOfMessage | h11.ConnectionClosed):
                return status, b"".join(chunks)


def head(verb: str, path: str, headers: list[tuple[str, str]], length: int | None = None) -> bytes:
    lines = [f"{verb} {path} HTTP/1.1", *(f"{name}: {value}" for name, value in headers)]
    if length is not None:
        lines.append(f"Content-Length: {length}")
    return ("\r\n".join([*lines, "Connection: close", "", ""])).encode("latin-1")


# -- item 2: the admin API trusts no browser ------------------------------------------------


def test_a_text_plain_post_from_another_origin_registers_no_stub(fresh: Running) -> None:
    body = json.dumps(ANY_CALL).encode()
    sent = head(
        "POST",
        STUBS,
        [
            ("Host", f"127.0.0.1:{fresh.port}"),
            ("Content-Type", "text/plain"),
            ("Origin", "http://evil.example"),
        ],
        len(body),
    )
    status, answer = raw_request(fresh.port, sent, body)
    assert status == 403
    assert "--cors-origin" in json.loads(answer)["error"]["message"]
    assert fresh.emu.stubs() == []


def test_the_admin_api_takes_only_json_bodies(fresh: Running) -> None:
    for content_type in ("text/plain", "application/x-www-form-urlencoded", "multipart/form-data"):
        answer = httpx.post(
            fresh.emu.http_url + STUBS,
            content=json.dumps(ANY_CALL),
            headers={"Content-Type": content_type},
            timeout=HANG_GUARD_SECONDS,
        )
        assert answer.status_code == 415, content_type
        assert "application/json" in answer.json()["error"]["message"]
    assert fresh.emu.stubs() == []
    charset = {"Content-Type": "application/json; charset=utf-8"}
    answer = httpx.post(
        fresh.emu.http_url + STUBS, content=json.dumps(ANY_CALL), headers=charset, timeout=30
    )
    assert answer.status_code == 200


def test_an_origin_given_with_cors_origin_may_call_the_admin_api() -> None:
    origin = "http://localhost:5173"
    with running(cors_origins=(origin,)) as allowed:
        url = allowed.emu.http_url + STUBS
        answer = httpx.post(url, json=ANY_CALL, headers={"Origin": origin}, timeout=30)
        assert answer.status_code == 200
        assert answer.headers["access-control-allow-origin"] == origin
        stranger = httpx.get(url, headers={"Origin": "http://evil.example"}, timeout=30)
        assert stranger.status_code == 403


@pytest.mark.parametrize("path", [STUBS, REQUESTS, CHECK_PATH])
def test_a_host_that_is_no_address_of_the_emulator_is_refused_on_every_path(
    plain: Running, path: str
) -> None:
    verb = "POST" if path == CHECK_PATH else "GET"
    body = json.dumps(CHECK_BODY).encode() if verb == "POST" else b""
    json_header = [("Content-Type", "application/json")]
    for host in ("attacker.example", f"attacker.example:{plain.port}", "localhost.evil.example"):
        sent = head(verb, path, [("Host", host), *json_header], len(body))
        status, answer = raw_request(plain.port, sent, body)
        assert status == 403, host
        assert "--allowed-host" in json.loads(answer)["error"]["message"]
    for host in (
        f"127.0.0.1:{plain.port}",
        f"localhost:{plain.port}",
        f"[::1]:{plain.port}",
        "localhost",
        "127.0.0.1",
        "app.localhost",
    ):
        sent = head(verb, path, [("Host", host), *json_header], len(body))
        assert raw_request(plain.port, sent, body)[0] == 200, host


def test_a_host_named_with_allowed_hosts_is_answered() -> None:
    with running(allowed_hosts=("emulator",)) as named:
        sent = head("GET", STUBS, [("Host", f"Emulator:{named.port}")])
        assert raw_request(named.port, sent)[0] == 200
        assert raw_request(named.port, head("GET", STUBS, [("Host", "other")]))[0] == 403


# -- item 3: stub matching in linear time ---------------------------------------------------


@pytest.mark.parametrize("pattern", [r"(a)\1", r"(?=a)b", r"(?<!a)b"])
def test_a_pattern_re2_does_not_take_is_refused_naming_it(fresh: Running, pattern: str) -> None:
    stub = {**ANY_CALL, "match": {"answerCandidate": {"regex": pattern}}}
    answer = httpx.post(fresh.emu.http_url + STUBS, json=stub, timeout=HANG_GUARD_SECONDS)
    assert answer.status_code == 400
    error = answer.json()["error"]
    assert repr(pattern) in error["message"]
    assert error["details"][0]["fieldViolations"][0]["field"] == "match.answerCandidate.regex"
    assert fresh.emu.stubs() == []


def test_a_pattern_that_backtracks_elsewhere_cannot_stall_the_emulator(fresh: Running) -> None:
    nested: dict[str, Any] = {**ANY_CALL, "match": {"answerCandidate": {"regex": "^(a+)+$"}}}
    fresh.emu.stub(**nested)
    hostile = {**CHECK_BODY, "answerCandidate": "a" * 40 + "!"}
    url = fresh.emu.http_url
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        call = pool.submit(httpx.post, url + CHECK_PATH, json=hostile, timeout=HANG_GUARD_SECONDS)
        listing = pool.submit(httpx.get, url + STUBS, timeout=HANG_GUARD_SECONDS)
        assert call.result().status_code == 200
        assert listing.result().status_code == 200
    assert call.result().json().get("supportScore") != 0.01  # no match: the engine answered
    matching = {**CHECK_BODY, "answerCandidate": "a" * 40}
    answer = httpx.post(url + CHECK_PATH, json=matching, timeout=HANG_GUARD_SECONDS)
    assert answer.json()["supportScore"] == 0.01
    assert [stub["answered"] for stub in fresh.emu.stubs()] == [1]


# -- item 4: bounds that count real memory ----------------------------------------------------


def test_an_entry_counts_at_least_the_memory_it_takes() -> None:
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        metadata = tuple((f"x-header-{n}", f"value-{n}") for n in range(MAX_HEADERS))
        entry = Entry(CHECK.grpc_path, "rest", 1.5, metadata, b"r" * 10_000, 7)
        taken = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert entry.size() >= taken
    assert entry.size() > 10_000 + MAX_HEADERS * 2 * sys.getsizeof("")


def test_the_journal_keeps_the_first_headers_of_a_call_and_marks_it_truncated() -> None:
    with running(journal_bytes=1024 * 1024) as emulator:
        body = json.dumps(CHECK_BODY).encode()
        many = [(f"x-h{n}", "v") for n in range(5000)]
        for _ in range(40):
            sent = head(
                "POST",
                CHECK_PATH,
                [("Host", "127.0.0.1"), ("Content-Type", "application/json"), *many],
                len(body),
            )
            assert raw_request(emulator.port, sent, body)[0] == 200
        journal = emulator.journal
        entries = journal.entries()
        assert len(entries) == 40
        assert all(entry.truncated and len(entry.metadata) <= MAX_HEADERS for entry in entries)
        assert journal.held_bytes() == sum(entry.size() for entry in entries)
        assert journal.held_bytes() <= 1024 * 1024
        shown = emulator.emu.requests()
        assert [entry["metadataTruncated"] for entry in shown] == [True] * 40
        assert len(shown[0]["metadata"]) <= MAX_HEADERS


def test_the_journal_holds_no_more_bytes_than_its_bound() -> None:
    with running(journal_bytes=50_000) as emulator:
        big = {**CHECK_BODY, "answerCandidate": "Paris is in France. " * 150}
        for _ in range(30):
            answer = httpx.post(emulator.emu.http_url + CHECK_PATH, json=big, timeout=30)
            assert answer.status_code == 200
        journal = emulator.journal
        assert 0 < journal.held_bytes() <= 50_000
        assert journal.held_bytes() == sum(entry.size() for entry in journal.entries())
        assert len(journal.entries()) < 30
        assert journal.last_number() == 30


def test_repeated_headers_are_joined_and_thousands_of_them_are_bounded_in_the_journal(
    fresh: Running,
) -> None:
    body = json.dumps(CHECK_BODY).encode()
    fields = [("Host", "127.0.0.1"), ("Content-Type", "application/json")]
    few = head("POST", CHECK_PATH, [*fields, ("x-twice", "a"), ("x-twice", "b")], len(body))
    assert raw_request(fresh.port, few, body)[0] == 200
    assert fresh.emu.requests()[-1]["metadata"]["x-twice"] == "a, b"
    many = head("POST", CHECK_PATH, [*fields, *[("a", "b")] * 10_000], len(body))
    assert raw_request(fresh.port, many, body)[0] == 200
    last = fresh.emu.requests()[-1]
    assert last["metadataTruncated"] is True
    assert sum(len(key) + len(value) for key, value in last["metadata"].items()) <= (
        MAX_HEADER_BYTES
    )


def test_the_journal_pages_past_a_bound_and_its_readers_still_see_every_entry(
    fresh: Running,
) -> None:
    with fresh.emu.client(transport="rest") as client:
        for number in range(5):
            client.check_grounding(f"Claim {number}.", facts=["A fact."])
    url = fresh.emu.http_url + REQUESTS
    whole = httpx.get(url, timeout=30).json()
    assert len(whole["requests"]) == 5
    assert "nextPageToken" not in whole
    seen, token, pages = [], None, 0
    while pages < 10:
        query = {"pageSize": 2, **({"pageToken": token} if token else {})}
        page = httpx.get(url, params=query, timeout=30).json()
        pages += 1
        seen += [entry["number"] for entry in page["requests"]]
        token = page.get("nextPageToken")
        if token is None:
            break
    assert pages == 3
    assert seen == [entry["number"] for entry in whole["requests"]]
    assert [entry["number"] for entry in fresh.emu.requests()] == seen
    for bad in ({"pageSize": 0}, {"pageSize": 1001}, {"pageToken": "x"}):
        assert httpx.get(url, params=bad, timeout=30).status_code == 400


def test_stubs_past_their_count_are_refused_with_429_naming_the_cap() -> None:
    with running(max_stubs=3) as emulator:
        for number in range(3):
            emulator.emu.stub(**{**ANY_CALL, "id": f"s{number}"})
        url = emulator.emu.http_url + STUBS
        refused = httpx.post(url, json=ANY_CALL, timeout=30)
        assert refused.status_code == 429
        assert "3 stubs" in refused.json()["error"]["message"]
        replaced = httpx.post(url, json={**ANY_CALL, "id": "s1"}, timeout=30)
        assert replaced.status_code == 200  # replacing one by its id takes no more room
        assert len(emulator.emu.stubs()) == 3
        emulator.emu.remove_stub("s0")
        assert httpx.post(url, json=ANY_CALL, timeout=30).status_code == 200


def test_stubs_past_their_bytes_are_refused_with_413_naming_the_cap() -> None:
    cap = 2 * 1024 * 1024
    with running(max_stub_bytes=cap) as emulator:
        url = emulator.emu.http_url + STUBS
        book = emulator.state.book
        large = {**ANY_CALL, "match": {"answerCandidate": "x" * (700 * 1024)}}
        for number in range(2):
            assert httpx.post(url, json={**large, "id": f"l{number}"}, timeout=30).is_success
        refused = httpx.post(url, json=large, timeout=30)
        assert refused.status_code == 413
        assert f"{cap:,} bytes" in refused.json()["error"]["message"]
        assert len(emulator.emu.stubs()) == 2
        assert 2 * 700 * 1024 < book.held_bytes() <= cap
        emulator.emu.reset()
        assert book.held_bytes() == 0
        assert httpx.post(url, json=large, timeout=30).is_success
