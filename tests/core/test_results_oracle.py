"""Lazy results hold exactly what the eager builders made, for any text and any positions sent."""

from __future__ import annotations

from typing import Any

from groundwire_protos.google.cloud.aiplatform.v1.vertex_rag_service_pb2 import Fact
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from groundwire.contract.apis import method
from groundwire.contract.chunks import Chunk
from groundwire.contract.offsets import OffsetUnit
from groundwire.contract.results import (
    Claim,
    CorroboratedClaim,
    GroundingSupport,
    check_grounding_result,
    corroboration_result,
    generate_result,
)
from tests.core.eager_results import (
    eager_check_claims,
    eager_chunks,
    eager_corroborated_claims,
    eager_supports,
)

ORACLE = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
PIECES = st.one_of(
    st.characters(exclude_categories=["Cs"]),
    st.sampled_from(
        ["東京", "👩\u200d👩\u200d👧", "e\u0301", "😀", "é", " ", "ß", "abc", "\U0010ffff"]
    ),
)
TEXTS = st.lists(PIECES, max_size=30).map("".join) | st.text(alphabet="ab .", max_size=12)
SCORES = st.none() | st.floats(0, 1, width=32)
INDICES = st.lists(st.integers(-2, 4), max_size=3)


def chunk_fields(chunk: Chunk) -> tuple[object, ...]:
    return (
        chunk.text,
        chunk.source,
        chunk.index,
        dict(chunk.source_metadata),
        chunk.uri,
        chunk.title,
        chunk.domain,
    )


def claim_fields(claim: Claim) -> tuple[object, ...]:
    values = tuple(getattr(claim, name) for name in Claim._fields)
    return (*values[:7], tuple(chunk_fields(c) for c in claim.citations), *values[8:])


def support_fields(support: GroundingSupport) -> tuple[object, ...]:
    values = tuple(getattr(support, name) for name in GroundingSupport._fields)
    return (*values[:5], tuple(chunk_fields(c) for c in support.chunks), *values[6:])


def boundaries(text: str, unit: OffsetUnit) -> list[int]:
    """Where each character starts in `unit`, and the end."""
    measure = {
        "utf8": lambda piece: len(piece.encode()),
        "codepoint": len,
        "utf16": lambda piece: len(piece.encode("utf-16-le")) // 2,
    }[unit]
    return [measure(text[:index]) for index in range(len(text) + 1)]


@st.composite
def positions(draw: st.DrawFn, text: str, unit: OffsetUnit = "utf8") -> int | None:
    """A position a server might send: mostly a boundary, else just off one, anything, or none."""
    starts = boundaries(text, unit)
    on_boundary = st.sampled_from(starts)
    anything = st.integers(-2, starts[-1] + 2)
    return draw(st.none() | on_boundary | on_boundary.map(lambda b: b + 1) | anything)


@st.composite
def claim_texts(draw: st.DrawFn, text: str) -> str:
    start = draw(st.integers(0, len(text)))
    return draw(st.just(text[start : draw(st.integers(start, len(text)))]) | TEXTS)


def add_chunks(raw_chunks: Any, draw: st.DrawFn) -> None:
    for source in draw(st.lists(st.sampled_from(["0", "1", "web"]), max_size=3)):
        chunk = raw_chunks.add(chunk_text=draw(TEXTS), source=source, index=draw(st.integers(0, 3)))
        chunk.source_metadata.update(
            draw(st.dictionaries(st.sampled_from("ab"), TEXTS, max_size=2))
        )
        if "uri" in chunk.DESCRIPTOR.fields_by_name:
            chunk.uri = draw(st.sampled_from(["", "https://example.com/a"]))


@st.composite
def check_responses(draw: st.DrawFn) -> tuple[str, Any]:
    answer = draw(TEXTS)
    version = draw(st.sampled_from(["v1", "v1beta", "v1alpha"]))
    response: Any = method("discoveryengine", version, "CheckGrounding").response_class()
    add_chunks(response.cited_chunks, draw)
    for _ in range(draw(st.integers(0, 6))):
        claim = response.claims.add(claim_text=draw(claim_texts(answer)))
        claim.citation_indices.extend(draw(INDICES))
        for name, value in [
            ("start_pos", draw(positions(answer))),
            ("end_pos", draw(positions(answer))),
            ("grounding_check_required", draw(st.none() | st.booleans())),
            ("score", draw(SCORES) if version != "v1alpha" else None),
        ]:
            if value is not None:
                setattr(claim, name, value)
    if draw(st.booleans()):
        response.support_score = draw(st.floats(0, 1, width=32))
    return answer, response


