"""check_grounding_many: one outcome per input, in order, lazily, adapting to a throttling server.

The throttling server is `groundwire serve --fault-rate 0.3 --fault-codes RESOURCE_EXHAUSTED
--fault-seed 7` (the same faults in the same order every run)
in a child process; the rest run on the in-process emulator.
"""

from __future__ import annotations

import threading
import time
import tracemalloc
from collections.abc import Iterator
from typing import Any

import pytest

from groundwire import GroundingClient, RetryPolicy
from groundwire.contract import calls
from groundwire.contract.errors import InvalidArgument, StatusCode, Unavailable
from groundwire.emulator import EMULATOR_PROJECT, Emulator, emulator
from tests.reliability.processes import EmulatorProcess, free_port

THROTTLING = ["--fault-rate", "0.3", "--fault-codes", "RESOURCE_EXHAUSTED", "--fault-seed", "7"]
RETRY = RetryPolicy(initial=0.01, maximum=0.2, timeout=20.0)
FACTS = ["Paris is the capital of France."]
HANG_BOUND = 60.0


def record(index: int) -> dict[str, Any]:
    """A batch record whose answer names its index, so its outcome can be matched to it."""
    return {"answer": f"Paris is the capital of France, says record {index}.", "facts": FACTS}


def records(count: int) -> Iterator[dict[str, Any]]:
    return (record(index) for index in range(count))


@pytest.fixture(scope="module")
def throttling() -> Iterator[EmulatorProcess]:
    with EmulatorProcess(THROTTLING) as server:
        yield server


@pytest.fixture(scope="module")
def emu() -> Iterator[Emulator]:
    with emulator() as running:
        yield running


def test_every_input_gets_exactly_one_outcome_in_input_order_under_throttling(
    throttling: EmulatorProcess,
) -> None:
    count = 150
    windows = []
    with GroundingClient(
        EMULATOR_PROJECT, endpoint=throttling.grpc_address, transport="grpc", retry=RETRY
    ) as client:
        batch = client.check_grounding_many(records(count))
        outcomes = []
        for outcome in batch:
            outcomes.append(outcome)
            windows.append(batch.concurrency)
    assert [outcome.index for outcome in outcomes] == list(range(count))
    assert all(outcome.error is None for outcome in outcomes)
    assert [outcome.result.answer_candidate for outcome in outcomes if outcome.result] == [
        record(index)["answer"] for index in range(count)
    ]
    assert sum(outcome.attempts for outcome in outcomes) > count  # some were throttled
    assert min(windows) < 16 / 2
    assert batch.throttled_seconds > 0


def test_concurrency_drops_while_the_server_throttles_and_recovers_when_it_stops(
    start_emulator_on_ports: EmulatorProcess,
) -> None:
    server = start_emulator_on_ports
    throttled_phase, calm_phase = 60, 300

    def inputs() -> Iterator[dict[str, Any]]:
        yield from records(throttled_phase)
        server.kill()  # the same ports come back without faults
        server.extra_args = []
        server.start()
        yield from (record(index) for index in range(throttled_phase, throttled_phase + calm_phase))

    windows = []
    with GroundingClient(
        EMULATOR_PROJECT, rest_endpoint=server.http_url, transport="rest", retry=RETRY
    ) as client:
        batch = client.check_grounding_many(inputs(), max_connection_failures=None)
        for outcome in batch:
            assert outcome.error is None, outcome.error
            windows.append(batch.concurrency)
    assert len(windows) == throttled_phase + calm_phase
    assert min(windows[:throttled_phase]) <= 4
    assert windows[-1] == 16


@pytest.fixture
def start_emulator_on_ports() -> Iterator[EmulatorProcess]:
    server = EmulatorProcess(THROTTLING)
    try:
        yield server.start()
    finally:
        server.stop()


def _peak_memory(client: GroundingClient, count: int) -> int:
    tracemalloc.start()
    try:
        succeeded = sum(outcome.ok for outcome in client.check_grounding_many(records(count)))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert succeeded == count
    return peak


