"""`groundwire serve` with stubs: shared by every worker, and the admin API where it belongs."""

from __future__ import annotations

import re
import signal
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

from tests.cli.running import cli_command, cli_env
from tests.emulator.support import CHECK_BODY, CHECK_PATH, STREAM_PATH, generate_json

pytestmark = pytest.mark.timeout(60)

ANNOUNCEMENT = re.compile(r"gRPC (?P<grpc>\S+), REST http://\S+:(?P<port>\d+) ")


@contextmanager
def serving(tmp_path: Path, *flags: str) -> Iterator[str]:
    """A `groundwire serve` subprocess on free ports; yields its REST URL on loopback."""
    process = subprocess.Popen(
        cli_command("serve", "--grpc-port", "0", "--http-port", "0", *flags),
        env=cli_env(),
        stdout=subprocess.PIPE,
        stderr=(tmp_path / "stderr").open("w"),
        text=True,
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        found = ANNOUNCEMENT.search(line)
        assert found, f"unexpected announcement {line!r}: {(tmp_path / 'stderr').read_text()}"
        yield f"http://127.0.0.1:{found['port']}"
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=20) == 0
    finally:
        if process.poll() is None:
            process.kill()
        process.communicate(timeout=20)


def test_stubs_and_their_counts_are_shared_by_every_worker(tmp_path: Path) -> None:
    with serving(tmp_path, "--workers", "2") as url:
        stub = {"method": "CheckGrounding", "response": {"supportScore": 0.25}, "times": 6}
        assert httpx.post(url + "/groundwire/v1/stubs", json=stub, timeout=10).status_code == 200
        scores = []
        for _ in range(12):  # a new connection each: the kernel spreads them over the workers
            answer = httpx.post(url + CHECK_PATH, json=CHECK_BODY, timeout=10)
            scores.append(answer.json().get("supportScore"))
        assert scores.count(0.25) == 6
        assert scores[:6] == [0.25] * 6
        journal = httpx.get(url + "/groundwire/v1/requests", timeout=10).json()["requests"]
        assert len(journal) == 12
        stubs = httpx.get(url + "/groundwire/v1/stubs", timeout=10).json()["stubs"]
        assert [kept["answered"] for kept in stubs] == [6]


def test_the_admin_api_is_off_on_a_public_host_unless_asked_for(tmp_path: Path) -> None:
    with serving(tmp_path, "--host", "0.0.0.0") as url:
        answer = httpx.get(url + "/groundwire/v1/stubs", timeout=10)
        assert answer.status_code == 404
        assert "--admin" in answer.json()["error"]["message"]
        assert httpx.post(url + CHECK_PATH, json=CHECK_BODY, timeout=10).status_code == 200
    with serving(tmp_path, "--host", "0.0.0.0", "--admin") as url:
        assert httpx.get(url + "/groundwire/v1/stubs", timeout=10).json() == {"stubs": []}


def test_serve_paces_streams_turns_the_journal_off_and_allows_cors(tmp_path: Path) -> None:
    flags = ("--stream-piece-chars", "4", "--stream-piece-delay-ms", "10", "--journal", "0")
    origin = "http://localhost:3000"
    with serving(tmp_path, *flags, "--cors-origin", origin) as url:
        elements = httpx.post(url + STREAM_PATH, json=generate_json(), timeout=10).json()
        texts = [element["candidates"][0]["content"]["parts"][0]["text"] for element in elements]
        assert all(len(text) == 4 for text in texts[:-1])
        assert httpx.get(url + "/groundwire/v1/requests", timeout=10).status_code == 400
        preflight = httpx.options(
            url + CHECK_PATH,
            headers={"Origin": origin, "Access-Control-Request-Method": "POST"},
            timeout=10,
        )
        assert preflight.headers["access-control-allow-origin"] == origin


def test_serve_warns_that_an_admin_api_beyond_loopback_is_open_and_answers_allowed_hosts(
    tmp_path: Path,
) -> None:
    with serving(tmp_path, "--host", "0.0.0.0", "--admin", "--allowed-host", "emulator") as url:
        port = url.rpartition(":")[2]
        warning = (tmp_path / "stderr").read_text()
        assert "admin API is open to the network" in warning
        assert "--allowed-host" in warning
        named = httpx.get(url + "/groundwire/v1/stubs", headers={"Host": f"emulator:{port}"})
        assert named.status_code == 200
        stranger = httpx.get(url + "/groundwire/v1/stubs", headers={"Host": "rebound.example"})
        assert stranger.status_code == 403
    with serving(tmp_path, "--host", "0.0.0.0") as url:
        assert "admin API" not in (tmp_path / "stderr").read_text()
