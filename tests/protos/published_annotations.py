"""Google's published field behaviors, resource references and resource patterns, field by field.

The official Python packages strip these options from their descriptors, so the
values were read from the googleapis/googleapis protos (commit f8291d2b, 2026-08-22)
and written here as facts. Every field our protos define has an entry; NONE means
Google annotates the field with neither a behavior nor a reference.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Published:
    """A field's `google.api.field_behavior` list and `google.api.resource_reference`."""

    behavior: tuple[str, ...] = ()
    type: str = ""
    child_type: str = ""


NONE = Published()
OPTIONAL = Published(("OPTIONAL",))
REQUIRED = Published(("REQUIRED",))
OUTPUT_ONLY = Published(("OUTPUT_ONLY",))

Messages = dict[str, dict[str, Published]]
"""Message name within its package (nested ones dotted) -> field name -> annotations."""

GROUNDING_CONFIG = Published(("REQUIRED",), type="discoveryengine.googleapis.com/GroundingConfig")
DISCOVERY_LOCATION = Published(("REQUIRED",), type="discoveryengine.googleapis.com/Location")
SERVING_CONFIG = Published(type="discoveryengine.googleapis.com/ServingConfig")

_REQUEST = "GenerateGroundedContentRequest"
_SOURCE = f"{_REQUEST}.GroundingSource"
_CANDIDATE = "GenerateGroundedContentResponse.Candidate"
_METADATA = f"{_CANDIDATE}.GroundingMetadata"

# v1's generation messages. Google publishes no generation in v1alpha; ours mirrors
# v1 there field for field (test_v1alpha_generation_agrees_with_v1_wherever_names_match),
# annotations included.
_GENERATION_V1: Messages = {
    "GroundedGenerationContent": {"role": NONE, "parts": NONE},
    "GroundedGenerationContent.Part": {"text": NONE},
    _REQUEST: {
        "location": DISCOVERY_LOCATION,
        "system_instruction": NONE,
        "contents": NONE,
        "generation_spec": NONE,
        "grounding_spec": NONE,
        "user_labels": NONE,
    },
    f"{_REQUEST}.GenerationSpec": {
        "model_id": NONE,
        "language_code": NONE,
        "temperature": NONE,
        "top_p": NONE,
        "top_k": NONE,
        "frequency_penalty": NONE,
        "seed": NONE,
        "presence_penalty": NONE,
        "max_output_tokens": NONE,
    },
    f"{_REQUEST}.DynamicRetrievalConfiguration": {"predictor": NONE},
    f"{_REQUEST}.DynamicRetrievalConfiguration.DynamicRetrievalPredictor": {
        "version": NONE,
        "threshold": NONE,
    },
    _SOURCE: {
        "inline_source": NONE,
        "search_source": NONE,
        "google_search_source": NONE,
        "enterprise_web_retrieval_source": NONE,
    },
    f"{_SOURCE}.InlineSource": {"grounding_facts": NONE, "attributes": NONE},
    f"{_SOURCE}.SearchSource": {
        "serving_config": SERVING_CONFIG,
        "max_result_count": NONE,
        "filter": NONE,
        "safe_search": NONE,
    },
    f"{_SOURCE}.GoogleSearchSource": {"dynamic_retrieval_config": OPTIONAL},
    f"{_SOURCE}.EnterpriseWebRetrievalSource": {},
    f"{_REQUEST}.GroundingSpec": {"grounding_sources": NONE},
    "GenerateGroundedContentResponse": {"candidates": NONE},
    _CANDIDATE: {
        "index": NONE,
        "content": NONE,
        "grounding_score": NONE,
        "grounding_metadata": NONE,
    },
    _METADATA: {
        "retrieval_metadata": NONE,
        "support_chunks": NONE,
        "web_search_queries": NONE,
        "search_entry_point": NONE,
        "grounding_support": NONE,
        "images": NONE,
    },
    f"{_METADATA}.RetrievalMetadata": {"source": NONE, "dynamic_retrieval_metadata": NONE},
    f"{_METADATA}.DynamicRetrievalMetadata": {"predictor_metadata": NONE},
    f"{_METADATA}.DynamicRetrievalPredictorMetadata": {"version": NONE, "prediction": NONE},
    f"{_METADATA}.SearchEntryPoint": {"rendered_content": NONE, "sdk_blob": NONE},
    f"{_METADATA}.GroundingSupport": {
        "claim_text": NONE,
        "support_chunk_indices": NONE,
        "support_score": NONE,
    },
    f"{_METADATA}.ImageMetadata": {"image": NONE, "thumbnail": NONE, "source": NONE},
    f"{_METADATA}.ImageMetadata.WebsiteInfo": {"uri": NONE, "title": NONE},
    f"{_METADATA}.ImageMetadata.Image": {"uri": NONE, "width": NONE, "height": NONE},
}

_CHECK_V1: Messages = {
    "CheckGroundingSpec": {"citation_threshold": NONE, "enable_claim_level_score": NONE},
    "CheckGroundingRequest": {
        "grounding_config": GROUNDING_CONFIG,
        "answer_candidate": NONE,
        "facts": NONE,
        "grounding_spec": NONE,
        "user_labels": NONE,
    },
    "CheckGroundingResponse": {
        "support_score": NONE,
        "cited_chunks": NONE,
        "cited_facts": NONE,
        "claims": NONE,
    },
    "CheckGroundingResponse.CheckGroundingFactChunk": {"chunk_text": NONE},
    "CheckGroundingResponse.Claim": {
        "start_pos": NONE,
        "end_pos": NONE,
        "claim_text": NONE,
        "citation_indices": NONE,
        "grounding_check_required": NONE,
        "score": NONE,
    },
    "GroundingFact": {"fact_text": NONE, "attributes": NONE},
    "FactChunk": {
        "chunk_text": NONE,
        "source": NONE,
        "index": NONE,
        "source_metadata": NONE,
        "uri": NONE,
        "title": NONE,
        "domain": NONE,
    },
}

