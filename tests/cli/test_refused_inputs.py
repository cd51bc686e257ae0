"""Inputs Google would refuse are refused on the command line too, an empty text among them."""

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


@pytest.mark.parametrize(
    ("argv", "field"),
    [
        (["check", "--answer", "", *FACT], "answer_candidate"),
        (["check", "--answer", " \n", *FACT], "answer_candidate"),
        (["corroborate", "--content", "", *FACT], "content"),
        (["generate", ""], "contents[0]"),
        (["generate", "--stream", "  "], "contents[0]"),
    ],
    ids=["check", "check-blank", "corroborate", "generate", "generate-stream"],
)
def test_an_empty_text_exits_2_with_one_line_naming_its_field(
    capsys: pytest.CaptureFixture[str], argv: list[str], field: str
) -> None:
    status = main([*argv, "--local"])
    captured = capsys.readouterr()
    [line] = captured.err.splitlines()
    assert status == 2
    assert line == f"groundwire: error: INVALID_ARGUMENT: {field}: is empty"
    assert captured.out == ""
