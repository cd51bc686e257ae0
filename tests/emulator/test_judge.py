"""A judge of the user's own scores the claims, on real servers: its failures are clear statuses."""

from __future__ import annotations

import asyncio
import gc
import json
import pickle
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from groundwire import ConfigurationError, DeadlineExceeded, GroundingClient, Internal
from groundwire.emulator import emulator
from groundwire.emulator.judges import Judge
from tests.emulator.support import run_python
from tests.emulator.test_official_clients import CHECK_GROUNDING, CORROBORATE

PARIS = "Paris is the capital of France."
BANANAS = "Bananas are yellow in Paris."  # shares a word with the claim: a candidate window
MOON = "The moon over Paris is cheese."
"""A claim the judge of these tests fails on; it shares "Paris" with the facts, so it is judged."""
SHORT_TIMEOUT = 0.2
HANG_BOUND = 30.0
"""Seconds that only a hang would exceed: DEADLINE_EXCEEDED comes after SHORT_TIMEOUT."""


def prefers_bananas(claim: str, passages: list[str]) -> list[float]:
    """Disagrees with the engine: whatever the claim, only bananas support it."""
    return [0.9 if "Bananas" in passage else 0.0 for passage in passages]


def explodes_on_the_moon(claim: str, passages: list[str]) -> list[float]:
    """Fails on one claim, answers every other."""
    if "moon" in claim:
        raise ValueError("no model for the moon")
    return [0.7] * len(passages)


@pytest.fixture(params=["grpc", "rest"])
def transport(request: pytest.FixtureRequest) -> str:
    name: str = request.param
    return name


@contextmanager
def judged_client(judge: Any, transport: str = "grpc", **options: Any) -> Iterator[GroundingClient]:
    """A client, without retries, of an emulator that has `judge`."""
    with (
        emulator(judge=judge, **options) as emu,
        emu.client(transport=transport, retry=None) as client,
    ):
        yield client


def test_the_judges_scores_pick_the_claims_score_and_citations(transport: str) -> None:
    with judged_client(prefers_bananas, transport) as client:
        result = client.check_grounding(
            f"Hello! {PARIS}", [PARIS, BANANAS], enable_claim_level_score=True
        )
    greeting, claim = result.claims
    assert not greeting.grounding_check_required
    assert [chunk.text for chunk in claim.citations] == [BANANAS]
    assert claim.score == pytest.approx(0.9)
    assert result.support_score == pytest.approx(0.9)


def test_a_higher_citation_threshold_cites_less_of_what_the_judge_scored(transport: str) -> None:
    with judged_client(prefers_bananas, transport) as client:
        result = client.check_grounding(PARIS, [PARIS, BANANAS], citation_threshold=0.95)
    assert result.claims[0].citations == ()


def test_the_judge_sees_each_claim_that_needs_a_check_with_the_facts_sharing_its_words() -> None:
    seen: list[tuple[str, list[str]]] = []

    def recording(claim: str, passages: list[str]) -> list[float]:
        seen.append((claim, passages))
        return [0.5] * len(passages)

    with judged_client(recording, "grpc") as client:
        result = client.check_grounding(
            f"Hi! {PARIS} The moon is yellow. Rome is old.",
            [PARIS, BANANAS],
            enable_claim_level_score=True,
        )
        client.check_grounding(PARIS, [])
    assert sorted(seen) == [(PARIS, [PARIS, BANANAS]), ("The moon is yellow.", [BANANAS])]
    rome = result.claims[-1]  # shares no word with the facts: not sent, not supported
    assert (rome.text, rome.grounding_check_required, rome.score) == ("Rome is old.", True, 0.0)


def test_corroborate_content_reports_what_the_judge_supports(transport: str) -> None:
    with judged_client(prefers_bananas, transport) as client:
        result = client.corroborate_content(PARIS, [PARIS, BANANAS])
    (claim,) = result.claims
    assert (claim.text, claim.fact_indexes) == (PARIS, (1,))
    assert result.corroboration_score == pytest.approx(0.9)


def test_grounded_generation_cites_what_the_judge_supports(transport: str) -> None:
    question = "What is the capital of France?"
    with judged_client(prefers_bananas, transport) as client:
        answer = client.generate_grounded_content(question, facts=[PARIS, BANANAS])
        pieces = list(client.stream_generate_grounded_content(question, facts=[PARIS, BANANAS]))
    assert answer.text == PARIS
    assert [chunk.text for chunk in answer.support_chunks] == [BANANAS]
    assert answer.grounding_score == pytest.approx(0.9)
    assert "".join(piece.text for piece in pieces) == PARIS
    assert [chunk.text for chunk in pieces[-1].support_chunks] == [BANANAS]


def test_a_judge_that_raises_is_internal_with_its_message_and_the_next_call_works(
    transport: str,
) -> None:
    with judged_client(explodes_on_the_moon, transport) as client:
        with pytest.raises(Internal) as raised:
            client.check_grounding(f"{PARIS} {MOON}", [PARIS])
        assert raised.value.message == (
            "the judge tests.emulator.test_judge:explodes_on_the_moon raised ValueError: "
            "no model for the moon"
        )
        assert client.check_grounding(PARIS, [PARIS]).claims[0].citations