@pytest.mark.timeout(600)  # 22k calls under tracemalloc: minutes on a loaded machine
def test_peak_memory_is_the_same_after_2k_and_20k_inputs() -> None:
    with (
        EmulatorProcess() as server,
        GroundingClient(EMULATOR_PROJECT, endpoint=server.grpc_address, transport="grpc") as client,
    ):
        _peak_memory(client, 100)  # the channel, the imports and the caches, made once
        small = _peak_memory(client, 2_000)
        large = _peak_memory(client, 20_000)
    # Holding the inputs or the outcomes would take megabytes more for 18k more of them.
    assert large < 2 * small


def test_the_input_is_read_lazily_at_most_twice_concurrency_ahead(emu: Emulator) -> None:
    pulled = 0

    def counted() -> Iterator[dict[str, Any]]:
        nonlocal pulled
        for index in range(1_000):
            pulled += 1
            yield record(index)

    with emu.client(transport="grpc") as client:
        batch = client.check_grounding_many(counted(), concurrency=4)
        first = next(batch)
        batch.close()
    assert first.index == 0
    assert pulled <= 2 * 4 + 1


@pytest.mark.parametrize("transport", ["grpc", "rest"])
def test_a_refused_port_fails_the_batch_fast_with_a_typed_unavailable(
    transport: calls.TransportName,
) -> None:
    port = free_port()
    if transport == "grpc":
        client = GroundingClient(EMULATOR_PROJECT, transport="grpc", endpoint=f"127.0.0.1:{port}")
    else:
        client = GroundingClient(
            EMULATOR_PROJECT, transport="rest", rest_endpoint=f"http://127.0.0.1:{port}"
        )
    started = time.monotonic()
    with client:
        batch = client.check_grounding_many(records(1_000))
        with pytest.raises(
            Unavailable,
            match=rf"cannot reach (http://)?127\.0\.0\.1:{port}; is `groundwire serve` running\?",
        ):
            for _ in batch:
                pass
    assert time.monotonic() - started < HANG_BOUND  # not 1,000 items times 60 s


def test_bad_items_become_invalid_argument_outcomes_and_the_others_go_on(emu: Emulator) -> None:
    ready = calls.unary(
        calls.ClientConfig(EMULATOR_PROJECT), "CheckGrounding", "Paris is in France.", facts=FACTS
    ).request
    items: list[Any] = [
        record(0),
        {"answr": "typo", "facts": FACTS},
        "just a string",
        {"facts": FACTS},
        ready,
        {"answer": "One.", "answer_candidate": "Two.", "facts": FACTS},
        {"answer_candidate": "Paris is in France.", "facts": "not a list"},
        {"answer": "Paris is in France.", "facts": FACTS, "citation_threshold": 2.0},
        {"answer_candidate": "Paris is in France.", "facts": FACTS, "id": "q-9"},
    ]
    with emu.client(transport="grpc") as client:
        outcomes = list(client.check_grounding_many(items))
    assert [outcome.index for outcome in outcomes] == list(range(len(items)))
    bad = [outcome.index for outcome in outcomes if isinstance(outcome.error, InvalidArgument)]
    assert bad == [1, 2, 3, 5, 6, 7]
    assert all(outcomes[index].attempts == 0 for index in bad)
    assert [outcome.ok for outcome in outcomes] == [True, *[False] * 3, True, *[False] * 3, True]
    assert outcomes[8].id == "q-9"


def test_an_item_no_request_can_be_made_of_keeps_its_id(emu: Emulator) -> None:
    items: list[Any] = [
        {"answer": "bad \ud800 text", "facts": FACTS, "id": "b"},
        {"answer": "Paris.", "facts": FACTS, "citation_threshold": 4 * 10**4_400, "id": "n"},
        {**record(2), "id": "c"},
    ]
    with emu.client(transport="grpc") as client:
        outcomes = list(client.check_grounding_many(items))
    assert [(outcome.id, outcome.ok) for outcome in outcomes] == [
        ("b", False),
        ("n", False),
        ("c", True),
    ]
    assert all(isinstance(outcome.error, InvalidArgument) for outcome in outcomes[:2])


