"""Reading inputs: flags, fact files, and JSON on stdin, with one-line errors for bad input."""

from __future__ import annotations

import io
from collections.abc import Sequence

import pytest

from groundwire.cli.errors import InputError
from groundwire.cli.io import (
    ANSWER_KEYS,
    GroundingInput,
    InputFlags,
    gather_input,
    grounding_input_from_json,
    parse_fact_file,
    parse_labels,
)


def flags(
    *,
    text: str | None = None,
    text_file: str | None = None,
    facts: Sequence[str] = (),
    fact_files: Sequence[str] = (),
    citation_threshold: float | None = None,
) -> InputFlags:
    return InputFlags(text, text_file, facts, fact_files, citation_threshold)


def stdin_of(text: str, *, tty: bool = False) -> io.TextIOWrapper:
    stream = io.TextIOWrapper(io.BytesIO(text.encode()), encoding="utf-8")
    stream.isatty = lambda: tty  # type: ignore[method-assign]
    return stream


def test_a_fact_file_holds_one_fact_per_paragraph() -> None:
    text = "Tokyo is the capital of Japan.\n\nParis is\nin France.\n  \n\nLast one.\n"
    assert parse_fact_file(text, "facts.txt") == [
        "Tokyo is the capital of Japan.",
        "Paris is\nin France.",
        "Last one.",
    ]


def test_a_fact_file_may_be_a_json_list_of_texts_objects_and_pairs() -> None:
    text = '["A.", {"text": "B.", "attributes": {"author": "x"}}, ["C.", {"title": "t"}]]'
    assert parse_fact_file(text, "facts.json") == [
        "A.",
        {"text": "B.", "attributes": {"author": "x"}},
        ("C.", {"title": "t"}),
    ]


def test_a_json_fact_file_with_a_number_names_the_bad_fact() -> None:
    with pytest.raises(InputError, match=r"facts.json\[1\]: expected text"):
        parse_fact_file('["A.", 3]', "facts.json")


def test_flags_give_the_answer_and_facts() -> None:
    grounding = gather_input(
        flags(text="東京です。", facts=["東京は首都。"], citation_threshold=0.7),
        None,
        ANSWER_KEYS,
        "answer",
    )
    assert grounding == GroundingInput("東京です。", ["東京は首都。"], 0.7)


def test_stdin_json_is_read_when_no_answer_flag_is_given() -> None:
    stdin = stdin_of(
        '{"answer_candidate": "Hi.", "facts": ["Hi there."], "citation_threshold": 0.4}'
    )
    grounding = gather_input(flags(facts=["Extra."]), stdin, ANSWER_KEYS, "answer")
    assert grounding == GroundingInput("Hi.", ["Hi there.", "Extra."], 0.4)


def test_a_threshold_flag_wins_over_the_one_in_stdin_json() -> None:
    stdin = stdin_of('{"answer": "Hi.", "facts": [], "citation_threshold": 0.4}')
    grounding = gather_input(flags(citation_threshold=0.9), stdin, ANSWER_KEYS, "answer")
    assert grounding.citation_threshold == 0.9


def test_a_terminal_on_stdin_and_no_answer_flag_is_an_input_error() -> None:
    with pytest.raises(InputError, match="no answer: pass --answer"):
        gather_input(flags(), stdin_of("", tty=True), ANSWER_KEYS, "answer")


def test_stdin_that_is_not_json_says_where_it_broke() -> None:
    with pytest.raises(InputError, match=r"stdin: not valid JSON: .*line 1 column 1"):
        gather_input(flags(), stdin_of("answer: hi"), ANSWER_KEYS, "answer")


def test_a_json_document_without_facts_is_rejected() -> None:
    with pytest.raises(InputError, match="missing 'facts'"):
        grounding_input_from_json({"answer": "Hi."}, ANSWER_KEYS, "line 3")


def test_a_threshold_must_be_a_number() -> None:
    with pytest.raises(InputError, match="citation_threshold: expected a number"):
        grounding_input_from_json(
            {"answer": "Hi.", "facts": [], "citation_threshold": "hi"}, ANSWER_KEYS, "stdin"
        )


def test_an_answer_file_that_is_missing_is_an_input_error() -> None:
    with pytest.raises(InputError, match="No such file"):
        gather_input(flags(text_file="/nonexistent/answer.txt"), None, ANSWER_KEYS, "answer")


def test_characters_count_the_text_and_every_fact_text() -> None:
    grounding = GroundingInput("東京", ["ab", ("cde", {}), {"text": "f"}])
    assert grounding.characters == 2 + 2 + 3 + 1


def test_labels_are_key_value_pairs() -> None:
    assert parse_labels(["team=search", "note=a=b"]) == {"team": "search", "note": "a=b"}
    with pytest.raises(InputError, match="expected KEY=VALUE"):
        parse_labels(["team"])


def test_fact_attributes_must_be_text() -> None:
    with pytest.raises(InputError, match=r"facts\[0\].attributes: expected an object of text"):
        grounding_input_from_json(
            {"answer": "Hi.", "facts": [{"text": "Hi.", "attributes": {"year": 1999}}]},
            ANSWER_KEYS,
            "stdin",
        )
