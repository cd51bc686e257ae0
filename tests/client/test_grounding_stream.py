"""Grounding a text stream as it arrives: live over each transport, bounded, ordered, stoppable."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest

from groundwire.contract.errors import GroundwireError, InvalidArgument
from groundwire.contract.results import CheckGroundingResult
from groundwire.emulator import Emulator
from groundwire.features.grounding_stream import AsyncGroundingStream, GroundingStream

FACTS = ["東京は日本の首都です。", "Paris is the capital of France."]
ANSWER = "東京は日本の首都です。Paris is the capital of France 🇫🇷. The moon is made of cheese! 👋"
WAIT = 30.0  # only catches a hang


def tokens(text: str, size: int = 3) -> Iterator[bytes]:
    """The answer as UTF-8 pieces that split characters, emoji and sentence ends."""
    encoded = text.encode()
    for start in range(0, len(encoded), size):
        yield encoded[start : start + size]


def assert_whole_text_offsets(checks: list[Any], text: str) -> None:
    encoded, utf16 = text.encode(), text.encode("utf-16-le")
    assert [c.text for c in checks] == [
        "東京は日本の首都です。",
        "Paris is the capital of France 🇫🇷.",
        "The moon is made of cheese!",
        "👋",
    ]
    for check in checks:
        for claim in check.claims:
            assert text[claim.start : claim.end] == claim.text
            assert encoded[claim.start_byte : claim.end_byte].decode() == claim.text
            assert (
                utf16[2 * claim.start_utf16 : 2 * claim.end_utf16].decode("utf-16-le") == claim.text
            )
    assert checks[0].support_score == 1.0
    assert checks[2].support_score == 0.0


@pytest.mark.parametrize("transport", ["grpc", "rest"])
def test_each_sentence_is_checked_with_whole_text_offsets(
    grounding_emulator: Emulator, transport: str
) -> None:
    with grounding_emulator.client(transport=transport) as client:
        stream = client.check_grounding_stream(tokens(ANSWER), FACTS, concurrency=2)
        checks = list(stream)
    assert_whole_text_offsets(checks, ANSWER)
    assert stream.summary is not None
    assert stream.summary.calls == 4
    facts = sum(len(f) for f in FACTS)
    assert (
        stream.summary.billed_characters == len(ANSWER) - 2 + 4 * facts
    )  # less the 2 spaces between
    assert 0.0 < (stream.summary.support_score or 0.0) < 1.0


@pytest.mark.parametrize("transport", ["grpc", "rest"])
async def test_each_sentence_is_checked_with_whole_text_offsets_async(
    grounding_emulator: Emulator, transport: str
) -> None:
    async def llm() -> AsyncIterator[bytes]:
        for token in tokens(ANSWER, 2):
            yield token

    async with grounding_emulator.async_client(transport=transport) as client:
        stream = client.check_grounding_stream(llm(), FACTS, concurrency=3)
        checks = [check async for check in stream]
    assert_whole_text_offsets(checks, ANSWER)
    assert stream.summary is not None
    assert stream.summary.calls == 4


def test_the_first_sentence_is_checked_before_the_last_token_is_read(
    grounding_emulator: Emulator,
) -> None:
    answer = " ".join(f"Paris is the capital of France {n}." for n in range(200))
    pieces = list(tokens(answer, 4))
    read = 0

    def llm() -> Iterator[bytes]:
        nonlocal read
        for piece in pieces:
            read += 1
            yield piece

    with grounding_emulator.client() as client:
        stream = client.check_grounding_stream(llm(), FACTS, concurrency=4)
        first = next(stream)
        read_at_first = read
        rest = list(stream)
    assert first.text == "Paris is the capital of France 0."
    assert read_at_first < len(pieces)
    assert len(rest) == 199


async def test_the_first_sentence_is_checked_before_the_last_token_is_read_async(
    grounding_emulator: Emulator,
) -> None:
    answer = " ".join(f"東京は日本の首都です{n}。" for n in range(200))
    read = 0

    async def llm() -> AsyncIterator[bytes]:
        nonlocal read
        for piece in tokens(answer, 5):
            read += 1
            yield piece

    async with grounding_emulator.async_client() as client:
        stream = client.check_grounding_stream(llm(), FACTS)
        first = await stream.__anext__()
        read_at_first = read
        rest = [check async for check in stream]
    assert first.text == "東京は日本の首都です0。"
    assert read_at_first < len(list(tokens(answer, 5)))
    assert len(rest) == 199


class GatedChecks:
    """A check that waits for `gate`: counts the checks in flight and the text read by then."""

    def __init__(self) -> None:
        self.gate = threading.Event()
        self.lock = threading.Condition()
        self.in_flight = self.most_in_flight = self.started = self.read = 0

    def check(self, text: str, facts: object, **options: object) -> CheckGroundingResult:
        with self.lock:
            self.in_flight += 1
            self.started += 1
            self.most_in_flight = max(self.most_in_flight, self.in_flight)
            self.lock.notify_all()
        try:
            assert self.gate.wait(WAIT)
            return CheckGroundingResult(text, 1.0, (), (), None)  # type: ignore[arg-type]
        finally:
            with self.lock:
                self.in_flight -= 1

    def sentences(self, count: int) -> Iterator[str]:
        """The text, one sentence a chunk, each read counted (and told to `wait_for`)."""
        for number in range(count):
            with self.lock:
                self.read += 1
                self.lock.notify_all()
            yield f"Sentence {number}. "

    def wait_for(self, condition: Any) -> None:
        with self.lock:
            assert self.lock.wait_for(condition, WAIT)


def sentences(count: int, read: list[int]) -> Iterator[str]:
    for number in range(count):
        read[0] += 1
        yield f"Sentence {number}. "


def test_at_most_concurrency_checks_are_in_flight_and_the_reader_waits() -> None:
    gated = GatedChecks()
    stream = GroundingStream(gated.check, gated.sentences(20), [], concurrency=2)
    got: list[str] = []
    reader = threading.Thread(target=lambda: got.extend(c.text for c in stream))
    reader.start()
    gated.wait_for(lambda: gated.started == 2)
    gated.wait_for(lambda: gated.read >= 4)
    assert gated.read == 4  # two in flight, the third sentence read and waiting, no more
    gated.gate.set()
    reader.join(WAIT)
    assert got == [f"Sentence {n}." for n in range(20)]
    assert gated.most_in_flight == 2


async def test_at_most_concurrency_checks_are_in_flight_and_the_reader_waits_async() -> None:
    gate, in_flight, most, read = asyncio.Event(), [0], [0], [0]

    async def check(text: str, facts: object, **options: object) -> CheckGroundingResult:
        in_flight[0] += 1
        most[0] = max(most[0], in_flight[0])
        await gate.wait()
        in_flight[0] -= 1
        return CheckGroundingResult(text, 1.0, (), (), None)  # type: ignore[arg-type]

    stream = AsyncGroundingStream(check, sentences(20, read), [], concurrency=3)
    first = asyncio.ensure_future(stream.__anext__())
    for _ in range(200):  # event-loop turns, not time: ample for a reader that runs ahead
        await asyncio.sleep(0)
    assert (in_flight[0], read[0]) == (3, 5)  # the fourth sentence read, waiting for a slot
    gate.set()
    checks = [(await asyncio.wait_for(first, WAIT)).text] + [c.text async for c in stream]
    assert checks == [f"Sentence {n}." for n in range(20)]
    assert most[0] == 3


def test_checks_come_in_the_texts_order_when_later_ones_finish_first() -> None:
    finished: list[str] = []
    first_may_finish = threading.Event()

    def check(text: str, facts: object, **options: object) -> CheckGroundingResult:
        if text == "Sentence 0.":
            assert first_may_finish.wait(WAIT)
        else:
            first_may_finish.set()
        finished.append(text)
        return CheckGroundingResult(text, 1.0, (), (), None)  # type: ignore[arg-type]

    texts = [c.text for c in GroundingStream(check, sentences(3, [0]), [], concurrency=3)]
    assert texts == ["Sentence 0.", "Sentence 1.", "Sentence 2."]
    assert finished[0] != "Sentence 0."


def test_closing_stops_the_reading_and_sends_no_more_checks() -> None:
    gated = GatedChecks()

    def check(text: str, facts: object, **options: object) -> CheckGroundingResult:
        if text == "Sentence 0.":
            return CheckGroundingResult(text, 1.0, (), (), None)  # type: ignore[arg-type]
        return gated.check(text, facts)

    stream = GroundingStream(check, gated.sentences(50), [], concurrency=2)
    assert next(stream).text == "Sentence 0."
    gated.wait_for(lambda: gated.started == 2)  # sentences 1 and 2, and 3 read, waiting
    gated.wait_for(lambda: gated.read >= 5)
    stream.close()
    gated.gate.set()
    assert list(stream) == []
    assert (gated.read, gated.started) == (5, 2)
    assert stream.summary is None


async def test_closing_cancels_the_checks_in_flight_async() -> None:
    cancelled, started, release_first = [], asyncio.Event(), asyncio.Event()

    async def check(text: str, facts: object, **options: object) -> CheckGroundingResult:
        try:
            if text != "Sentence 0.":
                started.set()
                await asyncio.Event().wait()  # never set: only cancelling ends it
            await release_first.wait()
            return CheckGroundingResult(text, 1.0, (), (), None)  # type: ignore[arg-type]
        except asyncio.CancelledError:
            cancelled.append(text)
            raise

    stream = AsyncGroundingStream(check, sentences(10, [0]), [], concurrency=3)
    release_first.set()
    assert (await stream.__anext__()).text == "Sentence 0."
    await asyncio.wait_for(started.wait(), WAIT)
    await stream.aclose()
    assert cancelled
    assert "Sentence 0." not in cancelled


def test_a_failed_check_is_raised_as_its_groundwire_error() -> None:
    def check(text: str, facts: object, **options: object) -> CheckGroundingResult:
        raise InvalidArgument("answer_candidate is too long")

    with pytest.raises(GroundwireError, match="too long"):
        list(GroundingStream(check, sentences(3, [0]), []))


def test_options_reach_each_check(grounding_emulator: Emulator) -> None:
    with grounding_emulator.client() as client:
        checks = list(
            client.check_grounding_stream(
                ["Paris is the capital of France. ", "It is big."],
                FACTS,
                enable_claim_level_score=True,
                sentences_per_check=2,
            )
        )
    assert len(checks) == 1
    assert checks[0].claims[0].score is not None


def test_a_4096_token_answer_is_grounded_as_it_arrives_within_its_bounds(
    grounding_emulator: Emulator,
) -> None:
    sentences = [f"Paris is the capital of France, fact {n} 🇫🇷." for n in range(500)]
    answer = " ".join(sentences)  # about 4,000 words and marks: the v1 limit's order
    pieces = list(tokens(answer, 3))
    ends = []  # the number of pieces to read before each sentence is complete (its next one)
    position = 0
    for sentence in sentences:
        position += len(sentence.encode()) + 1
        ends.append(min(position // 3 + 2, len(pieces)))
    lock, in_flight, most = threading.Lock(), [0], [0]
    read = [0]
    ahead: list[int] = []

    def llm() -> Iterator[bytes]:
        for piece in pieces:
            read[0] += 1
            yield piece

    with grounding_emulator.client() as client:

        def check(text: str, facts: object, **options: Any) -> CheckGroundingResult:
            with lock:
                in_flight[0] += 1
                most[0] = max(most[0], in_flight[0])
                ahead.append(read[0])
            try:
                return client.check_grounding(text, FACTS, **options)
            finally:
                with lock:
                    in_flight[0] -= 1

        stream = GroundingStream(check, llm(), FACTS, concurrency=3)
        first = next(stream)
        read_at_first = read[0]
        checks = [first, *stream]
    assert len(checks) == 500
    assert read_at_first < len(pieces)
    assert most[0] <= 3
    # when the k-th check starts, the text read reaches at most 3 sentences past it
    assert all(count <= ends[min(k + 3, 499)] for k, count in enumerate(ahead))
