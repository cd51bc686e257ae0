"""How an answer is cut into claims, and which claims need a check."""

from __future__ import annotations

from itertools import pairwise

import pytest

from groundwire.emulator.engine import Fact, check_grounding, split_claims

FACTS = [Fact("The Eiffel Tower is 330 metres tall. It was completed in 1889.")]


def claim_texts(answer: str) -> list[str]:
    return [claim.text for claim in check_grounding(answer, FACTS).claims]


def test_every_sentence_of_the_answer_is_a_claim_in_order() -> None:
    answer = "Hi there! The Eiffel Tower is 330 metres tall. It was completed in 1889."
    assert claim_texts(answer) == [
        "Hi there!",
        "The Eiffel Tower is 330 metres tall.",
        "It was completed in 1889.",
    ]


def test_claim_text_is_exactly_the_byte_slice_of_the_answer_for_multibyte_text() -> None:
    answer = "Café ☕ opened in 1887. 東京は日本の首都です。Zoë́ said hi 👋🏽! Ünïcödé ok."
    encoded = answer.encode()
    claims = check_grounding(answer, FACTS).claims
    assert len(claims) == 4
    for claim in claims:
        assert encoded[claim.start_byte : claim.end_byte].decode() == claim.text
    starts = [claim.start_byte for claim in claims]
    assert starts == sorted(starts)
    assert claims[1].text == "東京は日本の首都です。"


def test_split_claims_gives_utf8_byte_spans_that_skip_only_whitespace() -> None:
    answer = "Zürich is big.  東京は大きい。\nOK!"
    spans = split_claims(answer)
    assert spans == [(0, 15), (17, 38), (39, 42)]
    between = [answer.encode()[end:start] for (_, end), (start, _) in pairwise(spans)]
    assert all(gap.strip() == b"" for gap in between)


def test_abbreviations_initials_and_decimals_do_not_end_a_claim() -> None:
    answer = "Dr. J. K. Smith paid $3.50 in the U.S. on Tuesday. It was cheap."
    assert claim_texts(answer) == [
        "Dr. J. K. Smith paid $3.50 in the U.S. on Tuesday.",
        "It was cheap.",
    ]


def test_a_unit_letter_after_a_number_ends_a_claim() -> None:
    answer = "Heat the oven to 425° F. Combine the flour and salt. Bake at 350 F. Serve warm."
    assert claim_texts(answer) == [
        "Heat the oven to 425° F.",
        "Combine the flour and salt.",
        "Bake at 350 F.",
        "Serve warm.",
    ]


def test_each_line_of_a_list_is_a_claim() -> None:
    answer = "Here is what I found:\n- The tower is 330 metres tall.\n- It opened in 1889."
    assert claim_texts(answer) == [
        "Here is what I found:",
        "- The tower is 330 metres tall.",
        "- It opened in 1889.",
    ]


@pytest.mark.parametrize(
    "sentence",
    [
        "Let me check that for you.",
        "Hi there!",
        "Sure, here is what I found:",
        "How tall is the Eiffel Tower?",
        "I hope this helps.",
        "Great question!",
        "Feel free to ask if you have more questions.",
        "Bonjour !",
        "你好！",
    ],
)
def test_a_sentence_that_states_no_fact_needs_no_check(sentence: str) -> None:
    (claim,) = check_grounding(sentence, FACTS).claims
    assert (claim.check_required, claim.grounded, claim.citations, claim.score) == (
        False,
        False,
        (),
        0.0,
    )


def test_a_fact_after_an_agreement_word_still_needs_a_check() -> None:
    (claim,) = check_grounding("Sure, the Eiffel Tower is 330 metres tall.", FACTS).claims
    assert claim.check_required
    assert claim.grounded


def test_an_empty_answer_has_no_claims_and_no_support_score() -> None:
    result = check_grounding("  \n ", FACTS)
    assert result.claims == ()
    assert result.support_score is None
