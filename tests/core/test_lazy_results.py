"""Results read their response only as far as the caller reads them, and stay immutable values."""

from __future__ import annotations

import copy
import pickle
import sys
import threading
from collections.abc import Sequence
from dataclasses import FrozenInstanceError
from typing import Any, TypeVar

import pytest
from groundwire_protos.google.cloud.discoveryengine.v1.check_grounding_pb2 import (
    CheckGroundingResponse,
)

from groundwire.contract import offsets
from groundwire.contract.apis import method
from groundwire.contract.lazy import LazySequence
from groundwire.contract.results import (
    Candidate,
    CheckGroundingResult,
    Chunk,
    Claim,
    CorroboratedClaim,
    GroundingSupport,
    check_grounding_result,
    corroboration_result,
    generate_result,
)
from tests.core.eager_results import eager_check_claims

T = TypeVar("T")

SENTENCES = ["東京は日本の首都です。", "👩‍👩‍👧 家族は三人。", "Hi!"]
ANSWER = " ".join(SENTENCES)


class CountingStr(str):
    """An answer that counts how often it is encoded (converting offsets encodes it once)."""

    encodings = 0

    def encode(self, encoding: str = "utf-8", errors: str = "strict") -> bytes:
        CountingStr.encodings += 1
        return super().encode(encoding, errors)


@pytest.fixture
def counting_answer() -> CountingStr:
    CountingStr.encodings = 0
    return CountingStr(ANSWER)


def response() -> CheckGroundingResponse:
    """One claim per sentence at UTF-8 byte offsets, the first citing a chunk with metadata."""
    raw = CheckGroundingResponse(support_score=0.75)
    chunk = raw.cited_chunks.add(chunk_text="Tokyo is Japan's capital.", source="0")
    chunk.source_metadata["author"] = "atlas"
    encoded = ANSWER.encode()
    for sentence in SENTENCES:
        start = encoded.index(sentence.encode())
        claim = raw.claims.add(
            start_pos=start, end_pos=start + len(sentence.encode()), claim_text=sentence
        )
        if sentence.startswith("東京"):
            claim.citation_indices.append(0)
            claim.score = 0.9
    return raw


def lazy(items: Sequence[T]) -> LazySequence[T]:
    assert isinstance(items, LazySequence)
    return items


def fields(claim: Claim) -> tuple[object, ...]:
    citations = tuple(
        (c.text, c.source, c.index, dict(c.source_metadata), c.uri, c.title, c.domain)
        for c in claim.citations
    )
    return (
        claim.text,
        claim.start,
        claim.end,
        claim.start_byte,
        claim.end_byte,
        claim.start_utf16,
        claim.end_utf16,
        citations,
        claim.citation_indices,
        claim.score,
        claim.grounding_check_required,
        claim.offsets_adjusted,
        claim.located,
    )


def test_the_score_and_the_number_of_claims_are_read_without_building_a_claim(
    counting_answer: CountingStr,
) -> None:
    result = check_grounding_result(counting_answer, response())
    assert result.support_score == pytest.approx(0.75)
    assert len(result.claims) == 3
    assert result.claims
    assert len(result.cited_chunks) == 1
    assert not lazy(result.claims).built
    assert not lazy(result.cited_chunks).built
    assert CountingStr.encodings == 0  # no offset was converted


def test_the_first_read_of_a_claim_builds_every_claim_once(counting_answer: CountingStr) -> None:
    result = check_grounding_result(counting_answer, response())
    first = result.claims[0]
    assert lazy(result.claims).built
    assert lazy(result.cited_chunks).built  # the claims cite them
    assert CountingStr.encodings == 1  # all offsets in one pass
    assert next(iter(result.claims)) is first
    assert result.claims[0].citations[0] is result.cited_chunks[0]
    assert [c.text for c in result.claims] == SENTENCES
    assert CountingStr.encodings == 1


def test_utf16_offsets_are_converted_at_their_first_read_for_every_claim_at_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    conversions = []
    convert = offsets._utf16_offsets

    def counted(text: str, indices: Any) -> dict[int, int]:
        conversions.append(text)
        return convert(text, indices)

    monkeypatch.setattr(offsets, "_utf16_offsets", counted)
    claims = check_grounding_result(ANSWER, response()).claims
    assert (claims[0].start, claims[2].end) == (0, len(ANSWER))
    assert conversions == []
    utf16 = [(c.start_utf16, c.end_utf16) for c in claims]
    assert conversions == [ANSWER]
    family = SENTENCES[1]
    assert utf16[1][1] - utf16[1][0] == len(family.encode("utf-16-le")) // 2


def test_a_lazy_result_has_the_values_the_eager_one_had() -> None:
    raw = response()
    result = check_grounding_result(ANSWER, raw)
    assert [fields(c) for c in result.claims] == eager_check_claims(ANSWER, raw)
    assert result.claims[0].supported
    assert result.unsupported_claims == (result.claims[1], result.claims[2])
    assert result.raw is raw


