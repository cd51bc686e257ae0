"""The outcome model: Google's JSON in, the steps a server plays out, bad JSON refused by field."""

from __future__ import annotations

from typing import Any

import pytest
from google.rpc.error_details_pb2 import BadRequest, RetryInfo

from groundwire.contract.apis import method
from groundwire.contract.errors import InvalidArgument
from groundwire.emulator.answering import Call, Pacing, Switchboard
from groundwire.emulator.outcomes import Ending, Piece, outcome_from_json, outcome_to_json

CHECK = method("discoveryengine", "v1", "CheckGrounding")
STREAM = method("discoveryengine", "v1", "StreamGenerateGroundedContent")


def _field(error: InvalidArgument) -> str:
    detail = error.detail(BadRequest)
    assert detail is not None
    return detail.field_violations[0].field


def test_a_response_is_one_piece_after_the_outcomes_delay() -> None:
    outcome = outcome_from_json(CHECK, {"response": {"supportScore": 0.25}, "delayMs": 40})
    (step,) = outcome.steps()
    assert isinstance(step, Piece)
    assert step.delay_seconds == pytest.approx(0.04)
    assert step.response.support_score == 0.25  # type: ignore[attr-defined]


def test_an_error_carries_its_details_in_googles_json_form() -> None:
    outcome = outcome_from_json(
        CHECK,
        {
            "error": {
                "code": "RESOURCE_EXHAUSTED",
                "message": "slow down",
                "details": [
                    {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "2s"}
                ],
            }
        },
    )
    (step,) = outcome.steps()
    assert isinstance(step, Ending)
    assert step.error is not None
    assert step.error.code.name == "RESOURCE_EXHAUSTED"
    assert step.error.retry_delay == 2.0
    assert isinstance(step.error.details[0], RetryInfo)


def test_a_stream_plays_its_pieces_then_its_abort() -> None:
    outcome = outcome_from_json(
        STREAM,
        {
            "stream": [
                {"response": {"candidates": [{"content": {"parts": [{"text": "Hi"}]}}]}},
                {"response": {}, "delayMs": 5},
                {"abort": True},
            ]
        },
    )
    kinds = [(type(step).__name__, step.delay_seconds) for step in outcome.steps()]
    assert kinds == [("Piece", 0.0), ("Piece", 0.005), ("Ending", 0.0)]
    assert outcome.ending == Ending(None, True)


def test_outcomes_write_back_to_the_json_they_came_from() -> None:
    stream = {"stream": [{"response": {}, "delayMs": 5}, {"error": {"code": "INTERNAL"}}]}
    cases: list[tuple[Any, dict[str, Any]]] = [
        (CHECK, {"response": {"supportScore": 0.5}}),
        (CHECK, {"error": {"code": "UNAVAILABLE", "message": "down"}, "delayMs": 10}),
        (STREAM, stream),
    ]
    for method_, data in cases:
        again = outcome_to_json(outcome_from_json(method_, data))
        assert outcome_to_json(outcome_from_json(method_, again)) == again
        assert again.keys() == data.keys()


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({}, "outcome"),
        ({"response": {"supportScore": "high"}}, "response"),
        ({"response": {"noSuchField": 1}}, "response"),
        ({"response": {}, "error": {"code": "UNAVAILABLE"}}, "outcome"),
        ({"error": {"code": "NOPE"}}, "error.code"),
        ({"error": {"code": "OK"}}, "error.code"),
        ({"error": {"code": 14, "details": [{"@type": "nowhere/Nothing"}]}}, "error.details[0]"),
        ({"response": {}, "delayMs": -1}, "delayMs"),
        ({"stream": []}, "stream"),
    ],
)
def test_a_malformed_outcome_is_refused_naming_its_field(data: dict[str, Any], field: str) -> None:
    with pytest.raises(InvalidArgument) as refused:
        outcome_from_json(CHECK, data)
    assert _field(refused.value) == field
    assert refused.value.http_status == 400


def test_a_stream_piece_after_the_end_is_refused() -> None:
    with pytest.raises(InvalidArgument) as refused:
        outcome_from_json(STREAM, {"stream": [{"abort": True}, {"response": {}}]})
    assert _field(refused.value) == "stream[1]"


def test_the_first_answerer_with_an_outcome_wins_else_the_engine_answers() -> None:
    canned = outcome_from_json(CHECK, {"response": {"supportScore": 0.125}})
    asked: list[str] = []

    def passes(call: Call) -> None:
        asked.append("passes")

    request = CHECK.request_class(
        grounding_config="projects/p/locations/global/groundingConfigs/default_grounding_config",
        answer_candidate="Paris is in France.",
    )
    call = Call(CHECK, request, "grpc")
    (step,) = Switchboard([passes, lambda call: canned]).steps(call)
    assert isinstance(step, Piece)
    assert step.response.support_score == 0.125  # type: ignore[attr-defined]
    (engine,) = Switchboard([passes]).steps(call)
    assert isinstance(engine, Piece)
    assert engine.response.claims  # type: ignore[attr-defined]
    assert asked == ["passes", "passes"]


def test_pacing_cuts_the_engines_stream_into_pieces_of_so_many_characters() -> None:
    request = STREAM.request_class(location="projects/p/locations/global")
    request.contents.add(role="user", parts=[{"text": "Where is Paris?"}])  # type: ignore[attr-defined]
    source = request.grounding_spec.grounding_sources.add()  # type: ignore[attr-defined]
    source.inline_source.grounding_facts.add(fact_text="Paris is the capital of France.")
    call = Call(STREAM, request, "rest")
    plain = list(Switchboard().steps(call))
    paced = list(Switchboard(pacing=Pacing(piece_chars=3, piece_delay_seconds=0.01)).steps(call))

    def text(steps: list[Any]) -> list[str]:
        return [step.response.candidates[0].content.parts[0].text for step in steps]

    assert "".join(text(paced)) == "".join(text(plain))
    assert all(len(piece) == 3 for piece in text(paced)[:-1])
    assert [step.delay_seconds for step in paced][:2] == [0.0, 0.01]
    last: Any = paced[-1]
    assert last.response.candidates[0].HasField("grounding_metadata")