def test_a_judge_that_fails_mid_stream_ends_the_stream_with_internal(transport: str) -> None:
    def explodes(claim: str, passages: list[str]) -> list[float]:
        raise RuntimeError("out of memory")

    with (
        judged_client(explodes, transport) as client,
        pytest.raises(Internal, match="raised RuntimeError: out of memory"),
    ):
        list(client.stream_generate_grounded_content("The capital?", facts=[PARIS]))


@pytest.fixture
def hang() -> Iterator[threading.Event]:
    """Released when the test ends, so no judge thread outlives it."""
    released = threading.Event()
    yield released
    released.set()


def test_a_judge_that_hangs_is_deadline_exceeded_within_the_timeout(
    transport: str, hang: threading.Event
) -> None:
    def hangs(claim: str, passages: list[str]) -> list[float]:
        hang.wait(HANG_BOUND * 2)
        return [1.0] * len(passages)

    with judged_client(hangs, transport, judge_timeout=SHORT_TIMEOUT) as client:
        started = time.monotonic()
        with pytest.raises(DeadlineExceeded, match=r"hangs gave no scores within 0\.2 s"):
            client.check_grounding(PARIS, [PARIS])
        assert SHORT_TIMEOUT <= time.monotonic() - started < HANG_BOUND
        hang.set()
        assert client.check_grounding(PARIS, [PARIS]).claims[0].citations


def test_a_hung_call_keeps_its_slot_until_it_returns(hang: threading.Event) -> None:
    def hangs(claim: str, passages: list[str]) -> list[float]:
        hang.wait(HANG_BOUND * 2)
        return [1.0] * len(passages)

    with judged_client(hangs, judge_timeout=SHORT_TIMEOUT, judge_concurrency=1) as client:
        for _ in range(2):  # the second waits for the slot the first call still holds
            with pytest.raises(DeadlineExceeded):
                client.check_grounding(PARIS, [PARIS])
        hang.set()
        assert client.check_grounding(PARIS, [PARIS]).claims[0].citations


@pytest.mark.parametrize(
    ("scores", "message"),
    [
        ([float("nan")], "returned nan for passage 0; a score is a number within [0, 1]"),
        ([1.5], "returned 1.5 for passage 0"),
        ([-0.1], "returned -0.1 for passage 0"),
        ([True], "returned True for passage 0"),
        (["0.5"], "returned '0.5' for passage 0"),
        ([0.5, 0.5], "returned 2 scores for 1 passages; it must return one per passage"),
        ([], "returned 0 scores for 1 passages"),
        (0.5, "returned a float, not a list of scores"),
        ("0.5", "returned a str, not a list of scores"),
        (None, "returned a NoneType, not a list of scores"),
    ],
)
def test_a_judge_that_answers_nonsense_is_internal_naming_it(scores: object, message: str) -> None:
    def nonsense(claim: str, passages: list[str]) -> object:
        return scores

    with judged_client(nonsense, "rest") as client:
        with pytest.raises(Internal) as raised:
            client.check_grounding(PARIS, [PARIS])
        assert raised.value.message.startswith(
            f"the judge tests.emulator.test_judge:{nonsense.__qualname__} {message}"
        )
        assert client.check_grounding("Hello!", [PARIS]).claims  # needs no judge: still served


def test_an_async_judge_scores_and_its_failures_are_statuses(transport: str) -> None:
    async def judge(claim: str, passages: list[str]) -> list[float]:
        await asyncio.sleep(0)
        if "moon" in claim:
            raise LookupError("no such moon")
        return prefers_bananas(claim, passages)

    with judged_client(judge, transport) as client:
        result = client.check_grounding(PARIS, [PARIS, BANANAS])
        assert [chunk.text for chunk in result.claims[0].citations] == [BANANAS]
        with pytest.raises(Internal, match="raised LookupError: no such moon"):
            client.check_grounding(MOON, [PARIS])


def test_an_async_judge_past_the_timeout_is_cancelled() -> None:
    cancelled = threading.Event()

    async def hangs(claim: str, passages: list[str]) -> list[float]:
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            cancelled.set()
            raise
        return []

    with (
        judged_client(hangs, judge_timeout=SHORT_TIMEOUT) as client,
        pytest.raises(DeadlineExceeded),
    ):
        client.check_grounding(PARIS, [PARIS])
    assert cancelled.wait(HANG_BOUND)


class CountingBatchJudge:
    """A judge with a batch form: one call per request, however many claims."""

    def __init__(self) -> None:
        self.batches: list[list[tuple[str, list[str]]]] = []

    def __call__(self, claim: str, passages: list[str]) -> list[float]:
        raise AssertionError("the batch form is used when there is one")

    def batch(self, pairs: list[tuple[str, list[str]]]) -> list[list[float]]:
        self.batches.append(pairs)
        return [prefers_bananas(claim, passages) for claim, passages in pairs]


