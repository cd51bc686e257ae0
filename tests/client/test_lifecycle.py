"""Client configuration, lifetime and bad input end in clear errors, not surprises."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from google.rpc.error_details_pb2 import BadRequest

from groundwire import AsyncGroundingClient, GroundingClient, RetryPolicy
from groundwire.contract import apis, errors
from tests.support.canned import CannedServers
from tests.support.typed import typed


def ok_check(method: apis.Method, request: Any) -> Any:
    response: Any = method.response_class(support_score=1.0)  # of the version called
    response.claims.add(start_pos=0, end_pos=1, claim_text="x")
    return response


def test_a_closed_client_refuses_further_calls(servers: CannedServers) -> None:
    servers.behaviour = ok_check
    client = GroundingClient("p", transport="grpc", endpoint=servers.grpc_address)
    with client:
        client.check_grounding("x", ["y"])
    with pytest.raises(RuntimeError, match="closed"):
        client.check_grounding("x", ["y"])


def test_a_rest_emulator_alone_serves_the_default_auto_client(
    servers: CannedServers, monkeypatch: pytest.MonkeyPatch
) -> None:
    servers.behaviour = ok_check
    monkeypatch.delenv("GROUNDWIRE_EMULATOR_HOST", raising=False)
    monkeypatch.setenv("GROUNDWIRE_EMULATOR_REST", servers.http_url)
    with GroundingClient("p") as client:
        assert client.check_grounding("x", ["y"]).claims[0].text == "x"
    assert servers.recorder.rest_calls == 1
    assert servers.recorder.grpc_calls == 0


def test_the_client_timeout_is_the_deadline_unless_the_retry_policy_sets_a_smaller_one() -> None:
    from groundwire.client.settings import Settings

    def settings(timeout: float, retry: RetryPolicy | None) -> Settings:
        return Settings(
            transport="grpc",
            endpoint=None,
            rest_endpoint=None,
            credentials=None,
            timeout=timeout,
            retry=retry,
            fallback_cooldown=1,
        )

    assert settings(300.0, RetryPolicy()).retrying(None).deadline.remaining() > 299
    assert settings(300.0, RetryPolicy(timeout=5.0)).retrying(None).deadline.remaining() <= 5
    assert settings(300.0, None).retrying(2.0).deadline.remaining() <= 2
    # The first attempt takes the same deadline whole.
    assert settings(300.0, RetryPolicy()).retrying(None).start(None) == pytest.approx(300.0, abs=1)
    assert settings(300.0, RetryPolicy(timeout=5.0)).retrying(None).start(None) == pytest.approx(
        5.0, abs=1
    )
    assert settings(300.0, RetryPolicy(timeout=5.0)).retrying(2.0).start(None) == pytest.approx(
        2.0, abs=1
    )
    assert settings(300.0, RetryPolicy()).retrying(None, None).start(None) == pytest.approx(
        300.0, abs=1
    )


def test_concurrent_first_async_calls_share_one_transport(servers: CannedServers) -> None:
    servers.behaviour = ok_check

    async def run() -> int:
        client = AsyncGroundingClient("p", transport="grpc", endpoint=servers.grpc_address)
        await asyncio.gather(*(client.check_grounding("x", ["y"]) for _ in range(5)))
        built = len(client._transports)
        await client.close()
        return built

    assert asyncio.run(run()) == 1


def test_missing_application_default_credentials_are_unauthenticated(
    monkeypatch: pytest.MonkeyPatch, tmp_path: object
) -> None:
    monkeypatch.delenv("GROUNDWIRE_EMULATOR_HOST", raising=False)
    monkeypatch.delenv("GROUNDWIRE_EMULATOR_REST", raising=False)
    monkeypatch.setenv("GOOGLE_APPLICATION_CREDENTIALS", f"{tmp_path}/missing.json")
    with (
        GroundingClient("p") as client,
        pytest.raises(errors.Unauthenticated, match="application-default"),
    ):
        client.check_grounding("x", ["y"])


@pytest.mark.parametrize(
    ("facts", "options", "field"),
    [
        ([("text", {"year": 2020})], {}, "facts[0].attributes"),
        (["text"], {"citation_threshold": "0.5"}, "grounding_spec.citation_threshold"),
        (["text"], {"user_labels": {"team": 7}}, "user_labels"),
    ],
)
def test_values_of_the_wrong_type_name_their_field(
    facts: list[object], options: dict[str, object], field: str
) -> None:
    with (
        GroundingClient("p", endpoint="127.0.0.1:9") as client,
        pytest.raises(errors.InvalidArgument) as caught,
    ):
        client.check_grounding("x", facts, **options)  # type: ignore[arg-type]
    assert typed(BadRequest, caught.value.details[0]).field_violations[0].field == field
