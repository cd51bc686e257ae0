"""A ready request is sent as it is: options beside it are refused, and it routes itself."""

from __future__ import annotations

from typing import Any

import pytest

from groundwire.contract import apis, calls, errors

CONFIG = calls.ClientConfig("my-project", "global")
ELSEWHERE = "projects/other/locations/eu"


def ready(api: str, version: str, name: str, **fields: Any) -> Any:
    return apis.method(api, version, name).request_class(**fields)


def violations(caught: pytest.ExceptionInfo[errors.InvalidArgument]) -> list[str]:
    from google.rpc.error_details_pb2 import BadRequest

    detail = caught.value.detail(BadRequest)
    assert detail is not None
    return [violation.field for violation in detail.field_violations]


def test_facts_and_a_threshold_beside_a_ready_check_request_are_refused() -> None:
    request = ready("discoveryengine", "v1", "CheckGrounding", answer_candidate="Rome.")
    with pytest.raises(
        errors.InvalidArgument, match="beside a ready CheckGroundingRequest"
    ) as caught:
        calls.unary(CONFIG, "CheckGrounding", request, facts=["a fact"], citation_threshold=0.9)
    assert violations(caught) == ["citation_threshold", "facts"]


def test_a_ready_check_request_alone_is_sent_as_it_is() -> None:
    request = ready(
        "discoveryengine",
        "v1",
        "CheckGrounding",
        grounding_config="projects/p/locations/global/groundingConfigs/default_grounding_config",
        answer_candidate="Rome.",
    )
    call = calls.unary(
        CONFIG,
        "CheckGrounding",
        request,
        facts=(),
        citation_threshold=None,
        enable_claim_level_score=None,
        user_labels=None,
        grounding_config="default_grounding_config",
    )
    assert call.request is request


def test_facts_beside_a_ready_corroborate_request_are_refused() -> None:
    request = ready("aiplatform", "v1", "CorroborateContent", parent="projects/p/locations/l")
    with pytest.raises(errors.InvalidArgument, match="beside a ready") as caught:
        calls.unary(CONFIG, "CorroborateContent", request, facts=["a fact"])
    assert violations(caught) == ["facts"]


def test_options_beside_a_ready_generate_request_are_refused() -> None:
    request = ready("discoveryengine", "v1", "GenerateGroundedContent", location=ELSEWHERE)
    with pytest.raises(errors.InvalidArgument, match="beside a ready") as caught:
        calls.unary(CONFIG, "GenerateGroundedContent", request, facts=["a fact"])
    assert violations(caught) == ["facts"]


def test_options_beside_a_ready_stream_request_are_refused() -> None:
    request = ready("discoveryengine", "v1", "StreamGenerateGroundedContent", location=ELSEWHERE)
    with pytest.raises(errors.InvalidArgument, match="beside a ready") as caught:
        calls.stream_generate_grounded_content(CONFIG, request, facts=["a fact"])
    assert violations(caught) == ["facts"]


def test_options_beside_a_list_of_stream_requests_are_refused() -> None:
    request = ready("discoveryengine", "v1", "StreamGenerateGroundedContent", location=ELSEWHERE)
    with pytest.raises(errors.InvalidArgument, match="beside a ready") as caught:
        calls.stream_generate_grounded_content(CONFIG, [request], system_instruction="Be brief.")
    assert violations(caught) == ["system_instruction"]


def routing(metadata: tuple[tuple[str, str], ...]) -> str:
    return dict(metadata)["x-goog-request-params"]


@pytest.mark.parametrize("shape", ["one request", "a list", "a live iterator"])
def test_a_stream_is_routed_by_the_location_its_requests_name(shape: str) -> None:
    request = ready(
        "discoveryengine",
        "v1",
        "StreamGenerateGroundedContent",
        location=ELSEWHERE,
        contents=[{"role": "user", "parts": [{"text": "Who wrote Faust?"}]}],
    )
    given: Any = {"one request": request, "a list": [request], "a live iterator": iter([request])}
    plan = calls.stream_generate_grounded_content(CONFIG, given[shape])
    assert routing(plan.metadata) == "location=projects%2Fother%2Flocations%2Feu"
    assert list(plan.requests) == [request]


def test_a_stream_built_from_a_prompt_is_routed_by_the_clients_location() -> None:
    plan = calls.stream_generate_grounded_content(CONFIG, "Who wrote Faust?")
    assert routing(plan.metadata) == "location=projects%2Fmy-project%2Flocations%2Fglobal"
