"""Short answers that name a country or body by another of its common forms than the facts do.

A multi-hop QA answer is often a span of the knowledge but sometimes another form of it: the
knowledge says ``the USA`` and the answer ``United States``. Examples are made up.
"""

from __future__ import annotations

from groundwire.emulator.engine import Fact, check_grounding
from groundwire.emulator.engine.check_required import needs_check
from groundwire.emulator.engine.text import word_terms


def support(answer: str, fact: str) -> float:
    score = check_grounding(answer, [Fact(fact)]).support_score
    return 0.0 if score is None else score


def test_a_capitalised_acronym_reads_as_the_full_name_it_stands_for() -> None:
    full = word_terms("United") + word_terms("States")
    assert word_terms("US") == word_terms("USA") == word_terms("U.S.") == full
    assert word_terms("UK") == word_terms("United") + word_terms("Kingdom")


def test_an_acronym_in_the_facts_supports_the_full_name_in_the_answer_and_back() -> None:
    fact = "In 1994 she moved to the USA, where she opened a studio in Toledo."
    assert support("United States", fact) > support("Canada", fact)
    assert support("United States", fact) >= 0.9
    fact = "Idris Kalloway served as a translator at the United Nations for eleven years."
    assert support("UN", fact) >= 0.9 > support("NATO", fact)


def test_a_common_one_word_alias_reads_as_the_country_it_names() -> None:
    fact = "He played for the national team of Britain at two Olympic Games."
    assert support("United Kingdom", fact) >= 0.9 > support("Ireland", fact)


def test_the_pronoun_us_is_no_acronym_case_matters() -> None:
    assert word_terms("us") != word_terms("US")
    assert support("US", "Let us go to the market, said Tom.") < 0.5
    assert needs_check("US")
    assert not needs_check("us")


def test_a_wrong_country_written_as_an_acronym_is_still_unsupported() -> None:
    fact = "The accord was drafted by envoys of the United Kingdom and Norway."
    assert support("UK", fact) > support("EU", fact)
    assert support("UK", fact) > support("UAE", fact)
