"""The emulated methods as pure functions: the same answers whichever protocol asks."""

from __future__ import annotations

from typing import Any

import pytest
from google.rpc.error_details_pb2 import BadRequest, PreconditionFailure

from groundwire.contract.apis import method
from groundwire.contract.errors import FailedPrecondition, InvalidArgument, NotFound, Unimplemented
from groundwire.emulator import service
from tests.emulator.support import (
    CHECK,
    CORROBORATE,
    GENERATE,
    GROUNDING_CONFIG,
    PARIS,
    PROJECT_LOCATION,
    QUESTION,
    STREAM,
    check_request,
)


def violated_fields(error: InvalidArgument) -> list[str]:
    detail = error.detail(BadRequest)
    assert detail is not None
    return [violation.field for violation in detail.field_violations]


def generate_request(rpc: Any = GENERATE, facts: tuple[str, ...] = (PARIS,), **fields: Any) -> Any:
    request = rpc.request_class(location=PROJECT_LOCATION, **fields)
    request.contents.add(role="user", parts=[{"text": QUESTION}])
    if facts:
        source = request.grounding_spec.grounding_sources.add().inline_source
        for text in facts:
            source.grounding_facts.add(fact_text=text)
    return request


def test_a_grounded_claim_cites_its_fact_and_an_ungrounded_one_cites_nothing() -> None:
    answer = "Paris is the capital of France. The moon is made of cheese."
    response: Any = service.handle_unary(
        CHECK, check_request(answer, ("Bananas are yellow.", PARIS))
    )
    grounded, ungrounded = response.claims
    assert grounded.claim_text == "Paris is the capital of France."
    assert [response.cited_chunks[i].source for i in grounded.citation_indices] == ["1"]
    assert list(ungrounded.citation_indices) == []
    assert 0 < response.support_score < 1


def test_claim_offsets_are_utf8_bytes_of_the_answer() -> None:
    answer = "Café au lait is coffee with milk. 東京は日本の首都です。"
    facts = ("Café au lait is coffee with hot milk.", "東京は日本の首都です。")
    response: Any = service.handle_unary(CHECK, check_request(answer, facts))
    encoded = answer.encode()
    for claim in response.claims:
        assert encoded[claim.start_pos : claim.end_pos].decode() == claim.claim_text
    assert response.claims[1].start_pos == len("Café au lait is coffee with milk. ".encode())


def test_identical_citations_share_one_cited_chunk_with_the_facts_attributes() -> None:
    answer = "Paris is the capital of France. Paris is the largest city of France."
    request: Any = check_request(answer, ())
    request.facts.add(fact_text=PARIS, attributes={"author": "atlas"})
    response: Any = service.handle_unary(CHECK, request)
    assert len(response.cited_chunks) == 1
    assert [list(claim.citation_indices) for claim in response.claims] == [[0], [0]]
    assert dict(response.cited_chunks[0].source_metadata) == {"author": "atlas"}
    assert [fact.chunk_text for fact in response.cited_facts] == [PARIS]


def test_claim_scores_appear_only_when_asked_for() -> None:
    plain: Any = service.handle_unary(CHECK, check_request())
    scored: Any = service.handle_unary(
        CHECK, check_request(grounding_spec={"enable_claim_level_score": True})
    )
    assert not plain.claims[0].HasField("score")
    assert scored.claims[0].score == pytest.approx(1.0)


def test_v1alpha_has_no_cited_facts_and_a_character_limit_on_the_answer() -> None:
    alpha = method("discoveryengine", "v1alpha", "CheckGrounding")
    request: Any = alpha.request_class.FromString(check_request().SerializeToString())
    response: Any = service.handle_unary(alpha, request)
    assert "cited_facts" not in response.DESCRIPTOR.fields_by_name
    assert response.claims[0].citation_indices == [0]
    request.answer_candidate = "é" * 1_025
    with pytest.raises(InvalidArgument) as raised:
        service.handle_unary(alpha, request)
    assert violated_fields(raised.value) == ["answer_candidate"]


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"facts": ("fact",) * 201}, "facts"),
        ({"facts": ("x" * 10_001,)}, "facts[0].fact_text"),
        ({"grounding_spec": {"citation_threshold": 1.5}}, "grounding_spec.citation_threshold"),
        ({"user_labels": {"Team": "x"}}, "user_labels"),
    ],
)
def test_documented_limits_fail_with_the_field_named(fields: dict[str, Any], field: str) -> None:
    with pytest.raises(InvalidArgument) as raised:
        service.handle_unary(CHECK, check_request(**fields))
    assert violated_fields(raised.value) == [field]


def test_a_malformed_grounding_config_is_an_invalid_argument_naming_the_field() -> None:
    with pytest.raises(InvalidArgument) as raised:
        service.handle_unary(CHECK, check_request(grounding_config="default_grounding_config"))
    assert violated_fields(raised.value) == ["grounding_config"]


