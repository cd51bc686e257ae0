"""The shared offset cases (conformance/offsets.json) that every language's helper must pass."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from groundwire.contract.offsets import ClaimPosition, resolve_byte_spans

CASES_FILE = Path(__file__).resolve().parents[2] / "conformance" / "offsets.json"
CASES: list[dict[str, Any]] = json.loads(CASES_FILE.read_text(encoding="utf-8"))["cases"]


def utf16_index(text: str, codepoint_index: int) -> int:
    return len(text[:codepoint_index].encode("utf-16-le")) // 2


def utf8_index(text: str, codepoint_index: int) -> int:
    return len(text[:codepoint_index].encode("utf-8"))


@pytest.mark.parametrize("case", CASES, ids=[case["name"] for case in CASES])
def test_the_hand_written_units_describe_the_same_span(case: dict[str, Any]) -> None:
    text = case["text"]
    for expected in case["expected"]:
        start, end = expected["codePoints"]
        assert expected["utf16"] == [utf16_index(text, start), utf16_index(text, end)]
        assert expected["bytes"] == [utf8_index(text, start), utf8_index(text, end)]


@pytest.mark.parametrize("case", CASES, ids=[case["name"] for case in CASES])
def test_python_resolves_every_shared_case_as_written_by_hand(case: dict[str, Any]) -> None:
    text = case["text"]
    claims: list[ClaimPosition] = [(start, end, claim) for start, end, claim in case["claims"]]
    resolved = [
        {
            "codePoints": [span.start, span.end],
            "utf16": [span.start_utf16, span.end_utf16],
            "bytes": [utf8_index(text, span.start), utf8_index(text, span.end)],
            "adjusted": span.adjusted,
            "located": span.located,
        }
        for span in resolve_byte_spans(text, claims)
    ]
    assert resolved == case["expected"]


def test_the_shared_cases_cover_every_rule_of_the_policy() -> None:
    names = {case["name"] for case in CASES}
    for rule in (
        "ascii",
        "cjk",
        "emoji",
        "combining",
        "inside",
        "out_of_range",
        "missing",
        "zero",
        "reversed",
        "locate",
        "not_found",
    ):
        assert any(rule in name for name in names), rule


def test_the_polyglot_case_is_written_in_consistent_units() -> None:
    case = json.loads((CASES_FILE.parent / "grounding_case.json").read_text(encoding="utf-8"))
    answer = case["check"]["request"]["answerCandidate"]
    for claim in case["check"]["expected"]:
        start, end = claim["codePoints"]
        assert answer[start:end] == claim["text"]
        assert claim["utf16"] == [utf16_index(answer, start), utf16_index(answer, end)]
        assert claim["bytes"] == [utf8_index(answer, start), utf8_index(answer, end)]
