"""The extractive answer generator and the grounding metadata it gives."""

from __future__ import annotations

import pytest

from groundwire.emulator.engine import NO_ANSWER, Fact, check_grounding, generate_answer

FACTS = [
    Fact("The Eiffel Tower is in Paris. It is 330 metres tall.", {"title": "Eiffel Tower"}),
    Fact("The Colosseum is in Rome. It could hold 50,000 spectators."),
    Fact("The Eiffel Tower was completed in 1889 for the World's Fair."),
]


def test_the_answer_is_built_from_the_most_relevant_fact_sentences() -> None:
    answer = generate_answer("When was the Eiffel Tower completed?", FACTS)
    assert answer.text.startswith("The Eiffel Tower was completed in 1889 for the World's Fair.")
    assert "Colosseum" not in answer.text


def test_the_same_question_and_facts_always_give_the_same_answer() -> None:
    first = generate_answer("How tall is the Eiffel Tower?", FACTS)
    assert all(generate_answer("How tall is the Eiffel Tower?", FACTS) == first for _ in range(3))


def test_each_support_cites_the_fact_its_sentence_came_from() -> None:
    answer = generate_answer("When was the Eiffel Tower completed?", FACTS, max_sentences=2)
    for support in answer.supports:
        source = next(i for i, fact in enumerate(FACTS) if support.claim_text in fact.text)
        assert source in support.fact_indices
        assert support.score == 1.0


def test_support_offsets_are_utf8_bytes_into_the_answer() -> None:
    facts = [Fact("Zürich ist die größte Stadt der Schweiz."), Fact("Zürich liegt am Zürichsee.")]
    answer = generate_answer("Was ist Zürich?", facts, max_sentences=2)
    encoded = answer.text.encode()
    assert len(answer.supports) == 2
    for support in answer.supports:
        assert encoded[support.start_byte : support.end_byte].decode() == support.claim_text


def test_the_generated_answer_is_grounded_in_its_facts() -> None:
    answer = generate_answer("Tell me about the Colosseum in Rome.", FACTS)
    result = check_grounding(answer.text, FACTS)
    assert all(claim.grounded for claim in result.claims if claim.check_required)


def test_max_sentences_limits_the_answer() -> None:
    answer = generate_answer("Eiffel Tower Paris Rome Colosseum", FACTS, max_sentences=1)
    assert len(answer.supports) == 1


def test_a_question_no_fact_touches_gets_the_no_answer_sentence_and_no_supports() -> None:
    answer = generate_answer("What is the boiling point of mercury?", FACTS)
    assert (answer.text, answer.supports) == (NO_ANSWER, ())


def test_max_sentences_below_one_is_rejected() -> None:
    with pytest.raises(ValueError, match="max_sentences"):
        generate_answer("Eiffel Tower?", FACTS, max_sentences=0)
