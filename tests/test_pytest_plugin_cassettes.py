"""The pytest plugin replays `cassettes/<module>.jsonl` for the tests of a module that has one."""

from __future__ import annotations

import json
import textwrap

import pytest

from groundwire.contract.apis import method
from tests.support.inner_pytest import run_inner

pytest_plugins = ["pytester"]

CHECK = method("discoveryengine", "v1", "CheckGrounding")
CONFIG = "projects/emulator-project/locations/global/groundingConfigs/default_grounding_config"
TESTS = """
FACTS = ["Paris is in France."]

def test_recorded(grounding_client):
    answer = grounding_client.check_grounding("Paris is in France.", facts=FACTS)
    assert answer.support_score == 0.0625

def test_unrecorded(grounding_client):
    from groundwire.contract.errors import FailedPrecondition
    import pytest
    with pytest.raises(FailedPrecondition, match="closest recorded request is line 2"):
        grounding_client.check_grounding("Rome is in France.", facts=FACTS)
"""


def test_a_module_with_a_cassette_is_answered_from_it_and_one_without_by_the_engine(
    pytester: pytest.Pytester,
) -> None:
    exchange = {
        "method": CHECK.grpc_path.lstrip("/"),
        "request": {
            "groundingConfig": CONFIG,
            "answerCandidate": "Paris is in France.",
            "facts": [{"factText": "Paris is in France."}],
        },
        "response": {"supportScore": 0.0625},
    }
    cassettes = pytester.mkdir("cassettes")
    lines = [json.dumps({"groundwireCassette": 1}), json.dumps(exchange)]
    (cassettes / "test_recorded_module.jsonl").write_text("\n".join(lines) + "\n")
    pytester.makepyfile(
        test_recorded_module=textwrap.dedent(TESTS),
        test_engine_module=textwrap.dedent(
            """
            def test_engine(grounding_client):
                answer = grounding_client.check_grounding(
                    "Paris is in France.", facts=["Paris is in France."]
                )
                assert answer.support_score != 0.0625
            """
        ),
    )
    result = run_inner(pytester)
    result.assert_outcomes(passed=3)
