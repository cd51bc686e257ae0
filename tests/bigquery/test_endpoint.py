"""The BigQuery remote-function endpoint over real HTTP (uvicorn on loopback), on the emulator."""

from __future__ import annotations

import json
import logging
import re
from typing import Any

import pytest

from groundwire.contract.errors import ConfigurationError
from groundwire.emulator import Emulator
from groundwire.integrations.bigquery import create_app
from groundwire.integrations.pytest_plugin import GroundingStubs
from tests.bigquery.conftest import Endpoint, post, request, serving

pytestmark = pytest.mark.timeout(120)

FACT = "Paris is the capital of France."
THROTTLES_PER_ROW = 2


def answer_of(index: int) -> str:
    """Row `index`'s answer: every 25th is throttled by the stub, every 50th refused by it."""
    if index % 50 == 7:
        return f"Refused row {index}: Paris is in France."
    if index % 25 == 3:
        return f"Throttled row {index}: Paris is in France."
    return f"Row {index}: Paris is the capital of France. The moon is made of cheese."


def row_of(index: int) -> list[Any]:
    """Row `index`'s arguments; every 25th (from 11) is bad in a way of its own."""
    bad: list[list[Any]] = [
        ["", [FACT]],
        [f"Row {index}.", "not a JSON array"],
        [f"Row {index}."],
        [None, [FACT]],
    ]
    if index % 25 == 11:
        return bad[(index // 25) % len(bad)]
    facts: Any = [FACT] if index % 2 else json.dumps([FACT])  # an array, or a STRING of one
    return [answer_of(index), facts]


def assert_result_of(answer: str, reply: dict[str, Any]) -> None:
    """A check's reply: a score and claims whose `str` offsets slice the row's answer."""
    assert isinstance(reply["support_score"], float)
    assert reply["claims"], reply
    for claim in reply["claims"]:
        assert answer[claim["start"] : claim["end"]] == claim["text"]
    assert "answer_candidate" not in reply  # the table holds it already


def test_a_500_row_call_gets_500_replies_in_order_with_throttled_rows_retried(
    endpoint: Endpoint, grounding_stubs: GroundingStubs
) -> None:
    throttled_rows = [index for index in range(500) if index % 25 == 3]
    for index in throttled_rows:  # each throttled twice, then answered
        grounding_stubs.stub(
            "CheckGrounding",
            match={"answerCandidate": answer_of(index)},
            error={"code": "RESOURCE_EXHAUSTED", "message": "quota exceeded"},
            times=THROTTLES_PER_ROW,
        )
    grounding_stubs.stub(
        "CheckGrounding",
        match={"answerCandidate": {"regex": "^Refused"}},
        error={"code": "INVALID_ARGUMENT", "message": "refused by the service"},
    )
    url = endpoint(time_budget=90.0)
    rows = [row_of(index) for index in range(500)]

    response = post(url, request(rows))

    assert response.status_code == 200, response.text
    replies = response.json()["replies"]
    assert len(replies) == 500
    for index, reply in enumerate(replies):
        if index % 25 == 11:
            assert reply["error"]["code"] == "INVALID_ARGUMENT", (index, reply)
        elif index % 50 == 7:
            assert reply == {
                "error": {"code": "INVALID_ARGUMENT", "message": "refused by the service"}
            }
        else:
            assert "error" not in reply, (index, reply)
            assert_result_of(answer_of(index), reply)
    sent = grounding_stubs.requests("CheckGrounding")
    throttled_sent = [s for s in sent if s["request"]["answerCandidate"].startswith("Throttled")]
    assert len(throttled_sent) == len(throttled_rows) * (1 + THROTTLES_PER_ROW)  # retried


@pytest.mark.parametrize(("code", "status"), [("RESOURCE_EXHAUSTED", 429), ("UNAVAILABLE", 503)])
def test_a_call_still_throttled_when_its_time_is_up_answers_a_status_bigquery_retries(
    endpoint: Endpoint, grounding_stubs: GroundingStubs, code: str, status: int
) -> None:
    grounding_stubs.stub("CheckGrounding", error={"code": code, "message": "try later"})
    url = endpoint(time_budget=1.5)

    response = post(url, request([[f"Row {i}.", [FACT]] for i in range(20)]))

    assert response.status_code == status
    assert "replies" not in response.json()
    assert "20 of 20 rows still transient" in response.json()["errorMessage"]


def test_a_call_whose_rows_wait_behind_a_throttled_row_when_its_time_is_up_answers_429(
    endpoint: Endpoint, grounding_stubs: GroundingStubs
) -> None:
    # Row 0 is throttled, then slow: when the time is up the rows after it have no outcome
    # yet (a batch yields in order), but the batch saw the service throttle.
    grounding_stubs.stub(
        "CheckGrounding",
        match={"answerCandidate": "Row 0."},
        sequence=[
            {"error": {"code": "RESOURCE_EXHAUSTED", "message": "quota exceeded"}},
            {"response": {"supportScore": 0.5}, "delayMs": 5_000},
        ],
    )
    url = endpoint(time_budget=1.5)

    response = post(url, request([[f"Row {i}.", [FACT]] for i in range(20)]))

    assert response.status_code == 429, response.text
    assert "NOT_DONE_IN_TIME" in response.json()["errorMessage"]


def test_a_call_with_one_row_throttled_to_the_end_is_retried_whole(
    endpoint: Endpoint, grounding_stubs: GroundingStubs
) -> None:
    grounding_stubs.stub(
        "CheckGrounding",
        match={"answerCandidate": {"regex": "^Throttled"}},
        error={"code": "RESOURCE_EXHAUSTED", "message": "quota exceeded"},
    )
    url = endpoint(time_budget=1.5)

    response = post(url, request([["Row 0.", [FACT]], ["Throttled row.", [FACT]], ["", []]]))

    assert response.status_code == 429
    # The row's last attempt may or may not have come back before the budget ran out (a loaded
    # machine decides which), so it is counted as throttled or as not done; either way it is
    # the one transient row, and the call is answered 429 for BigQuery to resend whole.
    assert re.search(
        r"1 of 3 rows still transient \((RESOURCE_EXHAUSTED|NOT_DONE_IN_TIME): 1\)",
        response.json()["errorMessage"],
    )


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        (b"{not json", "not JSON"),
        (b"[1, 2]", "a JSON object"),
        (b'{"requestId": "r"}', "needs calls"),
        (b'{"calls": "abc"}', "needs calls"),
        (b'{"calls": [], "userDefinedContext": {"mode": "x"}}', "unknown userDefinedContext"),
        (b'{"calls": [], "userDefinedContext": {"method": "x"}}', "method must be one of"),
        (b'{"calls": [], "userDefinedContext": {"citation_threshold": "2"}}', "from 0 to 1"),
        (b'{"calls": [], "userDefinedContext": {"api_version": "v9"}}', "api_version must be"),
        (
            b'{"calls": [], "userDefinedContext": {"method": "corroborate", "claim_scores": "1"}}',
            "claim_scores is not an option",
        ),
    ],
)
def test_a_malformed_request_gets_a_final_400(endpoint: Endpoint, raw: bytes, message: str) -> None:
    response = post(endpoint(), None, raw=raw)

    assert response.status_code == 400
    assert message in response.json()["errorMessage"]


