"""Checking past the API's limits with `split=True`: split, sent over each transport, merged."""

from __future__ import annotations

from typing import Any

import pytest

from groundwire.contract.errors import InvalidArgument
from groundwire.emulator import Emulator
from groundwire.features.split import SplitCheckResult, SplitCorroborationResult

FACTS = ["東京は日本の首都です。", "Paris is the capital of France."]
FILLER = [f"Filler fact number {i} 🐙." for i in range(398)]
SENTENCES = "東京は日本の首都です。Paris is the capital of France 🇫🇷. The moon is made of cheese! "


def assert_claims_slice(answer: str, result: SplitCheckResult) -> None:
    encoded, utf16 = answer.encode(), answer.encode("utf-16-le")
    assert result.claims
    for claim in result.claims:
        assert answer[claim.start : claim.end] == claim.text
        assert encoded[claim.start_byte : claim.end_byte].decode() == claim.text
        assert utf16[2 * claim.start_utf16 : 2 * claim.end_utf16].decode("utf-16-le") == claim.text


def assert_cites_callers_facts(result: SplitCheckResult, facts: list[str]) -> None:
    cited = [claim for claim in result.claims if claim.citations]
    assert cited
    for claim in cited:
        for index, chunk in zip(claim.citation_indices, claim.citations, strict=True):
            assert result.cited_chunks[index] is chunk
            assert chunk.text in facts[int(chunk.source)]


@pytest.mark.parametrize("transport", ["grpc", "rest"])
def test_an_answer_past_the_token_limit_is_split_at_sentences_and_merged(
    grounding_emulator: Emulator, transport: str
) -> None:
    answer = SENTENCES * 200  # about 5,000 tokens: two parts
    facts = FACTS + FILLER  # 400 facts: two groups
    with grounding_emulator.client(transport=transport) as client:
        with pytest.raises(InvalidArgument, match="4,096 tokens"):
            client.check_grounding(answer, facts[:200])
        result = client.check_grounding(answer, facts, split=True)
    assert isinstance(result, SplitCheckResult)
    assert result.calls == 4
    assert len(result.claims) == 600
    assert_claims_slice(answer, result)
    assert_cites_callers_facts(result, facts)
    assert [claim.score for claim in result.claims[:3]] == [1.0, 1.0, 0.0]
    assert {chunk.source for chunk in result.cited_chunks} == {"0", "1"}
    facts_characters = sum(map(len, facts))
    parts = sum(len(part.answer_candidate) for part in result.parts)
    assert result.billed_characters == parts + 2 * facts_characters  # each part, both groups
    assert result.support_score is not None


@pytest.mark.parametrize("transport", ["grpc", "rest"])
async def test_an_answer_past_the_limit_is_split_and_merged_async(
    grounding_emulator: Emulator, transport: str
) -> None:
    answer = SENTENCES * 200
    async with grounding_emulator.async_client(transport=transport) as client:
        with pytest.raises(InvalidArgument, match="4,096 tokens"):
            await client.check_grounding(answer, FACTS)
        result = await client.check_grounding(answer, FACTS, split=True)
    assert isinstance(result, SplitCheckResult)
    assert result.calls == 2
    assert len(result.claims) == 600
    assert_claims_slice(answer, result)
    assert_cites_callers_facts(result, FACTS)


def test_a_long_fact_is_cut_and_its_cited_piece_named(grounding_emulator: Emulator) -> None:
    long_fact = ("Filler paragraph about nothing 🐙. " * 200 + "\n\n") * 3 + FACTS[1]
    with grounding_emulator.client() as client:
        with pytest.raises(InvalidArgument, match="10,000 are allowed"):
            client.check_grounding(SENTENCES, [FACTS[0], long_fact])
        result = client.check_grounding(SENTENCES, [FACTS[0], long_fact], split=True)
    assert isinstance(result, SplitCheckResult)
    assert result.calls == 1
    paris = result.claims[1]
    assert paris.text == "Paris is the capital of France 🇫🇷."
    assert any(c.source == "1" and c.text.endswith(FACTS[1]) for c in paris.citations)
    assert all(len(chunk.text) <= 10_000 for chunk in result.cited_chunks)


def test_a_split_needing_more_than_max_calls_is_refused_before_sending(
    grounding_emulator: Emulator,
) -> None:
    sent: list[Any] = []

    class Recorder:
        def start(self, call: Any) -> None:
            sent.append(call)

    refused = pytest.raises(InvalidArgument, match="needs 16 calls, more than max_calls=4")
    with grounding_emulator.client(interceptors=[Recorder()]) as client, refused:
        client.check_grounding(SENTENCES * 600, FACTS + FILLER * 2, split=True, max_calls=4)
    assert sent == []


@pytest.mark.parametrize("transport", ["grpc", "rest"])
def test_v1alpha_answers_are_split_at_1024_characters(
    grounding_emulator: Emulator, transport: str
) -> None:
    answer = SENTENCES * 30
    with grounding_emulator.client(transport=transport, api_version="v1alpha") as client:
        with pytest.raises(InvalidArgument, match="1,024 are allowed in v1alpha"):
            client.check_grounding(answer, FACTS)
        result = client.check_grounding(answer, FACTS, split=True)
    assert isinstance(result, SplitCheckResult)
    assert result.calls == 3
    assert all(len(part.answer_candidate) <= 1_024 for part in result.parts)
    assert_claims_slice(answer, result)


@pytest.mark.parametrize("transport", ["grpc", "rest"])
def test_a_40000_token_answer_against_1000_facts_splits_checks_and_merges(
    grounding_emulator: Emulator, transport: str
) -> None:
    answer = SENTENCES * 1_600  # 40,000 tokens and more
    facts = FACTS + [f"Filler fact number {i} 🐙." for i in range(998)]
    with grounding_emulator.client(transport=transport) as client:
        result = client.check_grounding(answer, facts, split=True, max_calls=100)
    assert isinstance(result, SplitCheckResult)
    assert result.calls == len(result.parts) == 10 * 5
    assert len(result.claims) == 4_800
    assert_claims_slice(answer, result)
    assert_cites_callers_facts(result, facts)


@pytest.mark.parametrize("transport", ["grpc", "rest"])
def test_corroborate_content_splits_fact_lists_and_names_the_callers_facts(
    grounding_emulator: Emulator, transport: str
) -> None:
    facts = FILLER + FACTS  # the supporting facts land in the second group
    content = SENTENCES * 3
    with grounding_emulator.client(transport=transport) as client:
        with pytest.raises(InvalidArgument, match="at most 200 are allowed"):
            client.corroborate_content(content, facts)
        result = client.corroborate_content(content, facts, split=True)
    assert isinstance(result, SplitCorroborationResult)
    assert result.calls == 2
    encoded = content.encode()
    for claim in result.claims:
        assert content[claim.start : claim.end] == claim.text
        assert encoded[claim.start_index : claim.end_index].decode() == claim.text
    cited = {index for claim in result.claims for index in claim.fact_indexes}
    assert cited
    assert cited <= {398, 399}


async def test_corroborate_content_splits_content_past_4096_tokens_async(
    grounding_emulator: Emulator,
) -> None:
    content = SENTENCES * 200
    async with grounding_emulator.async_client() as client:
        result = await client.corroborate_content(content, FACTS, split=True)
    assert isinstance(result, SplitCorroborationResult)
    assert result.calls == 2
    assert result.claims
    assert all(content[c.start : c.end] == c.text for c in result.claims)
