"""Google's worked check-grounding examples hold against the emulator, over gRPC and REST."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import httpx
import pytest
from google.protobuf.json_format import MessageToDict

from groundwire.emulator import Emulator
from tests.emulator.support import CHECK, CHECK_PATH, GROUNDING_CONFIG, unary_call

SCORE_TOLERANCE = 0.1
"""How far the emulator's support score may be from the documented one."""


def load_examples() -> list[dict[str, Any]]:
    text = (Path(__file__).with_name("google_examples.json")).read_text(encoding="utf-8")
    examples: list[dict[str, Any]] = json.loads(text)["examples"]
    by_name = {example["name"]: example for example in examples}
    return [
        {**by_name[example["same_as"]], **example} if "same_as" in example else example
        for example in examples
    ]


EXAMPLES = load_examples()


def request_json(example: dict[str, Any]) -> dict[str, Any]:
    """The example as a CheckGroundingRequest in proto3 JSON."""
    return {
        "answerCandidate": example["answer_candidate"],
        "facts": [
            {"factText": fact["fact_text"], "attributes": fact["attributes"]}
            for fact in example["facts"]
        ],
        "groundingSpec": {
            "citationThreshold": example["citation_threshold"],
            "enableClaimLevelScore": example["enable_claim_level_score"],
        },
    }


@pytest.fixture(scope="module")
def http(emu: Emulator) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=emu.http_url, timeout=5) as client:
        yield client


def check_over(
    transport: str, example: dict[str, Any], channel: grpc.Channel, http: httpx.Client
) -> dict[str, Any]:
    """The emulator's answer to the example, as proto3 JSON, over gRPC or REST."""
    body = request_json(example)
    if transport == "rest":
        response = http.post(CHECK_PATH, json=body)
        assert response.status_code == 200, response.text
        answer: dict[str, Any] = response.json()
        return answer
    request = CHECK.request_class(
        grounding_config=GROUNDING_CONFIG,
        answer_candidate=body["answerCandidate"],
        facts=[
            {"fact_text": fact["factText"], "attributes": fact["attributes"]}
            for fact in body["facts"]
        ],
        grounding_spec={
            "citation_threshold": example["citation_threshold"],
            "enable_claim_level_score": example["enable_claim_level_score"],
        },
    )
    return MessageToDict(unary_call(channel, CHECK, request))


@pytest.mark.parametrize("transport", ["grpc", "rest"])
@pytest.mark.parametrize("example", EXAMPLES, ids=[example["name"] for example in EXAMPLES])
def test_each_claim_falls_on_the_documented_side_of_the_citation_threshold(
    example: dict[str, Any], transport: str, channel: grpc.Channel, http: httpx.Client
) -> None:
    answer = check_over(transport, example, channel, http)
    claims = answer["claims"]
    assert [claim["claimText"] for claim in claims] == [
        claim["claim_text"] for claim in example["claims"]
    ]
    chunks = answer.get("citedChunks", [])
    for documented, found in zip(example["claims"], claims, strict=True):
        cited_facts = {int(chunks[i]["source"]) for i in found.get("citationIndices", [])}
        assert bool(cited_facts) == documented["cited"], found
        assert set(documented["cited_facts"]) <= cited_facts
        if example["enable_claim_level_score"]:
            reached = found.get("score", 0.0) >= example["citation_threshold"]
            assert reached == documented["cited"], found


@pytest.mark.parametrize("transport", ["grpc", "rest"])
@pytest.mark.parametrize(
    "example",
    [example for example in EXAMPLES if example["support_score"] is not None],
    ids=[example["name"] for example in EXAMPLES if example["support_score"] is not None],
)
def test_the_support_score_is_within_a_tenth_of_the_documented_one(
    example: dict[str, Any], transport: str, channel: grpc.Channel, http: httpx.Client
) -> None:
    answer = check_over(transport, example, channel, http)
    assert answer["supportScore"] == pytest.approx(example["support_score"], abs=SCORE_TOLERANCE)