def test_an_oversized_body_gets_413_and_other_verbs_and_paths_are_refused(
    endpoint: Endpoint,
) -> None:
    url = endpoint(max_body_bytes=1_000)
    big = request([[f"Row {i}: Paris is in France.", [FACT]] for i in range(100)])

    assert post(url, big).status_code == 413
    assert post(url, request([["Paris.", [FACT]]])).status_code == 200
    import httpx

    with httpx.Client(timeout=30) as http:
        assert http.get(url).status_code == 405
        assert http.post(url + "other", json=request([])).status_code == 404


def test_an_empty_call_list_gets_no_replies(endpoint: Endpoint) -> None:
    response = post(endpoint(), request([]))

    assert response.status_code == 200
    assert response.json() == {"replies": []}


@pytest.mark.parametrize(
    ("context", "field"),
    [({}, "answer_candidate"), ({"method": "corroborate"}, "content")],
    ids=["check", "corroborate"],
)
def test_an_empty_answer_gets_the_one_rules_invalid_argument_and_the_other_rows_results(
    endpoint: Endpoint, context: dict[str, str], field: str
) -> None:
    rows = [["", [FACT]], ["Paris is the capital of France.", [FACT]], [" \n", [FACT]]]
    response = post(endpoint(), request(rows, context))

    assert response.status_code == 200
    empty, checked, blank = response.json()["replies"]
    refused = {"error": {"code": "INVALID_ARGUMENT", "message": f"{field}: is empty"}}
    assert empty == blank == refused
    assert "error" not in checked


def test_corroborate_is_chosen_by_user_defined_context(endpoint: Endpoint) -> None:
    answer = "Paris is the capital of France."
    response = post(endpoint(), request([[answer, [FACT]]], {"method": "corroborate"}))

    assert response.status_code == 200, response.text
    (reply,) = response.json()["replies"]
    assert reply["corroboration_score"] > 0.5
    assert reply["claims"][0]["fact_indexes"] == [0]
    assert answer[reply["claims"][0]["start"] : reply["claims"][0]["end"]]


def test_facts_as_a_json_string_or_an_array_of_objects_give_the_same_reply(
    endpoint: Endpoint,
) -> None:
    answer = "Goethe wrote Faust. Tokyo is in Japan."
    facts = [{"text": "Goethe wrote Faust.", "attributes": {"author": "a"}}, "Tokyo is in Japan."]
    url = endpoint()
    context = {"citation_threshold": "0.5", "claim_scores": "true"}

    as_array = post(url, request([[answer, facts]], context)).json()["replies"][0]
    as_string = post(url, request([[answer, json.dumps(facts)]], context)).json()["replies"][0]

    assert as_array == as_string
    assert [c["citations"][0]["fact_index"] for c in as_array["claims"]] == [0, 1]
    assert all(isinstance(claim["score"], float) for claim in as_array["claims"])  # claim scores


