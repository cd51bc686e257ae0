"""A server that accepts and reads but never answers: each call ends by its deadline, none hangs."""

from __future__ import annotations

import asyncio

import pytest

from groundwire import AsyncGroundingClient, RetryPolicy
from groundwire.contract.calls import TransportName
from groundwire.contract.errors import GroundwireError
from tests.reliability.calls import ANSWER, FACTS, PROJECT, bounded, client_for
from tests.reliability.raw_servers import RawServer, silent

DEADLINE = 1.0
BOUND = 10 * DEADLINE
RETRYING = RetryPolicy(initial=0.05, maximum=0.2, timeout=DEADLINE)


@pytest.mark.parametrize("transport", ["grpc", "rest"])
@pytest.mark.parametrize("retry", [None, RETRYING], ids=["no-retry", "retry"])
def test_a_call_to_a_silent_server_fails_with_a_groundwire_error_near_its_deadline(
    transport: TransportName, retry: RetryPolicy | None
) -> None:
    with RawServer(silent) as server:
        client = client_for(transport, server.address, server.url, timeout=DEADLINE, retry=retry)
        with client:
            outcome = bounded(lambda: client.check_grounding(ANSWER, FACTS), BOUND)

    assert not outcome.hung, f"the call was still waiting after {BOUND} s"
    assert isinstance(outcome.error, GroundwireError), repr(outcome.error)
    assert outcome.error.code.name in ("DEADLINE_EXCEEDED", "UNAVAILABLE"), outcome.error
    assert outcome.seconds < DEADLINE + 2.0


@pytest.mark.parametrize("transport", ["grpc", "rest"])
async def test_an_async_call_to_a_silent_server_fails_with_a_groundwire_error(
    transport: TransportName,
) -> None:
    with RawServer(silent) as server:
        async with AsyncGroundingClient(
            PROJECT,
            transport=transport,
            endpoint=server.address,
            rest_endpoint=server.url,
            timeout=DEADLINE,
            retry=RETRYING,
        ) as client:
            with pytest.raises(GroundwireError) as raised:
                await asyncio.wait_for(client.check_grounding(ANSWER, FACTS), BOUND)

    assert raised.value.code.name in ("DEADLINE_EXCEEDED", "UNAVAILABLE")
