"""Requests are built from what users have, for the API version in use."""

from __future__ import annotations

from typing import Any

import pytest
from google.rpc.error_details_pb2 import BadRequest
from groundwire_protos.google.cloud.aiplatform.v1.vertex_rag_service_pb2 import (
    CorroborateContentRequest,
)
from groundwire_protos.google.cloud.discoveryengine.v1.grounded_generation_pb2 import (
    GenerateGroundedContentRequest,
)

from groundwire.contract import apis, calls, errors, requests
from tests.support.typed import typed

V1_CHECK = apis.method("discoveryengine", "v1", "CheckGrounding")
ALPHA_CHECK = apis.method("discoveryengine", "v1alpha", "CheckGrounding")


def build(method: apis.Method = V1_CHECK, **options: Any) -> Any:
    """A CheckGrounding request of `method`'s API version (so its class is only known then)."""
    return requests.check_grounding_request(
        method, project="p", location="global", answer_candidate="a", **options
    )


def test_facts_may_be_strings_pairs_dicts_or_messages() -> None:
    from groundwire_protos.google.cloud.discoveryengine.v1 import grounding_pb2

    ours = grounding_pb2.GroundingFact(fact_text="ours", attributes={"k": "v"})
    request = build(
        facts=[
            "plain",
            ("paired", {"author": "Wikipedia"}),
            {"text": "dict", "attributes": {"uri": "https://example.com"}},
            {"fact_text": "proto name"},
            ours,
        ]
    )
    facts = request.facts
    assert [f.fact_text for f in facts] == ["plain", "paired", "dict", "proto name", "ours"]
    assert facts[1].attributes["author"] == "Wikipedia"
    assert facts[4].attributes["k"] == "v"


def test_a_fact_whose_attributes_are_pairs_is_built_like_one_with_a_dict() -> None:
    as_pairs = build(facts=["plain", ("paired", [("author", "Wikipedia"), ("year", "2001")])])
    as_dict = build(facts=["plain", ("paired", {"author": "Wikipedia", "year": "2001"})])
    assert as_pairs == as_dict
    assert len(as_pairs.facts) == 2  # the plain path's partial work is not kept


@pytest.mark.official
def test_facts_may_be_the_official_clients_messages() -> None:
    from google.cloud import discoveryengine_v1

    official = discoveryengine_v1.GroundingFact(fact_text="official", attributes={"k": "v"})
    facts = build(facts=[official]).facts
    assert [(f.fact_text, dict(f.attributes)) for f in facts] == [("official", {"k": "v"})]


def test_a_fact_of_the_wrong_shape_names_its_index() -> None:
    with pytest.raises(errors.InvalidArgument) as caught:
        build(facts=["fine", {"txt": "typo"}])
    assert typed(BadRequest, caught.value.details[0]).field_violations[0].field == "facts[1]"


def test_a_bare_string_is_not_taken_for_a_list_of_facts() -> None:
    with pytest.raises(errors.InvalidArgument):
        build(facts="one long fact")


def test_claim_level_scores_are_refused_where_the_version_lacks_them() -> None:
    assert build(enable_claim_level_score=True).grounding_spec.enable_claim_level_score
    with pytest.raises(errors.InvalidArgument, match="v1alpha"):
        build(ALPHA_CHECK, enable_claim_level_score=True)


def test_the_grounding_config_may_be_an_id_or_a_full_name() -> None:
    full = "projects/q/locations/eu/groundingConfigs/default_grounding_config"
    assert build(grounding_config=full).grounding_config == full
    assert build().grounding_config.endswith("/groundingConfigs/default_grounding_config")


def test_generate_requests_carry_sources_and_spec() -> None:
    method = apis.method("discoveryengine", "v1", "GenerateGroundedContent")
    request = requests.generate_grounded_content_request(
        method,
        project="p",
        location="global",
        prompt=[("user", "Hi"), ("model", "Hello"), "What is Kyoto?"],
        system_instruction="Be brief.",
        facts=["Kyoto is in Japan."],
        serving_config="projects/p/locations/global/collections/c/engines/e/servingConfigs/s",
        max_result_count=5,
        search_filter='lang: "en"',
        safe_search=True,
        dynamic_retrieval_threshold=0.4,
        model_id="gemini",
        temperature=0.1,
        top_k=3,
        seed=7,
    )
    raw = typed(GenerateGroundedContentRequest, request)
    assert [c.role for c in raw.contents] == ["user", "model", "user"]
    sources = raw.grounding_spec.grounding_sources
    assert [s.WhichOneof("source") for s in sources] == [
        "inline_source",
        "search_source",
        "google_search_source",
    ]
    assert sources[1].search_source.max_result_count == 5
    assert sources[2].google_search_source.dynamic_retrieval_config.predictor.threshold == (
        pytest.approx(0.4)
    )
    assert raw.generation_spec.seed == 7
    assert raw.generation_spec.HasField("temperature")


def test_corroboration_facts_fill_title_and_uri_from_attributes() -> None:
    method = apis.method("aiplatform", "v1", "CorroborateContent")
    request = requests.corroborate_content_request(
        method,
        project="p",
        location="us-central1",
        content="text",
        facts=[
            ("Water boils at 100 °C.", {"title": "Physics", "uri": "https://x"}),
            {"summary": "s", "chunk": {"text": "c"}},
        ],
    )
    first, second = typed(CorroborateContentRequest, request).facts
    assert (first.summary, first.title, first.uri) == (
        "Water boils at 100 °C.",
        "Physics",
        "https://x",
    )
    assert second.chunk.text == "c"


def test_a_stream_of_a_list_is_fixed_and_of_a_generator_is_live() -> None:
    config = calls.ClientConfig("p")
    method = apis.method("discoveryengine", "v1", "StreamGenerateGroundedContent")
    request = method.request_class(
        location="projects/p/locations/global",
        contents=[{"role": "user", "parts": [{"text": "Who wrote Faust?"}]}],
    )
    assert not calls.stream_generate_grounded_content(config, [request, request]).interactive
    assert calls.stream_generate_grounded_content(config, iter([request])).interactive
    assert not calls.stream_generate_grounded_content(config, "a prompt").interactive
