"""Planning a split check: answer parts and fact pieces within the limits, the calls counted."""

from __future__ import annotations

import pytest

from groundwire.contract.errors import InvalidArgument
from groundwire.contract.validation import count_tokens
from groundwire.features.split import answer_parts, fact_pieces, plan_split


def test_answer_parts_end_at_sentences_and_stay_within_4096_tokens() -> None:
    answer = "Tokyo is big. 東京は大きい。" * 1_000
    parts = answer_parts(answer, "v1")
    assert len(parts) > 1
    for part in parts:
        assert count_tokens(part.text) <= 4_096
        assert part.text.endswith(("。", "big."))
        assert answer[part.offsets.start : part.offsets.end] == part.text
        assert (
            answer.encode()[part.offsets.start_byte : part.offsets.end_byte].decode() == part.text
        )


def test_v1alpha_parts_stay_within_1024_characters_spaces_included() -> None:
    parts = answer_parts("Four words make this. " * 200, "v1alpha")
    assert all(len(part.text) <= 1_024 for part in parts)
    assert all(part.text.endswith(".") for part in parts)


def test_a_sentence_past_the_limit_is_cut_at_a_space() -> None:
    answer = "word " * 500 + "end."
    parts = answer_parts(answer, "v1alpha")
    assert [len(p.text) for p in parts] == [1_019, 1_019, 464]
    assert all(not p.text.startswith(" ") and not p.text.endswith(" ") for p in parts)


def test_a_long_fact_is_cut_at_paragraphs_then_sentences_keeping_its_attributes() -> None:
    paragraph = "A sentence of evidence. " * 300  # 7,200 characters
    fact = (paragraph + "\n\n" + "x" * 9_990 + ". " + "One more sentence.", {"author": "me"})
    pieces = fact_pieces(fact, 7)
    assert [(p.start, p.end) for p in pieces] == [(0, 7_202), (7_202, 17_193), (17_193, 17_212)]
    assert all(p.fact_index == 7 and p.attributes == {"author": "me"} for p in pieces)
    assert "".join(p.text for p in pieces) == fact[0]


def test_fact_lists_are_grouped_by_200_and_calls_are_parts_times_groups() -> None:
    plan = plan_split("Short answer.", [f"fact {i}" for i in range(401)], "v1")
    assert [len(group) for group in plan.fact_groups] == [200, 200, 1]
    assert plan.calls == 3
    assert plan.fact_groups[2][0].fact_index == 400


def test_a_split_past_max_calls_is_refused_naming_the_calls_needed() -> None:
    with pytest.raises(InvalidArgument, match="needs 3 calls, more than max_calls=2"):
        plan_split("Short answer.", ["f"] * 401, "v1", max_calls=2)


def test_a_blank_answer_is_one_call_sent_as_it_is() -> None:
    plan = plan_split("  ", ["a fact"], "v1")
    assert [part.text for part in plan.parts] == ["  "]
    assert plan.calls == 1
