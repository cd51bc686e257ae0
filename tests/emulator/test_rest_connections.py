"""REST connections: one peer cannot take every slot, framing is strict, refusals log quietly."""

from __future__ import annotations

import logging
import time

import httpx
import pytest

from groundwire.emulator import Emulator
from tests.emulator.support import CHECK_BODY, CHECK_PATH
from tests.emulator.test_rest_hostile_clients import connect

pytestmark = pytest.mark.timeout(60)

TLS_CLIENT_HELLO = bytes.fromhex("16030100c8010000c40303") + bytes(32) + b"\x00\x00\x02\x13\x01"
"""The start of a TLS handshake, as a client that mistook the emulator for HTTPS sends it."""


def send_and_hang_up(emu: Emulator, data: bytes) -> None:
    """Sends `data` and closes at once, reading nothing: the server's answer meets a reset."""
    with connect(emu) as connection:
        connection.sendall(data)


@pytest.mark.parametrize("junk", [TLS_CLIENT_HELLO, b"\x00\xff junk \r\n\r\n"], ids=["tls", "junk"])
def test_clients_that_send_junk_and_hang_up_leave_no_traceback_in_the_log(
    emu: Emulator, caplog: pytest.LogCaptureFixture, junk: bytes
) -> None:
    with caplog.at_level(logging.DEBUG):
        for _ in range(8):
            send_and_hang_up(emu, junk)
        time.sleep(0.5)  # the server has answered, or tried to answer, every one
        response = httpx.post(emu.http_url + CHECK_PATH, json=CHECK_BODY, timeout=10.0)
    assert response.status_code == 200
    problems = [r for r in caplog.records if r.exc_info or r.levelno >= logging.ERROR]
    assert [r.getMessage() for r in problems] == []
