"""The quality bar, measured on the hand-labelled development cases (never on the held-out set)."""

from __future__ import annotations

import hashlib
import importlib.util
import json
from pathlib import Path
from types import ModuleType

QUALITY = Path(__file__).resolve().parents[3] / "bench" / "quality"


def load_evaluate() -> ModuleType:
    spec = importlib.util.spec_from_file_location("evaluate", QUALITY / "evaluate.py")
    assert spec is not None and spec.loader is not None
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
