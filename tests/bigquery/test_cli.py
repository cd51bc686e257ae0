"""`groundwire bigquery-endpoint`: serves the endpoint with uvicorn, on loopback unless --public."""

from __future__ import annotations

import argparse
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

from groundwire.cli import main
from groundwire.cli.bigquery_endpoint import listen_address
from groundwire.cli.errors import InputError
from tests.bigquery.conftest import request
from tests.cli.running import cli_command, cli_env

pytestmark = pytest.mark.timeout(60)

RUNNING = re.compile(r"Uvicorn running on http://(?P<host>[\d.]+):(?P<port>\d+)")
SECRET = "Zanzibar-7731 is in Tanzania."


@contextmanager
def endpoint_process(tmp_path: Path, *flags: str) -> Iterator[tuple[str, Path]]:
    """`groundwire bigquery-endpoint --local --port 0 FLAGS`; yields (host, port) and its log."""
    log = tmp_path / "stderr"
    process = subprocess.Popen(
        cli_command("bigquery-endpoint", "--local", "--port", "0", *flags),
        env=cli_env(),
        stdout=subprocess.DEVNULL,
        stderr=log.open("w"),
        text=True,
    )
    try:
        found = None
        for _ in range(300):  # bounded: it starts in a few seconds
            found = RUNNING.search(log.read_text())
            if found or process.poll() is not None:
                break
            time.sleep(0.1)
        assert found, log.read_text()
        yield f"{found['host']}:{found['port']}", log
        process.send_signal(signal.SIGTERM)
        # uvicorn shuts down (closing the clients), then dies of the signal it caught, as a
        # server should; the in-process emulator goes with it.
        assert process.wait(timeout=20) in (0, -signal.SIGTERM)
        assert "Application shutdown complete" in log.read_text()
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(timeout=10)


def check_row(port: str) -> None:
    url = f"http://127.0.0.1:{port}/"
    with httpx.Client(timeout=30) as http:
        response = http.post(url, json=request([[SECRET, [SECRET]], ["", []]]))
    assert response.status_code == 200, response.text
    good, bad = response.json()["replies"]
    assert good["support_score"] == 1.0
    assert bad["error"]["code"] == "INVALID_ARGUMENT"


def test_the_command_serves_on_loopback_and_never_logs_rows(tmp_path: Path) -> None:
    with endpoint_process(tmp_path) as (address, log):
        host, port = address.split(":")
        assert host == "127.0.0.1"
        check_row(port)
    logged = log.read_text()
    assert "BigQuery request 124ab1c: 2 rows (0 kept from before), 1 row errors" in logged
    assert "Zanzibar" not in logged


def test_public_listens_on_every_interface(tmp_path: Path) -> None:
    with endpoint_process(tmp_path, "--public") as (address, _):
        host, port = address.split(":")
        assert host == "0.0.0.0"
        check_row(port)  # reached over loopback only


def test_the_port_is_port_then_the_variable_then_8080_and_the_host_loopback_unless_public() -> None:
    def args(**given: object) -> argparse.Namespace:
        return argparse.Namespace(**{"host": None, "port": None, "public": False, **given})

    assert listen_address(args(), {}) == ("127.0.0.1", 8080)
    assert listen_address(args(), {"PORT": "9000"}) == ("127.0.0.1", 9000)
    assert listen_address(args(port=7000, host="::1"), {"PORT": "9000"}) == ("::1", 7000)
    assert listen_address(args(host="localhost"), {}) == ("localhost", 8080)
    with pytest.raises(InputError, match=r"not a loopback address .* add --public"):
        listen_address(args(host="0.0.0.0"), {})
    with pytest.raises(InputError, match="not a loopback address"):
        listen_address(args(host="10.1.2.3"), {})
    assert listen_address(args(public=True, host="10.1.2.3"), {}) == ("10.1.2.3", 8080)
    with pytest.raises(InputError, match=r"\$PORT must be a port number"):
        listen_address(args(), {"PORT": "http"})


def test_without_uvicorn_the_command_says_which_extra_to_install(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "uvicorn", None)  # `import uvicorn` now fails

    assert main(["bigquery-endpoint", "--local"]) == 1

    err = capsys.readouterr().err
    assert err.strip().splitlines() == [
        "groundwire: error: bigquery-endpoint needs uvicorn: pip install 'groundwire[bigquery]'"
    ]


def test_the_app_module_does_not_import_uvicorn() -> None:
    code = "import sys, groundwire.integrations.bigquery; print('uvicorn' in sys.modules)"
    done = subprocess.run(
        [sys.executable, "-c", code], env=cli_env(), capture_output=True, text=True, timeout=60
    )
    assert done.stdout.strip() == "False", done.stderr