def test_only_the_default_grounding_config_exists() -> None:
    other = GROUNDING_CONFIG.replace("default_grounding_config", "mine")
    with pytest.raises(NotFound):
        service.handle_unary(CHECK, check_request(grounding_config=other))


def test_corroborate_reports_supported_claims_in_utf8_bytes_with_fact_indexes() -> None:
    content = "Ça va. Paris is the capital of France. The moon is made of cheese."
    request: Any = CORROBORATE.request_class(
        parent=PROJECT_LOCATION,
        content={"parts": [{"text": content}]},
        facts=[{"summary": "Bananas are yellow."}, {"chunk": {"text": PARIS}, "title": "Paris"}],
    )
    response: Any = service.handle_unary(CORROBORATE, request)
    (claim,) = response.claims
    assert content.encode()[claim.start_index : claim.end_index].decode() == (
        "Paris is the capital of France."
    )
    assert list(claim.fact_indexes) == [1]
    assert claim.score >= 0.6
    assert 0 < response.corroboration_score < 1


def test_corroborate_names_a_bad_parent_and_an_out_of_range_threshold() -> None:
    request: Any = CORROBORATE.request_class(parent="projects/p")
    request.content.parts.add(text="Paris is in France.")
    with pytest.raises(InvalidArgument) as raised:
        service.handle_unary(CORROBORATE, request)
    assert violated_fields(raised.value) == ["parent"]
    request.parent = PROJECT_LOCATION
    request.parameters.citation_threshold = 1.5
    with pytest.raises(InvalidArgument) as raised:
        service.handle_unary(CORROBORATE, request)
    assert violated_fields(raised.value) == ["parameters.citation_threshold"]


def test_generate_answers_from_inline_facts_with_grounding_metadata() -> None:
    response: Any = service.handle_unary(GENERATE, generate_request())
    (candidate,) = response.candidates
    assert candidate.index == 0
    assert candidate.content.role == "model"
    assert "Paris" in candidate.content.parts[0].text
    assert candidate.grounding_score > 0.5
    metadata = candidate.grounding_metadata
    assert metadata.support_chunks[0].source == "0"
    assert metadata.support_chunks[0].chunk_text == PARIS
    assert list(metadata.grounding_support[0].support_chunk_indices) == [0]
    assert metadata.retrieval_metadata[0].source == 2  # INLINE_CONTENT


def test_generate_without_sources_answers_ungrounded() -> None:
    response: Any = service.handle_unary(GENERATE, generate_request(facts=()))
    (candidate,) = response.candidates
    assert candidate.content.parts[0].text
    assert candidate.grounding_score == 0
    assert not candidate.HasField("grounding_metadata")


@pytest.mark.parametrize(
    "source", ["search_source", "google_search_source", "enterprise_web_retrieval_source"]
)
def test_sources_that_need_google_fail_with_failed_precondition(source: str) -> None:
    request = generate_request(facts=())
    getattr(request.grounding_spec.grounding_sources.add(), source).SetInParent()
    with pytest.raises(FailedPrecondition, match="cannot reach") as raised:
        service.handle_unary(GENERATE, request)
    detail = raised.value.detail(PreconditionFailure)
    assert detail is not None
    assert detail.violations[0].subject == f"grounding_spec.grounding_sources[0].{source}"


def test_generate_names_an_over_long_inline_fact_by_its_source() -> None:
    request = generate_request(facts=("x" * 10_001,))
    with pytest.raises(InvalidArgument) as raised:
        service.handle_unary(GENERATE, request)
    assert violated_fields(raised.value) == [
        "grounding_spec.grounding_sources[0].inline_source.grounding_facts[0].fact_text"
    ]


def test_stream_sends_each_answer_in_pieces_with_metadata_on_the_last() -> None:
    requests = [generate_request(STREAM), generate_request(STREAM, facts=())]
    responses: list[Any] = list(service.handle_stream(STREAM, requests))
    unary: Any = service.handle_unary(GENERATE, generate_request())
    first_answer = unary.candidates[0].content.parts[0].text
    texts = [r.candidates[0].content.parts[0].text for r in responses]
    with_metadata = [
        i for i, r in enumerate(responses) if r.candidates[0].HasField("grounding_metadata")
    ]
    (last_of_first,) = with_metadata
    assert "".join(texts[: last_of_first + 1]) == first_answer
    assert last_of_first >= 1, "the answer comes in more than one piece"
    chunks = responses[last_of_first].candidates[0].grounding_metadata.support_chunks
    assert [chunk.index for chunk in chunks] == list(range(len(chunks)))
    assert len(responses) > last_of_first + 1, "the second request is answered too"


def test_unknown_methods_are_unimplemented() -> None:
    with pytest.raises(Unimplemented):
        service.handle_unary(STREAM, generate_request(STREAM))
    with pytest.raises(Unimplemented):
        service.handle_stream(CHECK, [])