def test_a_row_past_the_api_limits_is_split_and_merged(
    endpoint: Endpoint, grounding_stubs: GroundingStubs
) -> None:
    long_fact = "Paris is the capital of France. " * 700  # 22,400 characters: three pieces
    answer = "Paris is the capital of France."

    response = post(endpoint(), request([[answer, [long_fact]], [answer, [FACT]]]))

    assert response.status_code == 200, response.text
    split, whole = response.json()["replies"]
    assert split["calls"] == 1  # three pieces of the fact, in one call
    assert_result_of(answer, split)
    assert "calls" not in whole
    sent = grounding_stubs.requests("CheckGrounding")
    assert sorted(len(s["request"]["facts"]) for s in sent) == [1, 3]


def test_a_long_answer_is_split_into_several_calls_and_merged(
    endpoint: Endpoint, grounding_stubs: GroundingStubs
) -> None:
    answer = " ".join(f"Sentence {i} says Paris is the capital of France." for i in range(60))

    response = post(endpoint(), request([[answer, [FACT]]], {"api_version": "v1alpha"}))

    assert response.status_code == 200, response.text
    (reply,) = response.json()["replies"]
    assert reply["calls"] == len(grounding_stubs.requests("CheckGrounding")) > 1
    assert_result_of(answer, reply)
    assert reply["claims"][-1]["end"] == len(answer)


def test_the_api_version_comes_from_user_defined_context(
    endpoint: Endpoint, grounding_stubs: GroundingStubs
) -> None:
    response = post(endpoint(), request([["Paris.", [FACT]]], {"api_version": "v1alpha"}))

    assert response.status_code == 200
    (sent,) = grounding_stubs.requests("CheckGrounding")
    assert sent["version"] == "v1alpha"


def test_rows_never_reach_the_logs(
    endpoint: Endpoint,
    grounding_stubs: GroundingStubs,
    caplog: pytest.LogCaptureFixture,
    capsys: pytest.CaptureFixture[str],
) -> None:
    secret = "Zanzibar-7731 is the password."
    grounding_stubs.stub(
        "CheckGrounding",
        match={"answerCandidate": {"regex": "^Refused"}},
        error={"code": "INVALID_ARGUMENT", "message": "no"},
    )
    caplog.set_level(logging.DEBUG)
    rows = [[secret, [secret]], ["Refused " + secret, [secret]], [secret, secret], ["", [secret]]]

    response = post(endpoint(), request(rows))

    assert response.status_code == 200
    assert (
        "BigQuery request 124ab1c: 4 rows (0 kept from before), 3 row errors" in caplog.text
    )  # it does log
    captured = capsys.readouterr()
    for text in (caplog.text, captured.out, captured.err):
        assert "Zanzibar" not in text


def test_a_given_client_serves_every_call_and_a_call_for_another_version_is_refused(
    grounding_test_emulator: Emulator,
) -> None:
    client = grounding_test_emulator.async_client(api_version="v1beta")
    app = create_app(client)
    with serving(app) as url:
        same = post(url, request([["Paris.", [FACT]]], {"api_version": "v1beta"}))
        other = post(url, request([["Paris.", [FACT]]], {"api_version": "v1"}))

    assert same.status_code == 200
    assert other.status_code == 400
    assert other.json() == {"errorMessage": "this endpoint calls API version v1beta, not v1"}


def test_an_app_needs_a_client_or_a_project() -> None:
    with pytest.raises(ConfigurationError, match="needs a client or a project"):
        create_app()
    with pytest.raises(ConfigurationError, match="time_budget must be positive"):
        create_app(project="p", time_budget=0)


def test_a_call_sent_again_runs_only_the_rows_still_missing(
    endpoint: Endpoint, grounding_stubs: GroundingStubs
) -> None:
    throttle = grounding_stubs.stub(
        "CheckGrounding",
        match={"answerCandidate": {"regex": "^Throttled"}},
        error={"code": "RESOURCE_EXHAUSTED", "message": "quota exceeded"},
    )
    url = endpoint(time_budget=1.5)
    rows = [["Row 0: Paris.", [FACT]], ["Throttled row.", [FACT]], ["", [FACT]]]

    first = post(url, request(rows))
    grounding_stubs.emulator.remove_stub(throttle["id"])
    sent_before = len(grounding_stubs.requests("CheckGrounding"))
    again = post(url, request(rows))

    assert first.status_code == 429
    assert again.status_code == 200, again.text
    done, throttled, refused = again.json()["replies"]
    assert done["claims"][0]["text"] == "Row 0: Paris."
    assert throttled["claims"][0]["text"] == "Throttled row."
    assert refused["error"]["code"] == "INVALID_ARGUMENT"
    sent_again = grounding_stubs.requests("CheckGrounding")[sent_before:]
    assert [s["request"]["answerCandidate"] for s in sent_again] == ["Throttled row."]