@ORACLE
@given(check_responses())
def test_check_grounding_claims_and_chunks_are_what_the_eager_builder_made(
    case: tuple[str, Any],
) -> None:
    answer, response = case
    result = check_grounding_result(answer, response)
    assert len(result.claims) == len(response.claims)
    assert [claim_fields(c) for c in result.claims] == eager_check_claims(answer, response)
    assert [chunk_fields(c) for c in result.cited_chunks] == eager_chunks(response.cited_chunks)
    expected_score = response.support_score if response.HasField("support_score") else None
    assert result.support_score == expected_score


@st.composite
def corroborate_responses(draw: st.DrawFn) -> tuple[str, list[Fact], Any, OffsetUnit]:
    content = draw(TEXTS)
    unit: OffsetUnit = draw(st.sampled_from(["utf8", "codepoint", "utf16"]))
    facts = [Fact(summary=draw(TEXTS)) for _ in range(draw(st.integers(0, 3)))]
    response: Any = method("aiplatform", "v1", "CorroborateContent").response_class()
    for _ in range(draw(st.integers(0, 5))):
        claim = response.claims.add(fact_indexes=draw(INDICES))
        for name, value in [
            ("start_index", draw(positions(content, unit))),
            ("end_index", draw(positions(content, unit))),
            ("score", draw(SCORES)),
        ]:
            if value is not None:
                setattr(claim, name, value)
    return content, facts, response, unit


@ORACLE
@given(corroborate_responses())
def test_corroborated_claims_are_what_the_eager_builder_made(
    case: tuple[str, list[Fact], Any, OffsetUnit],
) -> None:
    content, facts, response, unit = case
    claims = corroboration_result(content, facts, response, unit).claims
    lazy = [tuple(getattr(c, name) for name in CorroboratedClaim._fields) for c in claims]
    assert lazy == eager_corroborated_claims(content, facts, response, unit)


@st.composite
def generate_responses(draw: st.DrawFn) -> Any:
    version = draw(st.sampled_from(["v1", "v1alpha"]))
    response: Any = method("discoveryengine", version, "GenerateGroundedContent").response_class()
    for index in range(draw(st.integers(0, 2))):
        candidate = response.candidates.add(index=index)
        parts = draw(st.lists(TEXTS, max_size=3))
        for part in parts:
            candidate.content.parts.add(text=part)
        metadata = candidate.grounding_metadata
        add_chunks(metadata.support_chunks, draw)
        for _ in range(draw(st.integers(0, 4))):
            support = metadata.grounding_support.add(claim_text=draw(claim_texts("".join(parts))))
            support.support_chunk_indices.extend(draw(INDICES))
            if (score := draw(SCORES)) is not None:
                support.support_score = score
        metadata.web_search_queries.extend(draw(st.lists(TEXTS, max_size=2)))
    return response


@ORACLE
@given(generate_responses())
def test_generated_candidates_and_supports_are_what_the_eager_builder_made(response: Any) -> None:
    result = generate_result(response)
    assert len(result.candidates) == len(response.candidates)
    for candidate, raw in zip(result.candidates, response.candidates, strict=True):
        assert candidate.text == "".join(part.text for part in raw.content.parts)
        assert [support_fields(s) for s in candidate.grounding_supports] == eager_supports(raw)
        metadata = raw.grounding_metadata
        assert [chunk_fields(c) for c in candidate.support_chunks] == eager_chunks(
            metadata.support_chunks
        )
        assert tuple(candidate.web_search_queries) == tuple(metadata.web_search_queries)
    if result.candidates:
        first = result.candidates[0]
        assert (result.text, result.grounding_supports) == (first.text, first.grounding_supports)
    else:
        assert (result.text, result.grounding_score, result.grounding_supports) == ("", None, ())
