"""Builds request messages from what users naturally have (strings, pairs, dicts).

Each builder is the `build` of its RPC's spec (`groundwire.contract.spec`).
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, TypeAlias

from google.protobuf import message

from groundwire.contract.apis import Method
from groundwire.contract.errors import bad_request
from groundwire.contract.facts import FactLike as FactLike
from groundwire.contract.facts import (
    add_plain_facts,
    as_message,
    assign,
    corroboration_fact,
    fact_list,
    field_class,
    grounding_facts,
)

TurnLike: TypeAlias = str | tuple[str, str] | Mapping[str, Any] | message.Message
"""A conversation turn: `"text"` (a user turn), `("model", "text")`, a dict, or a message."""


@functools.lru_cache(maxsize=256)
def resource_name(
    project: str, location: str, kind: str | None = None, name: str | None = None
) -> str:
    """`projects/{project}/locations/{location}[/{kind}/{name}]`; a full name passes through.

    Most clients name one or two resources: made once each, as `metadata.call_headers`.

    >>> resource_name("p", "global", "groundingConfigs", "default_grounding_config")
    'projects/p/locations/global/groundingConfigs/default_grounding_config'
    """
    if name is not None and name.startswith("projects/"):
        return name
    parent = f"projects/{project}/locations/{location}"
    return parent if kind is None else f"{parent}/{kind}/{name}"


DEFAULT_GROUNDING_CONFIG = "default_grounding_config"
"""The grounding config a CheckGrounding request names unless the caller gives another."""


def check_grounding_request(
    method: Method,
    project: str,
    location: str,
    answer_candidate: str,
    facts: Iterable[FactLike] = (),
    *,
    citation_threshold: float | None = None,
    enable_claim_level_score: bool | None = None,
    user_labels: Mapping[str, str] | None = None,
    grounding_config: str = DEFAULT_GROUNDING_CONFIG,
) -> message.Message:
    """A CheckGroundingRequest for `method`'s API version.

    Plain facts take a fast path; anything else, or a value of the wrong type, the careful
    one, whose errors name the field.

    >>> from groundwire.contract.apis import method
    >>> request = check_grounding_request(method("discoveryengine", "v1", "CheckGrounding"),
    ...                                   "p", "global", "Paris is in France.", ["Paris..."])
    >>> request.grounding_config, request.facts[0].fact_text
    ('projects/p/locations/global/groundingConfigs/default_grounding_config', 'Paris...')
    """
    fields: dict[str, Any] = {
        "grounding_config": resource_name(project, location, "groundingConfigs", grounding_config),
        "answer_candidate": answer_candidate,
    }
    if citation_threshold is not None or enable_claim_level_score is not None:
        grounding_spec: dict[str, Any] = {}
        if citation_threshold is not None:
            grounding_spec["citation_threshold"] = citation_threshold
        if enable_claim_level_score is not None:
            grounding_spec["enable_claim_level_score"] = enable_claim_level_score
        fields["grounding_spec"] = grounding_spec
    if user_labels:
        fields["user_labels"] = user_labels
    try:
        request: Any = method.request_class(**fields)
    except (TypeError, ValueError):
        pass  # the careful path below names the field at fault
    else:
        if add_plain_facts(facts, request.facts):
            return request
    return _careful_check_grounding_request(
        method,
        fields["grounding_config"],
        answer_candidate,
        facts,
        citation_threshold,
        enable_claim_level_score,
        user_labels,
    )


def _careful_check_grounding_request(
    method: Method,
    grounding_config: str,
    answer_candidate: str,
    facts: Iterable[FactLike],
    citation_threshold: float | None,
    enable_claim_level_score: bool | None,
    user_labels: Mapping[str, str] | None,
) -> message.Message:
    """Builds field by field, so that a bad value raises an InvalidArgument naming it."""
    request: Any = method.request_class()
    request.grounding_config = grounding_config
    assign(request, "answer_candidate", answer_candidate, "answer_candidate")
    request.facts.extend(grounding_facts(facts, field_class(request, "facts")))
    spec = request.grounding_spec
    if citation_threshold is not None:
        assign(spec, "citation_threshold", citation_threshold, "grounding_spec.citation_threshold")
    if enable_claim_level_score is not None:
        if "enable_claim_level_score" not in spec.DESCRIPTOR.fields_by_name:
            raise bad_request(
                [("grounding_spec.enable_claim_level_score", f"not available in {method.version}")],
                f"claim-level scores are not available in {method.version}",
            )
        assign(
            spec,
            "enable_claim_level_score",
            enable_claim_level_score,
            "grounding_spec.enable_claim_level_score",
        )
    assign(request, "user_labels", user_labels or {}, "user_labels")
    return request


def corroborate_content_request(
    method: Method,
    project: str,
    location: str,
    content: str | message.Message,
    facts: Iterable[FactLike] = (),
    *,
    citation_threshold: float | None = None,
) -> message.Message:
    """A CorroborateContentRequest: facts are strings (summaries), pairs, dicts or `Fact`s.

    A pair's `title`, `uri` and `query` attributes fill the Fact fields of those names.
    """
    request: Any = method.request_class()
    request.parent = resource_name(project, location)
    if isinstance(content, str):
        request.content.role = "model"
        request.content.parts.add(text=content)
    else:
        converted = as_message(content, type(request.content))
        if converted is None:
            raise bad_request(
                [("content", f"expected text or a Content, got {type(content).__name__}")],
                "content is not a Content",
            )
        request.content.CopyFrom(converted)
    fact_class = field_class(request, "facts")
    request.facts.extend(
        corroboration_fact(f, fact_class, i) for i, f in enumerate(fact_list(facts))
    )
    if citation_threshold is not None:
        assign(
            request.parameters,
            "citation_threshold",
            citation_threshold,
            "parameters.citation_threshold",
        )
    return request


def _turn(turn: Any, content_class: type[message.Message], index: int) -> message.Message:
    converted = as_message(turn, content_class)
    if converted is not None:
        return converted
    if isinstance(turn, str):
        role, text = "user", turn
    elif isinstance(turn, tuple) and len(turn) == 2:
        role, text = turn
    elif isinstance(turn, Mapping) and "text" in turn:
        role, text = turn.get("role", "user"), turn["text"]
    else:
        expected = (
            "text, a (role, text) pair, a dict with role and text, or a GroundedGenerationContent"
        )
        raise bad_request(
            [(f"contents[{index}]", f"expected {expected}")], f"contents[{index}] is not a turn"
        )
    built: Any = content_class(role=role)
    built.parts.add(text=text)
    return built


def generate_grounded_content_request(
    method: Method,
    project: str,
    location: str,
    prompt: str | Sequence[TurnLike],
    *,
    system_instruction: str | None = None,
    facts: Iterable[FactLike] | None = None,
    serving_config: str | None = None,
    max_result_count: int | None = None,
    search_filter: str | None = None,
    safe_search: bool | None = None,
    google_search: bool = False,
    dynamic_retrieval_threshold: float | None = None,
    model_id: str | None = None,
    language_code: str | None = None,
    temperature: float | None = None,
    top_p: float | None = None,
    top_k: int | None = None,
    seed: int | None = None,
    max_output_tokens: int | None = None,
    frequency_penalty: float | None = None,
    presence_penalty: float | None = None,
    user_labels: Mapping[str, str] | None = None,
) -> message.Message:
    """A GenerateGroundedContentRequest from a prompt (or turns), sources and generation spec."""
    request: Any = method.request_class()
    request.location = resource_name(project, location)
    content_class = type(request.system_instruction)
    turns = [prompt] if isinstance(prompt, str) else list(prompt)
    request.contents.extend(_turn(t, content_class, i) for i, t in enumerate(turns))
    if system_instruction is not None:
        request.system_instruction.parts.add(text=system_instruction)
    spec = request.generation_spec
    for name, value in (
        ("model_id", model_id),
        ("language_code", language_code),
        ("temperature", temperature),
        ("top_p", top_p),
        ("top_k", top_k),
        ("seed", seed),
        ("max_output_tokens", max_output_tokens),
        ("frequency_penalty", frequency_penalty),
        ("presence_penalty", presence_penalty),
    ):
        if value is not None:
            assign(spec, name, value, f"generation_spec.{name}")
    sources = request.grounding_spec.grounding_sources
    if facts is not None:
        inline = sources.add().inline_source  # the first source: its facts' paths say so
        field = "grounding_spec.grounding_sources[0].inline_source.grounding_facts"
        inline.grounding_facts.extend(
            grounding_facts(facts, field_class(inline, "grounding_facts"), field)
        )
    if serving_config is not None:
        search = sources.add().search_source
        search.serving_config = serving_config
        if max_result_count is not None:
            search.max_result_count = max_result_count
        if search_filter is not None:
            search.filter = search_filter
        if safe_search is not None:
            search.safe_search = safe_search
    if google_search or dynamic_retrieval_threshold is not None:
        google = sources.add().google_search_source
        google.SetInParent()
        if dynamic_retrieval_threshold is not None:
            predictor = google.dynamic_retrieval_config.predictor
            predictor.threshold = dynamic_retrieval_threshold
    assign(request, "user_labels", user_labels or {}, "user_labels")
    return request
