"""The quality bar, measured on the hand-labelled development cases (never on the held-out set)."""

from __future__ import annotations

import doctest
import hashlib
import importlib.util
import json
from pathlib import Path
from types import ModuleType

import pytest

QUALITY = Path(__file__).resolve().parents[3] / "bench" / "quality"


def load_evaluate() -> ModuleType:
    spec = importlib.util.spec_from_file_location("evaluate", QUALITY / "evaluate.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_balanced_accuracy_on_the_dev_cases_is_at_least_0_85() -> None:
    result = load_evaluate().evaluate(QUALITY / "cases_dev.jsonl")
    assert result["cases"] >= 100
    assert result["balanced_accuracy"] >= 0.85, result["failures"]


def test_the_held_out_cases_exist_and_are_many_enough() -> None:
    lines = (QUALITY / "cases_heldout.jsonl").read_text(encoding="utf-8").splitlines()
    cases = [json.loads(line) for line in lines if line.strip()]
    assert len(cases) >= 50
    assert {case["expected"] for case in cases} == {"grounded", "not_grounded", "no_check"}


def test_the_held_out_cases_are_unchanged_since_they_were_frozen() -> None:
    recorded = (QUALITY / "cases_heldout.sha256").read_text(encoding="utf-8").split()[0]
    digest = hashlib.sha256((QUALITY / "cases_heldout.jsonl").read_bytes()).hexdigest()
    assert digest == recorded


@pytest.mark.parametrize(
    "module_name",
    ["metrics", "responses", "scorers", "outside", "pairwise", "evaluate", "rule_worth"],
)
def test_the_quality_reports_docstring_examples_hold(module_name: str) -> None:
    module = importlib.import_module(f"bench.quality.{module_name}")
    assert doctest.testmod(module, optionflags=doctest.ELLIPSIS).failed == 0


def test_the_measure_part_is_about_a_third_of_sources_and_stable() -> None:
    from bench.quality.responses import in_measure_part

    chosen = [in_measure_part(str(source)) for source in range(3000)]
    assert 0.28 < sum(chosen) / len(chosen) < 0.39
    assert chosen == [in_measure_part(str(source)) for source in range(3000)]


def test_data_to_text_records_flatten_to_key_value_lines_with_nested_keys_joined() -> None:
    from bench.quality.responses import data_to_text_facts

    facts = data_to_text_facts(
        {"name": "Casa", "hours": {"Tuesday": "17:0-21:0"}},
        [{"stars": 4.0, "date": "2021-06-02", "text": "Great tacos, slow service."}],
    )
    assert facts == (
        "name: Casa\nhours Tuesday: 17:0-21:0",
        "Review (4.0 stars, 2021-06-02): Great tacos, slow service.",
    )


def test_the_written_pairwise_cases_are_many_and_hold_every_kind_of_hallucination() -> None:
    from bench.quality.pairwise import read_triples

    triples = read_triples()
    assert len(triples) >= 40
    assert {t.kind for t in triples} == {
        "role",
        "absent",
        "number",
        "date",
        "swap",
        "extra",
        "alias",
        "form",
        "qualifier",
    }
    assert all(t.right != t.hallucinated and t.knowledge for t in triples)
    assert len({t.id for t in triples}) == len(triples)