def test_results_refuse_assignment_to_any_field_read_lazily_or_not() -> None:
    result = check_grounding_result(ANSWER, response())
    claim, chunk = result.claims[0], result.cited_chunks[0]
    assignments: list[tuple[object, str]] = [
        (result, "support_score"),
        (result, "claims"),
        (claim, "start"),
        (claim, "start_utf16"),
        (claim, "score"),
        (claim, "brand_new"),
        (chunk, "text"),
        (chunk, "source_metadata"),
    ]
    for record, name in assignments:
        with pytest.raises(FrozenInstanceError):
            setattr(record, name, None)
        with pytest.raises(FrozenInstanceError):
            delattr(record, name)
    with pytest.raises(TypeError):
        result.claims[0] = claim  # type: ignore[index]
    with pytest.raises(TypeError):
        chunk.source_metadata["author"] = "someone"  # type: ignore[index]
    assert chunk.source_metadata == {"author": "atlas"}


def test_every_result_type_refuses_assignment() -> None:
    corroborated = corroboration_result(
        "Paris", [], method("aiplatform", "v1", "CorroborateContent").response_class()
    )
    generated = generate_result(
        method("discoveryengine", "v1", "GenerateGroundedContent").response_class()
    )
    for record, name in [(corroborated, "claims"), (generated, "text")]:
        with pytest.raises(FrozenInstanceError):
            setattr(record, name, None)


def test_a_lazy_sequence_equals_the_tuple_of_its_items_and_shows_itself_as_one() -> None:
    result = check_grounding_result(ANSWER, response())
    items = tuple(result.claims)
    assert result.claims == items
    assert items == result.claims
    a_list: object = list(items)
    assert result.claims != a_list
    assert repr(result.claims) == repr(items)
    assert result.claims[1:] == items[1:]
    assert result.claims.index(items[2]) == 2
    assert items[0] in result.claims


def test_results_built_twice_from_one_response_are_equal_and_equal_a_hand_built_one() -> None:
    raw = response()
    lazy, again = check_grounding_result(ANSWER, raw), check_grounding_result(ANSWER, raw)
    assert lazy == again
    by_hand = CheckGroundingResult(
        ANSWER, lazy.support_score, tuple(lazy.claims), tuple(lazy.cited_chunks), raw
    )
    assert by_hand == lazy
    assert lazy != check_grounding_result(ANSWER + " ", raw)


def test_a_hand_built_claim_keeps_what_it_was_given_and_shows_it_as_a_dataclass_would() -> None:
    chunk = Chunk("fact", "0", source_metadata={"a": "b"}, uri="https://example.com")
    claim = Claim(
        text="ab",
        start=0,
        end=2,
        start_byte=0,
        end_byte=2,
        start_utf16=0,
        end_utf16=2,
        citations=[chunk],
        citation_indices=[0],
        score=0.5,
        grounding_check_required=None,
    )
    assert (claim.start_utf16, claim.end_utf16, claim.score) == (0, 2, 0.5)
    assert claim.grounding_check_required is None
    assert claim.citations == (chunk,)
    assert (chunk.uri, chunk.title, chunk.fact_index) == ("https://example.com", "", 0)
    assert repr(claim) == (
        "Claim(text='ab', start=0, end=2, start_byte=0, end_byte=2, start_utf16=0, "
        f"end_utf16=2, citations=({chunk!r},), citation_indices=(0,), score=0.5, "
        "grounding_check_required=None, offsets_adjusted=False, located=False)"
    )


def test_hand_built_supports_candidates_and_corroborated_claims_keep_their_values() -> None:
    support = GroundingSupport("a", 0, 1, 0, 1, [], [], 0.25, located=True)
    candidate = Candidate(0, "a", 0.5, [], [support], ["query"])
    corroborated = CorroboratedClaim("a", 0, 1, 0, 1, 0, 1, [0], [], 0.75)
    assert (support.score, support.start_utf16, support.located) == (0.25, 0, True)
    assert candidate.grounding_supports == (support,)
    assert candidate.web_search_queries == ("query",)
    assert (corroborated.score, corroborated.end_utf16, corroborated.offsets_adjusted) == (
        0.75,
        1,
        False,
    )


def test_a_result_survives_pickling_and_copying_with_equal_values() -> None:
    result = check_grounding_result(ANSWER, response())
    for twin in (pickle.loads(pickle.dumps(result)), copy.deepcopy(result), copy.copy(result)):
        assert twin == result
        assert [fields(c) for c in twin.claims] == [fields(c) for c in result.claims]


def test_threads_reading_an_unbuilt_result_at_once_all_get_the_same_claims() -> None:
    raw = response()
    expected = eager_check_claims(ANSWER, raw)
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # switch threads as often as possible, to provoke the race
    try:
        for _round in range(30):
            result = check_grounding_result(ANSWER, raw)
            start = threading.Barrier(4, timeout=10)
            seen: list[list[tuple[object, ...]]] = []

            def read(
                result: CheckGroundingResult = result,
                start: Any = start,
                seen: list[list[tuple[object, ...]]] = seen,
            ) -> None:
                start.wait()
                seen.append([fields(claim) for claim in result.claims])

            threads = [threading.Thread(target=read) for _ in range(4)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join(timeout=10)
            assert not any(thread.is_alive() for thread in threads)
            assert seen == [expected] * 4
            assert [fields(claim) for claim in result.claims] == expected
    finally:
        sys.setswitchinterval(interval)
