"""Requests made of given fields and checked by their RPC's spec, as the client and emulator do."""

from __future__ import annotations

from typing import Any

from groundwire.contract import apis
from groundwire.contract.spec import SPECS

CONFIG = "projects/p/locations/global/groundingConfigs/default_grounding_config"


def check(
    *,
    api_version: str = "v1",
    answer_candidate: str = "Paris is the capital of France.",
    fact_texts: list[str] | None = None,
    citation_threshold: float | None = 0.6,
    user_labels: dict[str, str] | None = None,
) -> None:
    """Checks a CheckGrounding request made of these fields, as client and emulator do."""
    method = apis.method("discoveryengine", api_version, "CheckGrounding")
    texts = ["Paris is the capital of France."] if fact_texts is None else fact_texts
    request: Any = method.request_class(
        grounding_config=CONFIG,
        answer_candidate=answer_candidate,
        facts=[{"fact_text": text} for text in texts],
        user_labels=user_labels or {},
    )
    if citation_threshold is not None:
        request.grounding_spec.citation_threshold = citation_threshold
    SPECS["CheckGrounding"].check(method, request)


def corroborate(
    content_text: str,
    fact_texts: list[str],
    citation_threshold: float | None,
    *,
    chunks: bool = False,
) -> None:
    """Checks a CorroborateContent request; facts are summaries, or chunk texts."""
    method = apis.method("aiplatform", "v1", "CorroborateContent")
    request: Any = method.request_class(parent="projects/p/locations/us-central1")
    request.content.parts.add(text=content_text)
    for text in fact_texts:
        request.facts.add(**({"chunk": {"text": text}} if chunks else {"summary": text}))
    if citation_threshold is not None:
        request.parameters.citation_threshold = citation_threshold
    SPECS["CorroborateContent"].check(method, request)


def generate(sources: list[list[str]], user_labels: dict[str, str]) -> None:
    """Checks a GenerateGroundedContent request with these inline sources' fact texts."""
    method = apis.method("discoveryengine", "v1", "GenerateGroundedContent")
    request: Any = method.request_class(
        location="projects/p/locations/global",
        user_labels=user_labels,
        contents=[{"role": "user", "parts": [{"text": "Who wrote Faust?"}]}],
    )
    for texts in sources:
        inline = request.grounding_spec.grounding_sources.add().inline_source
        for text in texts:
            inline.grounding_facts.add(fact_text=text)
    SPECS["GenerateGroundedContent"].check(method, request)
