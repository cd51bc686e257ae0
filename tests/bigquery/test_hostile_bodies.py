"""The endpoint under hostile bodies: nested too deep, dripped slowly, or too many at once.

A 500 would make BigQuery send the call again and again, so a body the endpoint cannot read
is the caller's error (400), and a bad row is that row's error. Real uvicorn on loopback.
"""

from __future__ import annotations

import json
import socket
from contextlib import closing
from pathlib import Path

import httpx
import pytest

from groundwire.integrations.bigquery.protocol import MAX_JSON_DEPTH
from tests.bigquery.conftest import Endpoint, post, request
from tests.bigquery.test_cli import endpoint_process

pytestmark = pytest.mark.timeout(120)

FACT = "Paris is the capital of France."
WAIT = 60.0
"""Seconds a socket waits for the server: only catches a hang."""


def nested(depth: int) -> str:
    """A JSON array nested `depth` levels deep."""
    return "[" * depth + "]" * depth


def test_a_body_nested_100k_levels_deep_is_the_callers_400_not_a_retryable_500(
    endpoint: Endpoint,
) -> None:
    url = endpoint()
    body = b'{"calls": ' + nested(100_000).encode() + b"}"

    response = post(url, None, raw=body)

    assert response.status_code == 400
    assert f"nested deeper than {MAX_JSON_DEPTH} levels" in response.json()["errorMessage"]
    assert post(url, request([["Paris.", [FACT]]])).status_code == 200


def test_a_body_just_past_the_depth_bound_is_400_and_one_at_it_is_read(
    endpoint: Endpoint,
) -> None:
    url = endpoint()
    # {"calls": [[answer, facts]]}: the facts array sits at depth 4.
    at_bound = '{"calls": [["Paris.", ' + nested(MAX_JSON_DEPTH - 3) + "]]}"
    past_bound = '{"calls": [["Paris.", ' + nested(MAX_JSON_DEPTH - 2) + "]]}"

    read = post(url, None, raw=at_bound.encode())
    refused = post(url, None, raw=past_bound.encode())

    assert read.status_code == 200, read.text
    assert read.json()["replies"][0]["error"]["code"] == "INVALID_ARGUMENT"
    assert refused.status_code == 400


@pytest.mark.parametrize("depth", [MAX_JSON_DEPTH + 1, 50_000])
def test_a_facts_string_nested_too_deep_is_its_rows_error_and_the_other_rows_are_answered(
    endpoint: Endpoint, depth: int
) -> None:
    rows = [["Paris.", nested(depth)], ["Paris is in France.", [FACT]]]

    response = post(endpoint(), request(rows))

    assert response.status_code == 200, response.text
    poisoned, answered = response.json()["replies"]
    assert poisoned["error"]["code"] == "INVALID_ARGUMENT"
    assert "nested deeper than" in poisoned["error"]["message"]
    assert answered["support_score"] == 1.0


@pytest.mark.parametrize("attributes", [["a", "b"], "ab", {"a": 1}, {"a": {"b": "c"}}], ids=repr)
def test_a_fact_whose_attributes_are_not_an_object_of_strings_is_its_rows_error(
    endpoint: Endpoint, attributes: object
) -> None:
    rows = [["Paris.", [{"text": FACT, "attributes": attributes}]], ["Paris.", [FACT]]]

    response = post(endpoint(), request(rows))

    assert response.status_code == 200, response.text
    bad, good = response.json()["replies"]
    assert bad["error"]["code"] == "INVALID_ARGUMENT"
    assert "error" not in good


def read_until_closed(connection: socket.socket) -> bytes:
    """Everything the server sends until it closes the connection (bounded by WAIT)."""
    connection.settimeout(WAIT)
    received = b""
    for _ in range(10_000):  # bounded: a few reads hold the one short answer
        chunk = connection.recv(65536)
        if not chunk:
            return received
        received += chunk
    raise AssertionError(f"the server kept the connection open: {received[:200]!r}")


def test_a_body_dripped_slower_than_the_body_timeout_gets_408_and_its_connection_closed(
    endpoint: Endpoint,
) -> None:
    url = endpoint(body_timeout=0.5)
    port = httpx.URL(url).port
    assert port is not None

    with closing(socket.create_connection(("127.0.0.1", port), timeout=WAIT)) as dripping:
        # The head and the first byte of a 1,000-byte body; the rest never comes.
        dripping.sendall(
            b"POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            b"Content-Length: 1000\r\n\r\n{"
        )
        answer = read_until_closed(dripping)

    assert answer.startswith(b"HTTP/1.1 408 "), answer[:100]
    assert b"took longer than 0.5 s" in answer
    assert post(url, request([["Paris.", [FACT]]])).status_code == 200


def test_the_command_answers_503_to_a_connection_past_max_connections(tmp_path: Path) -> None:
    with endpoint_process(tmp_path, "--max-connections", "2") as (address, _):
        port = int(address.split(":")[1])
        url = f"http://127.0.0.1:{port}/"
        with httpx.Client(timeout=WAIT) as http:  # one kept-alive connection: the first
            assert http.post(url, json=request([])).status_code == 200
            with closing(socket.create_connection(("127.0.0.1", port), timeout=WAIT)) as held:
                # The second: a request whose body has not arrived yet.
                held.sendall(b"POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 9\r\n\r\n[")
                assert http.post(url, json=request([])).status_code == 200
                with closing(socket.create_connection(("127.0.0.1", port), timeout=WAIT)) as third:
                    third.sendall(
                        b"POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 2\r\n\r\n{}"
                    )
                    refused = read_until_closed(third)
            assert refused.startswith(b"HTTP/1.1 503 "), refused[:100]  # BigQuery resends it
            assert http.post(url, json=request([])).status_code == 200


def test_the_command_cuts_off_a_body_slower_than_body_timeout(tmp_path: Path) -> None:
    with endpoint_process(tmp_path, "--body-timeout", "0.5") as (address, _):
        port = int(address.split(":")[1])
        with closing(socket.create_connection(("127.0.0.1", port), timeout=WAIT)) as dripping:
            dripping.sendall(b"POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 9\r\n\r\n[")
            answer = read_until_closed(dripping)

    assert answer.startswith(b"HTTP/1.1 408 "), answer[:100]
    assert json.loads(answer.split(b"\r\n\r\n", 1)[1])["errorMessage"]
