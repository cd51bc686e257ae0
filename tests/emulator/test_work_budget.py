"""A request's engine work is bounded by a count, not a clock: the same request, the same answer.

The adversarial request here is legal (20 facts of 10,000 characters, a 4,096-token answer):
every claim meets every fact sentence, so it costs far more term matches than any ordinary
request of that size, and the budget stops checking after a few hundred of its claims.
"""

from __future__ import annotations

from typing import Any

import grpc
import httpx

from groundwire.contract.apis import method
from groundwire.contract.validation import MAX_ANSWER_TOKENS, MAX_FACT_CHARACTERS, count_tokens
from groundwire.emulator import Emulator, service
from groundwire.emulator.engine import Fact, WorkBudget, check_grounding
from tests.emulator.support import CHECK, CHECK_BODY, CHECK_PATH, check_request

REPEATED = "Zork rises. "
OVER_BUDGET_FACTS = tuple((REPEATED * MAX_FACT_CHARACTERS)[:MAX_FACT_CHARACTERS] for _ in range(20))
OVER_BUDGET_ANSWER = REPEATED * (MAX_ANSWER_TOKENS // count_tokens(REPEATED))
HANG_GUARD_SECONDS = 60.0
"""Only catches a hang: the request takes about a second on a loaded two-core machine."""


def over_budget_json() -> dict[str, Any]:
    """The adversarial CheckGrounding request as proto3 JSON, claim scores on."""
    return {
        "answerCandidate": OVER_BUDGET_ANSWER,
        "facts": [{"factText": text} for text in OVER_BUDGET_FACTS],
        "groundingSpec": {"enableClaimLevelScore": True},
    }


def assert_unfinished_tail(claims: list[dict[str, Any]], unfinished: int) -> None:
    """The last ``unfinished`` claims are unsupported and uncited; the ones before are cited."""
    assert 0 < unfinished < len(claims)
    checked, tail = claims[:-unfinished], claims[-unfinished:]
    assert all(claim.get("citationIndices") for claim in checked)
    assert all(not claim.get("citationIndices") and not claim.get("score") for claim in tail)
    assert all(claim["groundingCheckRequired"] for claim in tail)


def test_claims_past_the_budget_are_unsupported_uncited_and_counted() -> None:
    facts = [Fact("Rome is old. Paris is big.")]
    result = check_grounding("Rome is old. Hi! Paris is big.", facts, budget=WorkBudget(2))
    rome, greeting, paris = result.claims
    assert (rome.grounded, len(rome.citations)) == (True, 1)
    assert not greeting.check_required
    assert (paris.check_required, paris.grounded, paris.score, paris.citations) == (
        True,
        False,
        0.0,
        (),
    )
    assert result.unfinished_claims == 1


def test_without_a_budget_every_claim_is_checked() -> None:
    facts = [Fact(text) for text in OVER_BUDGET_FACTS[:2]]
    result = check_grounding(REPEATED * 40, facts)
    assert result.unfinished_claims == 0
    assert all(claim.grounded for claim in result.claims)


def test_the_same_request_spends_the_same_budget_and_gets_the_same_answer() -> None:
    facts = [Fact(text) for text in OVER_BUDGET_FACTS[:2]]
    answer = REPEATED * 200
    first = check_grounding(answer, facts, budget=WorkBudget(100_000))
    second = check_grounding(answer, facts, budget=WorkBudget(100_000))
    assert first == second
    assert 0 < first.unfinished_claims < 200


def test_rest_reports_unfinished_claims_in_a_header_and_none_on_a_normal_request(
    emu: Emulator,
) -> None:
    with httpx.Client(base_url=emu.http_url, timeout=HANG_GUARD_SECONDS) as http:
        normal = http.post(CHECK_PATH, json=CHECK_BODY)
        first = http.post(CHECK_PATH, json=over_budget_json())
        second = http.post(CHECK_PATH, json=over_budget_json())
    assert normal.status_code == 200, normal.text
    assert normal.json()["claims"]
    assert service.UNFINISHED_CLAIMS_HEADER not in normal.headers
    assert first.status_code == 200, first.text[:500]  # a legal request
    unfinished = int(first.headers[service.UNFINISHED_CLAIMS_HEADER])
    assert_unfinished_tail(first.json()["claims"], unfinished)
    assert second.headers[service.UNFINISHED_CLAIMS_HEADER] == str(unfinished)
    assert second.content == first.content


def test_grpc_reports_unfinished_claims_in_trailing_metadata_and_none_on_a_normal_request(
    channel: grpc.Channel,
) -> None:
    call = channel.unary_unary(
        CHECK.grpc_path,
        request_serializer=lambda message: message.SerializeToString(),
        response_deserializer=CHECK.response_class.FromString,
    )
    normal, normal_call = call.with_call(check_request(), timeout=HANG_GUARD_SECONDS)
    assert normal.claims
    assert service.UNFINISHED_CLAIMS_HEADER not in dict(normal_call.trailing_metadata() or ())
    request: Any = check_request(OVER_BUDGET_ANSWER, OVER_BUDGET_FACTS)
    request.grounding_spec.enable_claim_level_score = True
    answers = [call.with_call(request, timeout=HANG_GUARD_SECONDS) for _ in range(2)]
    (first, first_call), (second, second_call) = answers
    unfinished = dict(first_call.trailing_metadata() or ())[service.UNFINISHED_CLAIMS_HEADER]
    claims = [
        {
            "citationIndices": list(claim.citation_indices),
            "score": claim.score,
            "groundingCheckRequired": claim.grounding_check_required,
        }
        for claim in first.claims
    ]
    assert_unfinished_tail(claims, int(unfinished))
    assert dict(second_call.trailing_metadata() or ())[service.UNFINISHED_CLAIMS_HEADER] == (
        unfinished
    )
    assert second.SerializeToString(deterministic=True) == first.SerializeToString(
        deterministic=True
    )


def test_corroborate_content_gets_the_budget_too() -> None:
    corroborate: Any = method("aiplatform", "v1", "CorroborateContent")
    normal: Any = corroborate.request_class(parent="projects/p/locations/global")
    normal.content.parts.add(text="Zork rises.")
    normal.facts.add(summary="Zork rises.")
    answered = service.answer_unary(corroborate, normal)
    assert (answered.unfinished_claims, answered.metadata()) == (0, [])
    request: Any = corroborate.request_class(parent="projects/p/locations/global")
    request.content.parts.add(text=OVER_BUDGET_ANSWER)
    for text in OVER_BUDGET_FACTS:
        request.facts.add(summary=text)
    answered = service.answer_unary(corroborate, request)
    response: Any = answered.response
    claims = len(response.claims) + answered.unfinished_claims
    assert claims == OVER_BUDGET_ANSWER.count(".")  # each checked claim is corroborated
    assert 0 < answered.unfinished_claims < claims
    assert answered.metadata() == [
        (service.UNFINISHED_CLAIMS_HEADER, str(answered.unfinished_claims))
    ]
