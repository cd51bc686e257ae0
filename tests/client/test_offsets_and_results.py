"""Results carry offsets that slice Python strings, whatever transport or client produced them."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from groundwire_protos.google.cloud.aiplatform.v1.vertex_rag_service_pb2 import Fact
from groundwire_protos.google.cloud.discoveryengine.v1.check_grounding_pb2 import (
    CheckGroundingResponse,
)

from groundwire import AsyncGroundingClient, CheckGroundingResult, GroundingClient
from groundwire.contract import apis
from groundwire.contract.calls import TransportName
from groundwire.contract.lazy import LazySequence
from tests.support.canned import CannedServers
from tests.support.typed import typed

ANSWER = "東京は日本の首都です。👩‍👩‍👧 家族は三人。Café e\u0301clair est bon. Hi!"
SENTENCES = ["東京は日本の首都です。", "👩‍👩‍👧 家族は三人。", "Café e\u0301clair est bon.", "Hi!"]


def canned_check(method: apis.Method, request: Any) -> Any:
    """Answers CheckGrounding with one claim per sentence, at UTF-8 byte offsets."""
    response: Any = method.response_class()  # of the API version the client called
    answer = request.answer_candidate
    encoded = answer.encode()
    chunk = response.cited_chunks.add(chunk_text="Tokyo is Japan's capital.", source="0")
    chunk.source_metadata["author"] = "atlas"
    for sentence in SENTENCES:
        start = encoded.index(sentence.encode())
        claim = response.claims.add(
            start_pos=start, end_pos=start + len(sentence.encode()), claim_text=sentence
        )
        if sentence.startswith("東京"):
            claim.citation_indices.append(0)
            claim.grounding_check_required = True
        elif sentence == "Hi!":
            claim.grounding_check_required = False
    response.support_score = 0.25
    return response


def summary(result: CheckGroundingResult) -> list[tuple[object, ...]]:
    return [
        (
            c.text,
            c.start,
            c.end,
            c.start_byte,
            c.end_byte,
            c.start_utf16,
            c.end_utf16,
            [ch.text for ch in c.citations],
            c.grounding_check_required,
        )
        for c in result.claims
    ]


@pytest.mark.parametrize("transport", ["grpc", "rest"])
def test_claim_offsets_slice_the_answer_as_a_python_string(
    servers: CannedServers, transport: TransportName
) -> None:
    servers.behaviour = canned_check
    with GroundingClient(
        "p", transport=transport, endpoint=servers.grpc_address, rest_endpoint=servers.http_url
    ) as client:
        result = client.check_grounding(ANSWER, ["Tokyo is Japan's capital."])
    assert [ANSWER[c.start : c.end] for c in result.claims] == SENTENCES
    assert [c.text for c in result.claims] == SENTENCES
    family = result.claims[1]
    assert family.end_utf16 - family.start_utf16 == len(SENTENCES[1].encode("utf-16-le")) // 2
    assert result.claims[0].citations[0].source_metadata["author"] == "atlas"
    assert result.claims[0].citations[0].fact_index == 0
    assert result.claims[3].grounding_check_required is False
    assert result.support_score == pytest.approx(0.25)
    assert typed(CheckGroundingResponse, result.raw).claims[0].claim_text == SENTENCES[0]


def test_grpc_and_rest_and_async_give_identical_results(servers: CannedServers) -> None:
    servers.behaviour = canned_check
    seen = []
    transports: tuple[TransportName, ...] = ("grpc", "rest")
    for transport in transports:
        with GroundingClient(
            "p", transport=transport, endpoint=servers.grpc_address, rest_endpoint=servers.http_url
        ) as client:
            seen.append(summary(client.check_grounding(ANSWER, ["fact"])))

        async def run(transport: TransportName = transport) -> list[tuple[object, ...]]:
            async with AsyncGroundingClient(
                "p",
                transport=transport,
                endpoint=servers.grpc_address,
                rest_endpoint=servers.http_url,
            ) as client:
                return summary(await client.check_grounding(ANSWER, ["fact"]))

        seen.append(asyncio.run(run()))
    assert all(s == seen[0] for s in seen)
    assert len(seen) == 4


def test_omitted_positions_are_located_in_order(servers: CannedServers) -> None:
    def without_positions(method: apis.Method, request: Any) -> Any:
        response: Any = method.response_class()
        for text in ("ab.", "ab."):
            response.claims.add(claim_text=text)
        return response

    servers.behaviour = without_positions
    with GroundingClient("p", transport="grpc", endpoint=servers.grpc_address) as client:
        result = client.check_grounding("ab. ab.", ["x"])
    assert [(c.start, c.end, c.located) for c in result.claims] == [(0, 3, True), (4, 7, True)]


def test_an_offset_inside_a_character_is_snapped_and_flagged(servers: CannedServers) -> None:
    def mid_character(method: apis.Method, request: Any) -> Any:
        response: Any = method.response_class()
        response.claims.add(start_pos=1, end_pos=6, claim_text="東京")  # 1 is inside 東
        return response

    servers.behaviour = mid_character
    with GroundingClient("p", transport="grpc", endpoint=servers.grpc_address) as client:
        claim = client.check_grounding("東京です", ["x"]).claims[0]
    assert (claim.start, claim.end, claim.offsets_adjusted) == (0, 2, True)
    assert claim.start_byte == 1  # what the API sent is kept


def test_corroboration_claims_use_utf8_byte_offsets_by_default(servers: CannedServers) -> None:
    content = "Café is French. 東京 is big."

    def corroborate(method: apis.Method, request: Any) -> Any:
        response: Any = method.response_class(corroboration_score=0.5)
        start = content.encode().index("東京".encode())
        response.claims.add(
            start_index=start, end_index=len(content.encode()), fact_indexes=[1], score=0.9
        )
        return response

    servers.behaviour = corroborate
    with GroundingClient(
        "p", "us-central1", transport="rest", rest_endpoint=servers.http_url
    ) as client:
        result = client.corroborate_content(content, ["Cafés are French.", "Tokyo is big."])
    claim = result.claims[0]
    assert claim.text == "東京 is big."
    assert typed(Fact, claim.facts[0]).summary == "Tokyo is big."
    assert result.corroboration_score == pytest.approx(0.5)


def test_generate_results_locate_support_claims_in_the_text(servers: CannedServers) -> None:
    def generate(method: apis.Method, request: Any) -> Any:
        response: Any = method.response_class()
        candidate = response.candidates.add(index=0, grounding_score=0.8)
        candidate.content.role = "model"
        candidate.content.parts.add(text="Kyoto was the capital. 京都は古都です。")
        metadata = candidate.grounding_metadata
        metadata.support_chunks.add(chunk_text="Kyoto was capital until 1869.", source="0")
        metadata.grounding_support.add(
            claim_text="京都は古都です。", support_chunk_indices=[0], support_score=0.7
        )
        return response

    servers.behaviour = generate
    with GroundingClient("p", transport="grpc", endpoint=servers.grpc_address) as client:
        result = client.generate_grounded_content("Tell me about Kyoto", facts=["Kyoto ..."])
    support = result.grounding_supports[0]
    assert result.text[support.start : support.end] == "京都は古都です。"
    assert support.chunks[0].text.startswith("Kyoto was capital")
    assert result.grounding_score == pytest.approx(0.8)


@pytest.mark.parametrize("transport", ["grpc", "rest"])
def test_a_result_reads_its_claims_only_when_they_are_read(
    servers: CannedServers, transport: TransportName
) -> None:
    servers.behaviour = canned_check
    with GroundingClient(
        "p", transport=transport, endpoint=servers.grpc_address, rest_endpoint=servers.http_url
    ) as client:
        result = client.check_grounding(ANSWER, ["Tokyo is Japan's capital."])
    claims = result.claims
    assert isinstance(claims, LazySequence)
    assert len(claims) == len(SENTENCES)
    assert not claims.built
    assert claims[0].text == SENTENCES[0]
    assert claims.built