def test_a_batch_judge_gets_every_claim_of_a_request_in_one_call(transport: str) -> None:
    judge = CountingBatchJudge()
    answer = f"{PARIS} {MOON} Rome is older than Paris."
    with judged_client(judge, transport) as client:
        result = client.check_grounding(answer, [PARIS, BANANAS])
    assert [[claim for claim, _ in pairs] for pairs in judge.batches] == [
        [PARIS, MOON, "Rome is older than Paris."]
    ]
    assert all(claim.citations[0].text == BANANAS for claim in result.claims)


def test_an_async_batch_judge_that_returns_too_few_lists_is_internal() -> None:
    class ShortBatch:
        async def batch(self, pairs: list[tuple[str, list[str]]]) -> list[list[float]]:
            return [[1.0]]

    with (
        judged_client(ShortBatch()) as client,
        pytest.raises(Internal, match="returned 1 lists of scores for 2 claims"),
    ):
        client.check_grounding(f"{PARIS} Rome is older than Paris.", [PARIS])


def test_judge_calls_in_flight_stay_within_the_concurrency() -> None:
    meeting = threading.Barrier(2, timeout=HANG_BOUND)
    lock = threading.Lock()
    in_flight = [0, 0]  # now, most

    def meets_another(claim: str, passages: list[str]) -> list[float]:
        with lock:
            in_flight[0] += 1
            in_flight[1] = max(in_flight[1], in_flight[0])
        meeting.wait()  # breaks (INTERNAL) unless two calls run at once
        with lock:
            in_flight[0] -= 1
        return [1.0] * len(passages)

    answer = " ".join(f"Claim number {word} is here." for word in ("one", "two", "three", "four"))
    with judged_client(meets_another, judge_concurrency=2) as client:
        result = client.check_grounding(answer, ["Every claim has a number."])
    assert len(result.claims) == 4
    assert in_flight[1] == 2


@pytest.mark.official
def test_the_official_client_sees_the_judges_citations(transport: str) -> None:
    with emulator(judge=prefers_bananas) as emu:
        address = emu.grpc_address if transport == "grpc" else emu.http_url
        script = CHECK_GROUNDING.format(version="v1")
        facts = json.dumps([PARIS, BANANAS])
        result = json.loads(run_python(script, transport, address, f"{PARIS} {MOON}", facts))
    assert [claim["sources"] for claim in result["claims"]] == [["1"], ["1"]]
    assert result["support_score"] == pytest.approx(0.9)


@pytest.mark.official
def test_the_official_vertex_client_sees_the_judges_corroboration(transport: str) -> None:
    content = f"{PARIS} {MOON}"
    with emulator(judge=prefers_bananas) as emu:
        address = emu.grpc_address if transport == "grpc" else emu.http_url
        output = run_python(CORROBORATE, transport, address, content, json.dumps([PARIS, BANANAS]))
    claims = json.loads(output)["claims"]
    assert [content.encode()[c["start"] : c["end"]].decode() for c in claims] == [
        PARIS,
        MOON,
    ]
    assert [(c["facts"], round(c["score"], 6)) for c in claims] == [([1], 0.9), ([1], 0.9)]


def test_a_judge_named_by_module_travels_to_a_worker_by_name_and_loads_there() -> None:
    judge = Judge("tests.emulator.test_judge:prefers_bananas", timeout=2.0, concurrency=3)
    judge.load()
    moved = pickle.loads(pickle.dumps(judge))
    assert (moved.name, moved.timeout, moved.concurrency) == (judge.name, 2.0, 3)
    assert moved([(PARIS, [PARIS, BANANAS])]) == [[0.0, 0.9]]


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"timeout": 0}, "the judge timeout must be a positive number, not 0"),
        ({"timeout": float("inf")}, "the judge timeout must be a positive number, not inf"),
        ({"concurrency": 0}, "the judge concurrency must be at least 1, not 0"),
    ],
)
def test_a_judge_needs_a_positive_timeout_and_concurrency(
    options: dict[str, Any], message: str
) -> None:
    with pytest.raises(ConfigurationError) as raised:
        Judge(prefers_bananas, **options)
    assert raised.value.message == message


def test_something_neither_callable_nor_with_a_batch_is_no_judge() -> None:
    with (
        pytest.raises(
            ConfigurationError, match=r"the judge int is not callable \(its type is int\)"
        ),
        emulator(judge=3),  # type: ignore[arg-type]
    ):
        pass


def test_the_garbage_collector_runs_while_a_judge_scores() -> None:
    collector_on: list[bool] = []

    def notes_the_collector(claim: str, passages: list[str]) -> list[float]:
        collector_on.append(gc.isenabled())
        return [1.0] * len(passages)

    assert gc.isenabled()
    with judged_client(notes_the_collector) as client:
        client.check_grounding(PARIS, [PARIS])
        list(client.stream_generate_grounded_content("The capital?", facts=[PARIS]))
    assert collector_on == [True, True]
