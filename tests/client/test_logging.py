"""The `groundwire` logger: retries, fallback and cool-downs always; each call when asked."""

from __future__ import annotations

import asyncio
import logging

import pytest

from groundwire import AsyncGroundingClient, GroundingClient
from groundwire.client.logs import SCOPE_VARIABLE
from groundwire.contract.calls import TransportName
from groundwire.wire import error_codecs
from tests.client.test_calls import FAST_RETRY, failing, ok_check
from tests.support.canned import CannedServers, refused_port

SECRET = "ya29.a0AfH6SMBx-not-a-real-token"


@pytest.fixture
def groundwire_logs(caplog: pytest.LogCaptureFixture) -> pytest.LogCaptureFixture:
    """Captures the `groundwire` logger from DEBUG up (so the logger counts as configured)."""
    caplog.set_level(logging.DEBUG, logger="groundwire")
    return caplog


def messages(caplog: pytest.LogCaptureFixture, level: int) -> list[str]:
    return [
        record.getMessage()
        for record in caplog.records
        if record.name == "groundwire" and record.levelno == level
    ]


def client_for(
    servers: CannedServers, transport: TransportName, **options: object
) -> GroundingClient:
    return GroundingClient(
        "p",
        transport=transport,
        endpoint=servers.grpc_address,
        rest_endpoint=servers.http_url,
        retry=FAST_RETRY,
        **options,  # type: ignore[arg-type]
    )


@pytest.mark.parametrize("transport", ["grpc", "rest"])
def test_a_retry_is_logged_at_info(
    servers: CannedServers, groundwire_logs: pytest.LogCaptureFixture, transport: TransportName
) -> None:
    servers.behaviour = failing(1, error_codecs.error_from_status(14, "busy"))
    with client_for(servers, transport) as client:
        client.check_grounding("x", ["y"])
    (retry,) = messages(groundwire_logs, logging.INFO)
    assert retry.startswith("CheckGrounding attempt 1 failed (UNAVAILABLE: busy); retrying in ")


def test_the_end_of_a_cool_down_is_logged_at_info(
    servers: CannedServers, groundwire_logs: pytest.LogCaptureFixture
) -> None:
    servers.behaviour = ok_check
    with GroundingClient(
        "p",
        endpoint=f"127.0.0.1:{refused_port()}",
        rest_endpoint=servers.http_url,
        fallback_cooldown=0.0,
    ) as client:
        client.check_grounding("x", ["y"])
        client.check_grounding("x", ["y"])  # the cool-down is over: gRPC is tried again
    (switch,) = messages(groundwire_logs, logging.WARNING)
    assert switch.startswith("gRPC could not connect")
    assert any("cool-down is over" in m for m in messages(groundwire_logs, logging.INFO))


@pytest.mark.parametrize("transport", ["grpc", "rest"])
def test_the_logging_scope_turns_on_a_debug_log_of_each_call_without_bodies(
    servers: CannedServers,
    groundwire_logs: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
    transport: TransportName,
) -> None:
    servers.behaviour = failing(1, error_codecs.error_from_status(14, "busy"))
    monkeypatch.setenv(SCOPE_VARIABLE, "groundwire")
    with client_for(servers, transport) as client:
        client.check_grounding("The answer to log.", [f"token={SECRET}"])
    debug = messages(groundwire_logs, logging.DEBUG)
    assert [m.split(":")[0] for m in debug] == [
        f"CheckGrounding attempt 1 over {transport}",
        f"CheckGrounding attempt 2 over {transport}",
        "CheckGrounding finished",
    ]
    assert " UNAVAILABLE in " in debug[0]
    assert " OK in " in debug[1]
    assert debug[1].endswith(" ms")
    assert "after 2 attempt(s)" in debug[2]
    everything = "\n".join(r.getMessage() for r in groundwire_logs.records)
    assert "The answer to log." not in everything
    assert SECRET not in everything
    record = next(r for r in groundwire_logs.records if r.levelno == logging.DEBUG)
    assert (record.rpcName, record.retryAttempt, record.transport) == (  # type: ignore[attr-defined]
        "CheckGrounding",
        1,
        transport,
    )


def test_without_the_scope_no_call_is_logged(
    servers: CannedServers,
    groundwire_logs: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    servers.behaviour = ok_check
    monkeypatch.setenv(SCOPE_VARIABLE, "google.cloud")
    with client_for(servers, "grpc") as client:
        client.check_grounding("x", ["y"])
    assert messages(groundwire_logs, logging.DEBUG) == []


def test_log_bodies_logs_request_and_response_scrubbed_of_secrets(
    servers: CannedServers, groundwire_logs: pytest.LogCaptureFixture
) -> None:
    servers.behaviour = ok_check
    with client_for(servers, "rest", log_bodies=True) as client:
        client.check_grounding("The answer to log.", [f"token={SECRET}"])
    debug = messages(groundwire_logs, logging.DEBUG)
    request = next(m for m in debug if m.startswith("CheckGrounding request: "))
    assert "The answer to log." in request
    assert "token=[REDACTED]" in request
    finished = next(m for m in debug if m.startswith("CheckGrounding finished"))
    assert '"supportScore": 1.0' in finished
    assert SECRET not in "\n".join(debug)


def test_the_async_client_logs_its_calls_alike(
    servers: CannedServers,
    groundwire_logs: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    servers.behaviour = ok_check
    monkeypatch.setenv(SCOPE_VARIABLE, "google,groundwire")

    async def run() -> None:
        async with AsyncGroundingClient(
            "p", transport="grpc", endpoint=servers.grpc_address
        ) as client:
            await client.check_grounding("x", ["y"])

    asyncio.run(run())
    debug = messages(groundwire_logs, logging.DEBUG)
    assert debug[0].startswith("CheckGrounding attempt 1 over grpc: OK in ")


def test_the_scope_gives_an_unconfigured_logger_a_debug_handler(
    servers: CannedServers, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    servers.behaviour = ok_check
    monkeypatch.setenv(SCOPE_VARIABLE, "groundwire")
    logger = logging.getLogger("groundwire")
    saved = (logger.handlers[:], logger.level, logger.propagate)
    logger.handlers, logger.level, logger.propagate = [], logging.NOTSET, True
    try:
        with client_for(servers, "grpc") as client:
            client.check_grounding("x", ["y"])
        assert logger.level == logging.DEBUG
        assert not logger.propagate
    finally:
        logger.handlers, logger.level, logger.propagate = saved
    assert "CheckGrounding attempt 1 over grpc: OK" in capsys.readouterr().err