V1: Messages = {**_CHECK_V1, **_GENERATION_V1}

V1BETA: Messages = {
    **_CHECK_V1,
    **_GENERATION_V1,
    f"{_REQUEST}.GenerationSpec": {
        **_GENERATION_V1[f"{_REQUEST}.GenerationSpec"],
        "provisioned_throughput_setting": OPTIONAL,
    },
    f"{_SOURCE}.GoogleSearchSource": {
        "dynamic_retrieval_config": OPTIONAL,
        "exclude_domains": OPTIONAL,
        "blocking_confidence": OPTIONAL,
    },
    f"{_SOURCE}.EnterpriseWebRetrievalSource": {
        "exclude_domains": OPTIONAL,
        "blocking_confidence": OPTIONAL,
    },
    _METADATA: {**_GENERATION_V1[_METADATA], "videos": NONE},
    f"{_METADATA}.ImageMetadata.WebsiteInfo": {
        "uri": NONE,
        "title": NONE,
        "site_display_name": NONE,
    },
    f"{_METADATA}.VideoMetadata": {"youtube_external_id": NONE},
    "CitationMetadata": {"citations": OUTPUT_ONLY},
    "Citation": {
        "start_index": OUTPUT_ONLY,
        "end_index": OUTPUT_ONLY,
        "uri": OUTPUT_ONLY,
        "title": OUTPUT_ONLY,
        "license": OUTPUT_ONLY,
        "publication_date": OUTPUT_ONLY,
    },
}

V1ALPHA: Messages = {
    "CheckGroundingSpec": {"citation_threshold": NONE},
    "CheckGroundingRequest": _CHECK_V1["CheckGroundingRequest"],
    "CheckGroundingResponse": {"support_score": NONE, "cited_chunks": NONE, "claims": NONE},
    "CheckGroundingResponse.Claim": {
        "start_pos": NONE,
        "end_pos": NONE,
        "claim_text": NONE,
        "citation_indices": NONE,
        "grounding_check_required": NONE,
    },
    "GroundingFact": {"fact_text": NONE, "attributes": NONE},
    "FactChunk": {"chunk_text": NONE, "source": NONE, "index": NONE, "source_metadata": NONE},
    **_GENERATION_V1,
}

AIPLATFORM: Messages = {
    "Content": {"role": OPTIONAL, "parts": REQUIRED},
    "Part": {"text": OPTIONAL},
    "RagChunk": {"text": NONE, "page_span": NONE},
    "RagChunk.PageSpan": {"first_page": NONE, "last_page": NONE},
    "CorroborateContentRequest": {
        # Vertex AI refers to the cross-service Location, not one of its own.
        "parent": Published(("REQUIRED",), type="locations.googleapis.com/Location"),
        "content": OPTIONAL,
        "facts": OPTIONAL,
        "parameters": OPTIONAL,
    },
    "CorroborateContentRequest.Parameters": {"citation_threshold": OPTIONAL},
    "CorroborateContentResponse": {"corroboration_score": NONE, "claims": NONE},
    "Fact": {
        "query": NONE,
        "title": NONE,
        "uri": NONE,
        "summary": NONE,
        "vector_distance": NONE,
        "score": NONE,
        "chunk": NONE,
    },
    "Claim": {"start_index": NONE, "end_index": NONE, "fact_indexes": NONE, "score": NONE},
}

FIELDS: dict[str, Messages] = {
    "google.cloud.discoveryengine.v1": V1,
    "google.cloud.discoveryengine.v1beta": V1BETA,
    "google.cloud.discoveryengine.v1alpha": V1ALPHA,
    "google.cloud.aiplatform.v1": AIPLATFORM,
}
"""Proto package -> its messages' published annotations."""

_DISCOVERY_RESOURCES: dict[str, tuple[str, ...]] = {
    "discoveryengine.googleapis.com/Location": ("projects/{project}/locations/{location}",),
    "discoveryengine.googleapis.com/GroundingConfig": (
        "projects/{project}/locations/{location}/groundingConfigs/{grounding_config}",
    ),
    "discoveryengine.googleapis.com/ServingConfig": (
        "projects/{project}/locations/{location}/dataStores/{data_store}"
        "/servingConfigs/{serving_config}",
        "projects/{project}/locations/{location}/collections/{collection}"
        "/dataStores/{data_store}/servingConfigs/{serving_config}",
        "projects/{project}/locations/{location}/collections/{collection}"
        "/engines/{engine}/servingConfigs/{serving_config}",
    ),
}

RESOURCES: dict[str, dict[str, tuple[str, ...]]] = {
    "google.cloud.discoveryengine.v1": _DISCOVERY_RESOURCES,
    "google.cloud.discoveryengine.v1beta": _DISCOVERY_RESOURCES,
    "google.cloud.discoveryengine.v1alpha": _DISCOVERY_RESOURCES,
    "google.cloud.aiplatform.v1": {},
}
"""Proto package -> resource type -> the patterns Google publishes for it, in order."""

COMMON_RESOURCES: dict[str, tuple[str, ...]] = {
    "locations.googleapis.com/Location": ("projects/{project}/locations/{location}",),
}
"""Resources defined once for all Google Cloud APIs (google/cloud/common_resources.proto)."""
