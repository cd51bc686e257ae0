"""Inputs Google would refuse are refused on the command line too, and an empty answer says why."""

from __future__ import annotations

import pytest

from groundwire.cli import main

FACT = ["--fact", "Paris is in France."]


@pytest.mark.parametrize(
    ("argv", "named"),
    [
        (["check", "--project", "My Project!", "--answer", "Hi."], "project 'My Project!'"),
        (["check", "--location", "mars", "--answer", "Hi."], "location 'mars'"),
        (["check", "--location", "Mars", "--answer", "Hi."], "location 'Mars'"),
        (["corroborate", "--location", "mars", "--content", "Hi."], "location 'mars'"),
        (["corroborate", "--location", "us", "--content", "Hi."], "location 'us'"),
    ],
    ids=["project", "location", "location-characters", "vertex-location", "vertex-multiregion"],
)
def test_a_project_or_location_google_would_refuse_exits_2(
    capsys: pytest.CaptureFixture[str], argv: list[str], named: str
) -> None:
    status = main([*argv, "--local", *FACT])
    [line] = capsys.readouterr().err.splitlines()
    assert status == 2
    assert line.startswith("groundwire: error: INVALID_ARGUMENT: ")
    assert named in line


def test_an_empty_answer_is_checked_and_says_why_it_has_no_score(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status = main(["check", "--local", "--answer", "", *FACT])
    out = capsys.readouterr().out
    assert status == 0
    [score_line] = [line for line in out.splitlines() if line.startswith("Support score")]
    assert score_line == "Support score n/a (the answer is empty: there is nothing to check)"