@pytest.mark.parametrize("blank", ["", " \n\t"])
def test_an_empty_answer_is_that_items_own_invalid_argument_and_the_others_are_answered(
    emu: Emulator, blank: str
) -> None:
    items = [record(0), {"answer": blank, "facts": FACTS, "id": "e"}, record(2)]
    with emu.client(transport="grpc") as client:
        outcomes = list(client.check_grounding_many(items))
    assert [outcome.ok for outcome in outcomes] == [True, False, True]
    empty = outcomes[1]
    assert (empty.id, empty.attempts) == ("e", 0)  # refused before any call was sent
    assert isinstance(empty.error, InvalidArgument)
    assert "answer_candidate is empty" in empty.error.message


def test_empty_content_is_that_items_own_invalid_argument(emu: Emulator) -> None:
    items = [{"content": "", "facts": FACTS}, {"content": "Paris is in France.", "facts": FACTS}]
    with emu.client(transport="grpc", location="us-central1") as client:
        outcomes = list(client.corroborate_content_many(items))
    assert [(outcome.ok, outcome.attempts) for outcome in outcomes] == [(False, 0), (True, 1)]
    assert isinstance(outcomes[0].error, InvalidArgument)
    assert "content is empty" in outcomes[0].error.message


def test_rate_limits_the_requests_per_second(emu: Emulator) -> None:
    with emu.client(transport="grpc") as client:
        started = time.monotonic()
        outcomes = list(client.check_grounding_many(records(11), rate=50.0))
        elapsed = time.monotonic() - started
    assert all(outcome.ok for outcome in outcomes)
    assert elapsed >= 10 / 50.0 * 0.9  # the bucket spaces 11 sends over 10 intervals


def test_batch_options_apply_to_items_that_give_none(emu: Emulator) -> None:
    items = [{"answer": "Paris is in France.", "facts": FACTS}] * 2
    with emu.client(transport="grpc") as client:
        outcomes = list(client.check_grounding_many(items, citation_threshold=1.5))
    assert all(isinstance(outcome.error, InvalidArgument) for outcome in outcomes)


def test_corroborate_content_many_takes_content_and_its_synonyms(emu: Emulator) -> None:
    items: list[Any] = [
        {"content": "Paris is the capital of France.", "facts": FACTS},
        {"answer": "Paris is the capital of France.", "facts": FACTS, "id": 2},
        {"contnt": "typo"},
    ]
    with emu.client(transport="grpc", location="us-central1") as client:
        outcomes = list(client.corroborate_content_many(items))
    assert [outcome.ok for outcome in outcomes] == [True, True, False]
    assert outcomes[0].result is not None
    assert outcomes[0].result.corroboration_score is not None
    assert outcomes[1].id == 2


def test_closing_a_batch_early_stops_it_without_waiting_for_the_rest(emu: Emulator) -> None:
    # Threads that earlier tests left behind (gRPC's, the emulator's) are not the batch's.
    threads_before = threading.active_count()
    with emu.client(transport="grpc") as client:
        with client.check_grounding_many(records(10_000), concurrency=2) as batch:
            next(batch)
        assert threading.active_count() - threads_before < 50
        with pytest.raises(StopIteration):
            next(batch)


def test_with_retry_none_each_item_gets_one_attempt_and_keeps_its_error(
    throttling: EmulatorProcess,
) -> None:
    with GroundingClient(
        EMULATOR_PROJECT, endpoint=throttling.grpc_address, transport="grpc", retry=None
    ) as client:
        outcomes = list(client.check_grounding_many(records(40)))
    codes = {outcome.error.code for outcome in outcomes if outcome.error is not None}
    assert codes == {StatusCode.RESOURCE_EXHAUSTED}  # retry=None: one attempt each
    assert all(outcome.attempts == 1 for outcome in outcomes)
