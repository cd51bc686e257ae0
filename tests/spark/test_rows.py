"""How a Spark row becomes a batch item and its outcome the result columns (no Spark needed)."""

from __future__ import annotations

import json
import pickle
from typing import Any

import pytest

from groundwire.client.sync import GroundingClient
from groundwire.contract.errors import InvalidArgument, StatusCode, Unavailable
from groundwire.emulator import Emulator
from groundwire.features.batch import BatchOutcome
from groundwire.integrations.spark import (
    RESULT_SCHEMA,
    check_grounding_batches,
    outcome_row,
    result_columns,
    result_struct,
    row_item,
)

FACT = "Paris is the capital of France."


def test_facts_come_as_an_array_column_or_a_json_string_of_texts_or_facts() -> None:
    from_array = row_item("Paris is in France.", (FACT,), 3)  # Spark gives a numpy array
    from_json = row_item("Paris is in France.", f'["{FACT}"]', 3)
    assert from_array == from_json == {"answer": "Paris is in France.", "facts": [FACT], "id": 3}
    fact = {"fact_text": FACT, "attributes": {"source": "atlas"}}
    assert row_item("Paris.", json.dumps([fact]))["facts"] == [fact]


@pytest.mark.parametrize(
    ("answer", "facts", "problem"),
    [
        (None, [FACT], "answer is null"),
        (42, [FACT], "answer is int"),
        ("Paris.", None, "facts is null"),
        ("Paris.", "[not json", "facts is not JSON"),
        ("Paris.", '{"fact_text": "x"}', "facts is dict"),
        ("Paris.", '"just text"', "facts is str"),
        ("Paris.", 7, "facts is int"),
    ],
)
def test_a_poison_row_is_refused_with_invalid_argument(
    answer: object, facts: object, problem: str
) -> None:
    with pytest.raises(InvalidArgument, match=problem):
        row_item(answer, facts)


def test_an_empty_answer_gets_the_one_rules_invalid_argument_and_the_others_are_answered(
    grounding_emulator: Emulator,
) -> None:
    from groundwire.integrations import spark

    options = {"project": "p", "location": "global", "endpoint": grounding_emulator.grpc_address}
    runner = spark._Runner("CheckGrounding", options, {})
    rows = runner.run(["", "Paris is the capital of France.", " \n"], [[FACT]] * 3)
    assert [(row["error_code"], row["attempts"]) for row in rows] == [
        ("INVALID_ARGUMENT", 0),
        (None, 1),
        ("INVALID_ARGUMENT", 0),
    ]
    assert rows[0]["error_message"] == rows[2]["error_message"] == "answer_candidate: is empty"


def test_an_error_outcome_fills_the_error_columns_and_leaves_the_result_null() -> None:
    row = outcome_row("CheckGrounding", BatchOutcome(0, None, Unavailable("down"), 3), [FACT])
    assert row == {
        "support_score": None,
        "claims": None,
        "citations": None,
        "attempts": 3,
        "error_code": StatusCode.UNAVAILABLE.name,
        "error_message": "down",
    }


def test_a_result_gives_claims_with_str_offsets_and_the_cited_facts(
    grounding_emulator: Emulator,
) -> None:
    answer = "Paris is the capital of France. Émile was born in 1901."
    facts = [FACT, "Émile was born in Lyon in 1901."]
    with grounding_emulator.client() as client:
        result = client.check_grounding(answer, facts=facts, enable_claim_level_score=True)
    row = outcome_row("CheckGrounding", BatchOutcome(0, result, None, 1), facts)
    assert row["support_score"] == pytest.approx(result.support_score, abs=1e-6)
    assert [claim["text"] for claim in row["claims"]] == [c.text for c in result.claims]
    for claim in row["claims"]:
        assert answer[claim["start"] : claim["end"]] == claim["text"]
        assert claim["score"] is not None
    cited = sorted({i for claim in row["claims"] for i in claim["citation_indices"]})
    assert cited, "the emulator cites the facts these claims restate"
    assert row["citations"] == [{"fact_index": i, "text": facts[i]} for i in cited]
    assert (row["attempts"], row["error_code"], row["error_message"]) == (1, None, None)


def test_a_citation_quotes_its_fact_whichever_text_key_the_fact_object_uses(
    grounding_emulator: Emulator,
) -> None:
    facts: list[dict[str, Any]] = [
        {"text": FACT, "attributes": {"source": "atlas"}},
        {"fact_text": FACT},
    ]
    with grounding_emulator.client() as client:
        result = client.check_grounding("Paris is the capital of France.", facts=facts)
    row = outcome_row("CheckGrounding", BatchOutcome(0, result, None, 1), facts)
    assert row["citations"], "the emulator cites the facts the claim restates"
    assert all(citation["text"] == FACT for citation in row["citations"])


def test_a_corroboration_names_its_score_column_after_its_own_score(
    grounding_emulator: Emulator,
) -> None:
    with grounding_emulator.client(location="us-central1") as client:
        result = client.corroborate_content("Paris is the capital of France.", facts=[FACT])
    row = outcome_row("CorroborateContent", BatchOutcome(0, result, None, 1), [FACT])
    assert list(row) == [name for name, _ in result_columns("CorroborateContent")]
    assert row["corroboration_score"] is not None
    assert row["citations"] == [{"fact_index": 0, "text": FACT}]


def test_the_schema_and_the_struct_name_the_same_fields() -> None:
    names = ["support_score", "claims", "citations", "attempts", "error_code", "error_message"]
    assert [name for name, _ in result_columns()] == names
    assert RESULT_SCHEMA.startswith("support_score double, claims array<struct<text: string")
    assert RESULT_SCHEMA.endswith(", error_code string, error_message string")
    assert result_struct() == f"struct<{', '.join(f'{n}: {t}' for n, t in result_columns())}>"


def test_wrong_options_fail_where_the_job_is_built() -> None:
    with pytest.raises(ValueError, match="api_version"):
        check_grounding_batches("my-project", api_version="v2")
    with pytest.raises(TypeError, match="enable_claim_level_score"):
        check_grounding_batches(
            "my-project", "us-central1", method="CorroborateContent", enable_claim_level_score=True
        )


def test_a_worker_makes_one_client_per_set_of_options_and_a_task_ships_none(
    grounding_emulator: Emulator,
) -> None:
    from groundwire.integrations import spark

    options = {"project": "p", "location": "global", "endpoint": grounding_emulator.grpc_address}
    runner = spark._Runner("CheckGrounding", options, {"concurrency": 4})
    shipped = pickle.loads(pickle.dumps(runner))  # what a task carries: options, no client
    assert not any(isinstance(value, GroundingClient) for value in vars(shipped).values())
    rows = shipped.run(["Paris is the capital of France.", None], [[FACT], [FACT]])
    assert [row["error_code"] for row in rows] == [None, "INVALID_ARGUMENT"]
    client = spark._client_for(options)
    assert spark._client_for(dict(options)) is client  # the same options: the same client
    assert spark._client_for({**options, "location": "us"}) is not client
