"""Answers name themselves consistently: status words match HTTP statuses, logs name bytes."""

from __future__ import annotations

import logging
import re
from typing import Any

import grpc
import httpx
import pytest

from groundwire.emulator import Emulator
from tests.emulator.support import CHECK, CHECK_PATH, check_request, unary_call

pytestmark = pytest.mark.timeout(60)


def test_a_wrong_verb_is_a_405_whose_status_word_is_unimplemented(emu: Emulator) -> None:
    response = httpx.get(emu.http_url + CHECK_PATH, timeout=10.0)
    error = response.json()["error"]
    assert (response.status_code, error["code"], error["status"]) == (405, 405, "UNIMPLEMENTED")
    assert response.headers["allow"] == "POST"


def test_a_grpc_access_log_line_names_the_bytes_of_the_response(
    channel: grpc.Channel, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.INFO, logger="groundwire.emulator.access"):
        response: Any = unary_call(channel, CHECK, check_request())
    lines = [r.getMessage() for r in caplog.records if r.name == "groundwire.emulator.access"]
    pattern = rf" gRPC {re.escape(CHECK.grpc_path)} OK {response.ByteSize()} [0-9.]+ms$"
    assert response.ByteSize() > 0
    assert [line for line in lines if re.search(pattern, line)], lines


def test_a_refused_grpc_call_is_logged_with_no_bytes(
    channel: grpc.Channel, caplog: pytest.LogCaptureFixture
) -> None:
    with (
        caplog.at_level(logging.INFO, logger="groundwire.emulator.access"),
        pytest.raises(grpc.RpcError),
    ):
        unary_call(channel, CHECK, check_request(facts=("fact",) * 201))
    lines = [r.getMessage() for r in caplog.records if r.name == "groundwire.emulator.access"]
    pattern = rf" gRPC {re.escape(CHECK.grpc_path)} INVALID_ARGUMENT 0 [0-9.]+ms$"
    assert [line for line in lines if re.search(pattern, line)], lines
