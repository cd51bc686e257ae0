"""An empty answer, content or prompt is InvalidArgument naming its field, before any call."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from groundwire import AsyncGroundingClient, GroundingClient
from groundwire.contract.errors import InvalidArgument
from groundwire.emulator import Emulator, emulator

pytestmark = pytest.mark.timeout(60)

FACTS = ["Paris is the capital of France."]
HANG_BOUND = 30.0

Call = Callable[[Any, str], Any]
"""A call of one RPC with a text, on a sync or an async client."""

CALLS: dict[str, tuple[Call, str]] = {
    "CheckGrounding": (
        lambda client, text: client.check_grounding(text, FACTS),
        "answer_candidate",
    ),
    "CorroborateContent": (
        lambda client, text: client.corroborate_content(text, FACTS),
        "content",
    ),
    "GenerateGroundedContent": (
        lambda client, text: client.generate_grounded_content(text),
        "contents[0]",
    ),
}


@pytest.fixture(scope="module")
def emu() -> Iterator[Emulator]:
    with emulator() as running:
        yield running


def sync_call(emu: Emulator, call: Call, text: str, **client_options: Any) -> Any:
    client: GroundingClient
    with emu.client(transport="grpc", **client_options) as client:
        return call(client, text)


def async_call(emu: Emulator, call: Call, text: str, **client_options: Any) -> Any:
    async def run() -> Any:
        client: AsyncGroundingClient
        async with emu.async_client(transport="grpc", **client_options) as client:
            return await call(client, text)

    return asyncio.run(asyncio.wait_for(run(), HANG_BOUND))


@pytest.mark.parametrize("text", ["", " \n\t"], ids=["empty", "blank"])
@pytest.mark.parametrize("rpc", sorted(CALLS))
@pytest.mark.parametrize("run", [sync_call, async_call], ids=["sync", "asyncio"])
def test_an_empty_text_is_refused_naming_its_field_before_any_call(
    emu: Emulator, run: Callable[..., Any], rpc: str, text: str
) -> None:
    call, field = CALLS[rpc]
    before = emu.last_request_number()
    with pytest.raises(InvalidArgument) as caught:
        run(emu, call, text)
    assert caught.value.message == f"invalid {rpc} request: {field} is empty"
    assert emu.last_request_number() == before  # nothing was sent


def test_a_stream_with_an_empty_prompt_is_refused_before_any_call(emu: Emulator) -> None:
    before = emu.last_request_number()
    with emu.client(transport="grpc") as client, pytest.raises(InvalidArgument, match="contents"):
        list(client.stream_generate_grounded_content(""))
    assert emu.last_request_number() == before


def test_a_prompt_after_a_model_turn_is_the_last_user_turn() -> None:
    from groundwire.contract import calls

    config = calls.ClientConfig("p")
    turns = [("user", "Who wrote Faust?"), ("model", "")]
    request: Any = calls.unary(config, "GenerateGroundedContent", turns).request
    assert request.contents[1].role == "model"  # an empty model turn is no empty prompt
    with pytest.raises(InvalidArgument, match=r"contents\[0\] is empty"):
        calls.unary(config, "GenerateGroundedContent", [("user", " "), ("model", "Goethe.")])


@pytest.mark.parametrize("rpc", sorted(CALLS))
def test_without_validation_the_emulator_refuses_it_the_same_way(emu: Emulator, rpc: str) -> None:
    call, field = CALLS[rpc]
    before = emu.last_request_number()
    with pytest.raises(InvalidArgument) as caught:
        sync_call(emu, call, "", validate=False)
    assert caught.value.message == f"invalid {rpc} request: {field} is empty"
    assert emu.last_request_number() == before + 1  # sent, and refused by the server
