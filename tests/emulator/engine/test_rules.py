"""The rule table: each rule does what its row says, the docs show it, a judge replaces it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from groundwire.emulator.engine import BatchJudge, Claim, Fact, check_grounding
from groundwire.emulator.engine.rules import RULES, rule_table, rules_off

ROOT = Path(__file__).resolve().parents[3]


def score(claim: str, fact: str) -> float:
    (result,) = check_grounding(claim, [Fact(fact)]).claims
    return result.score


def test_every_rule_names_a_test_that_exists() -> None:
    for rule in RULES:
        path, name = rule.test.split("::")
        assert f"def {name}(" in (ROOT / path).read_text(encoding="utf-8"), rule.name


def test_the_docs_show_the_rule_table_as_the_registry_renders_it() -> None:
    assert rule_table() in (ROOT / "docs" / "engine.md").read_text(encoding="utf-8")


def test_a_claims_score_is_the_share_of_its_words_one_window_holds() -> None:
    assert score("Rome has old walls.", "Rome has old towers.") == 0.6667
    assert score("Rome has old walls.", "Rome has towers. Paris has old walls.") == 1.0
    far_apart = "Rome has towers. " + "Gulls nest here. " * 150 + "Paris has old walls."
    assert score("Rome has old walls.", far_apart) == 0.6667


def test_numbers_weigh_more_than_words() -> None:
    assert score("Rome has 12 walls.", "Rome has 12 towers.") == 0.75
    with rules_off("numbers"):
        assert score("Rome has 12 walls.", "Rome has 12 towers.") == 0.6667


def test_words_meet_on_their_stems_not_on_their_first_letters() -> None:
    assert score("The organised team grew.", "The organized teams grew.") == 1.0
    assert score("Mathematics is taught.", "Mathematicians taught.") == 0.5


def test_a_number_that_differs_vetoes_the_window() -> None:
    assert score("The bridge opened in 1931.", "The bridge opened in 1932.") == 0.0
    assert score("The bridge opened in 1931.", "The bridge opened.") == 0.5
    with rules_off("number_differs"):
        assert score("The bridge opened in 1931.", "The bridge opened in 1932.") == 0.5


def test_a_flipped_negation_vetoes_the_window() -> None:
    assert score("The bridge is not open.", "The bridge is open.") == 0.5
    assert score("The bridge is not open.", "The bridge is not open.") == 1.0
    with rules_off("negation_flipped"):
        assert score("The bridge is not open.", "The bridge is open.") == 1.0


def test_a_name_no_fact_mentions_vetoes_the_claim() -> None:
    assert score("Rome was founded by Zorblax.", "Rome was founded by Romulus.") == 0.3333
    with rules_off("unknown_name"):
        assert score("Rome was founded by Zorblax.", "Rome was founded by Romulus.") == 0.6667


def test_the_support_score_blends_the_mean_with_the_weakest_claim() -> None:
    result = check_grounding("Rome is old. Zork is blue.", [Fact("Rome is old.")])
    assert [claim.score for claim in result.claims] == [1.0, 0.0]
    assert result.support_score == 0.05  # 0.1 * mean(1.0, 0) + 0.9 * 0.0


def test_the_same_request_gets_the_same_answer_whatever_the_hash_seed() -> None:
    program = (
        "from groundwire.emulator.engine import Fact, check_grounding\n"
        "facts = [Fact('Rome is old. Rome is big and not red. 東京は日本の首都です。'),"
        " Fact('Rome has 12 gates, 3 bridges and old walls.', {'title': 'Rome'})]\n"
        "print(check_grounding('Rome is big. Rome is not old. Rome has 3 gates and red walls.'"
        " ' 東京は首都です。', facts, citation_threshold=0.3))\n"
    )
    answers = set()
    for seed in ("0", "1", "2", "3"):
        run = subprocess.run(
            [sys.executable, "-c", program],
            env={**os.environ, "PYTHONHASHSEED": seed},
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
        )
        answers.add(run.stdout)
    assert len(answers) == 1


def marker_judge(calls: list[list[tuple[str, list[str]]]]) -> BatchJudge:
    """A judge that scores 1.0 a passage holding the word MARK, else 0.0, and records its calls."""

    def judge(batch: list[tuple[str, list[str]]]) -> list[list[float]]:
        calls.append(batch)
        return [
            [1.0 if "MARK" in passage else 0.0 for passage in passages] for _, passages in batch
        ]

    return judge


def checked(answer: str, facts: list[Fact], judge: BatchJudge) -> list[Claim]:
    return list(check_grounding(answer, facts, judge=judge).claims)


def test_citations_follow_the_judge_not_the_words() -> None:
    calls: list[list[tuple[str, list[str]]]] = []
    facts = [Fact("Rome is old."), Fact("Rome is old, says MARK.")]
    (claim,) = checked("Rome is old.", facts, marker_judge(calls))
    assert (claim.score, claim.grounded) == (1.0, True)
    assert [(c.fact_index, c.text) for c in claim.citations] == [(1, "Rome is old, says MARK.")]
    assert [len(call) for call in calls] == [1]


def test_a_veto_no_longer_applies_under_a_judge() -> None:
    facts = [Fact("Rome is old, says MARK.")]
    assert not check_grounding("Rome is not old.", facts).claims[0].grounded
    (claim,) = checked("Rome is not old.", facts, marker_judge([]))
    assert claim.grounded
    assert claim.score == 1.0


def test_the_judge_is_asked_once_and_never_about_a_claim_that_needs_no_check() -> None:
    calls: list[list[tuple[str, list[str]]]] = []
    answer = "Hi! Is Rome old? Rome is old. Rome is big. Zork glows."
    facts = [Fact("Rome is old. Rome is big.")]
    claims = checked(answer, facts, marker_judge(calls))
    assert calls == [[("Rome is old.", ["Rome is old."]), ("Rome is big.", ["Rome is big."])]]
    assert [c.check_required for c in claims] == [False, False, True, True, True]
    assert [c.score for c in claims] == [0.0, 0.0, 0.0, 0.0, 0.0]  # Zork: no window to judge
