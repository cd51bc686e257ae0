"""When a claim is grounded, by what, and how strongly: the rules of CheckGrounding."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise

import pytest

from groundwire.emulator.engine import Claim, Fact, check_grounding
from groundwire.emulator.engine.rules import rule_weight


def check(claim: str, *facts: str | Fact, threshold: float = 0.6) -> Claim:
    given = [fact if isinstance(fact, Fact) else Fact(fact) for fact in facts]
    (result,) = check_grounding(claim, given, citation_threshold=threshold).claims
    return result


def cited(claim: Claim) -> list[int]:
    return [citation.fact_index for citation in claim.citations]


def test_a_claim_stated_by_a_fact_is_grounded_and_cites_it() -> None:
    claim = check(
        "Rome was founded in 753 BC.",
        "Paris is in France.",
        "According to legend, Romulus founded Rome in 753 BC.",
    )
    assert claim.grounded
    assert cited(claim) == [1]
    assert claim.citations[0].text == "According to legend, Romulus founded Rome in 753 BC."


def test_paraphrase_with_synonyms_is_grounded() -> None:
    assert check(
        "Jupiter is the biggest planet in the Solar System.",
        "Jupiter is the fifth planet from the Sun and the largest in the Solar System.",
    ).grounded


def test_inflected_forms_match_plurals_ed_ing_and_s() -> None:
    assert check(
        "The satellites orbit the planet every 90 minutes.",
        "Each satellite orbited the planet once every 90 minutes.",
    ).grounded
    assert check(
        "The children were playing in the park.", "Several children played football in the park."
    ).grounded


def test_number_words_and_digits_are_the_same_number() -> None:
    assert check("The team won eleven games.", "The team won 11 games.").grounded
    assert check(
        "The building has 102 floors.", "The building has one hundred and two floors."
    ).grounded
    assert check(
        "The city has 2.1 million residents.", "The city has 2,100,000 residents."
    ).grounded


def test_a_year_is_supported_by_a_full_date_in_that_year() -> None:
    assert check(
        "Titanic was released in 1997.", "Titanic was released on December 19, 1997."
    ).grounded


def test_a_date_more_specific_than_the_fact_is_not_grounded() -> None:
    assert not check(
        "Titanic was released on December 19, 1997.", "Titanic was released in 1997."
    ).grounded


def test_iso_dates_and_written_dates_match() -> None:
    assert check(
        "Armstrong walked on the Moon on July 20, 1969.",
        "On 1969-07-20, Armstrong walked on the Moon.",
    ).grounded


def test_a_negated_claim_is_not_grounded_by_the_positive_fact() -> None:
    assert not check(
        "The bridge is not open to pedestrians.", "The bridge is open to pedestrians and cyclists."
    ).grounded


def test_a_positive_claim_is_not_grounded_by_the_negated_fact() -> None:
    assert not check(
        "The drug is approved for children.",
        "The drug is not approved for use in children under 12.",
    ).grounded


def test_a_negated_claim_is_grounded_by_the_negated_fact() -> None:
    assert check(
        "The drug is not approved for children.",
        "The drug is not approved for use in children under 12.",
    ).grounded


def test_right_people_with_the_wrong_year_is_not_grounded_and_cites_nothing() -> None:
    claim = check(
        "Alexander Fleming discovered penicillin in 1938.",
        "Alexander Fleming discovered penicillin in 1928 in London.",
    )
    assert not claim.grounded
    assert claim.citations == ()
    assert claim.score < 0.6


def test_one_real_name_and_one_invented_name_is_not_grounded() -> None:
    assert not check(
        "The telephone was invented by Alexander Graham Bell and Thomas Edison.",
        "Alexander Graham Bell patented the telephone in 1876.",
    ).grounded


def test_a_claim_spanning_two_sentences_of_a_fact_cites_both_sentences() -> None:
    fact = "Turing was born in London in 1912. He died in Wilmslow in 1954. He liked running."
    claim = check("Turing was born in London and died in 1954.", fact)
    assert claim.grounded
    assert cited(claim) == [0]
    assert claim.citations[0].text == (
        "Turing was born in London in 1912. He died in Wilmslow in 1954."
    )


def test_two_facts_together_still_need_to_support_every_part() -> None:
    assert not check(
        "Python was created by Guido van Rossum and first released in 1989.",
        "Python is a programming language created by Guido van Rossum.",
        "The first version of Python was released in February 1991.",
    ).grounded


def test_fact_attributes_count_as_evidence() -> None:
    fact = Fact("The capital is Toronto.", {"author": "Wikipedia"})
    assert check("Wikipedia says the capital is Toronto.", fact).grounded
    assert not check(
        "The New York Times says the capital is Toronto.",
        Fact("The capital is Toronto.", {"author": "Wikipedia"}),
    ).grounded


def test_corroborate_style_title_and_uri_attributes_count_as_evidence() -> None:
    fact = Fact(
        "Adults need 7 or more hours of sleep per night.",
        {"title": "How Much Sleep Do I Need? | CDC", "uri": "https://www.cdc.gov/sleep"},
    )
    assert check("According to the CDC, adults need 7 hours of sleep.", fact).grounded


def test_words_common_to_every_fact_cannot_carry_a_claim() -> None:
    facts = [
        "The movie was released in 2019.",
        "The movie was filmed in New Zealand.",
        "The movie was a box office success.",
    ]
    assert not check("The movie won the Oscar for Best Picture.", *facts).grounded


def test_an_unrelated_claim_is_not_grounded() -> None:
    assert not check(
        "The Moon is made of cheese.", "The Moon is Earth's only natural satellite."
    ).grounded


def test_the_claim_score_is_high_for_full_support_and_low_for_none() -> None:
    full = check("The Eiffel Tower is 330 metres tall.", "The Eiffel Tower is 330 metres tall.")
    none = check("Bananas are yellow.", "The Eiffel Tower is 330 metres tall.")
    partial = check(
        "The Eiffel Tower is 330 metres tall and painted red.",
        "The Eiffel Tower is 330 metres tall.",
    )
    assert full.score == 1.0
    assert none.score == 0.0
    assert 0.0 < partial.score < full.score


def test_the_claim_score_does_not_depend_on_the_threshold() -> None:
    scores = {
        check(
            "Paris is the capital of France.", "Paris is the capital of France.", threshold=t
        ).score
        for t in (0.1, 0.6, 0.9)
    }
    assert len(scores) == 1


def test_citations_come_strongest_first() -> None:
    claim = check(
        "Mercury takes 88 days to orbit the Sun.",
        "Mercury orbits the Sun.",
        "Mercury takes 88 days to orbit the Sun.",
        "Mercury completes one orbit around the Sun every 88 days.",
        threshold=0.3,
    )
    scores = [citation.score for citation in claim.citations]
    assert cited(claim)[0] == 1
    assert scores == sorted(scores, reverse=True)


def _citations_by_threshold(answer: str, facts: Sequence[Fact]) -> list[set[tuple[int, int]]]:
    found = []
    for threshold in [step / 20 for step in range(21)]:
        result = check_grounding(answer, facts, citation_threshold=threshold)
        found.append(
            {
                (number, c.fact_index)
                for number, claim in enumerate(result.claims)
                for c in claim.citations
            }
        )
    return found


def test_raising_the_threshold_never_adds_a_citation() -> None:
    facts = [
        Fact("Mercury orbits the Sun every 88 days."),
        Fact("Mercury is the smallest planet."),
        Fact("Venus orbits the Sun every 225 days. It is the hottest planet."),
        Fact("Mercury has no moons and a thin atmosphere."),
    ]
    answer = (
        "Mercury orbits the Sun every 88 days and has no moons. Venus is the hottest "
        "planet. Mercury is small. Venus orbits the Sun every 88 days."
    )
    by_threshold = _citations_by_threshold(answer, facts)
    for lower, higher in pairwise(by_threshold):
        assert higher <= lower
    assert by_threshold[0] != by_threshold[-1]


def test_a_lower_threshold_gives_more_but_weaker_citations() -> None:
    facts = [
        "Mercury is a small rocky planet that orbits the Sun.",
        "Mercury is a planet that orbits the Sun.",
    ]
    strict = check("Mercury is a small rocky planet that orbits the Sun.", *facts, threshold=0.9)
    lenient = check("Mercury is a small rocky planet that orbits the Sun.", *facts, threshold=0.3)
    assert cited(strict) == [0]
    assert cited(lenient) == [0, 1]
    assert min(c.score for c in lenient.citations) < 0.9


def test_support_score_blends_the_mean_with_the_weakest_claim() -> None:
    facts = [Fact("The Eiffel Tower is 330 metres tall.")]
    result = check_grounding(
        "Hi! The Eiffel Tower is 330 metres tall. It is made of cheese.", facts
    )
    checked = [claim for claim in result.claims if claim.check_required]
    assert [claim.grounded for claim in checked] == [True, False]
    mean = checked[0].score / 2
    weakest = checked[1].score
    weight = rule_weight("weakest_claim")
    assert result.support_score == pytest.approx((1 - weight) * mean + weight * weakest, abs=1e-4)


def test_one_invented_sentence_pulls_a_long_answer_below_half_support() -> None:
    facts = [
        Fact(
            "The Lindqvist bridge opened in 1931. It spans the Orel river. "
            "It carries two railway tracks."
        )
    ]
    faithful = (
        "The Lindqvist bridge opened in 1931. It spans the Orel river. "
        "It carries two railway tracks."
    )
    invented = faithful + " Its designer, Marta Kowal, later won the Pritzker Prize."
    assert check_grounding(faithful, facts).support_score == 1.0
    with_invention = check_grounding(invented, facts).support_score
    assert with_invention is not None
    assert with_invention < 0.5


def test_two_invented_steps_pull_a_long_answer_below_half_support() -> None:
    steps = [
        "Rinse the rice in cold water.",
        "Soak the rice for twenty minutes.",
        "Drain the rice well.",
        "Melt the butter in a heavy pot.",
        "Toast the rice in the butter until golden.",
        "Pour in the hot stock.",
        "Add a pinch of salt.",
        "Cover the pot with a tight lid.",
        "Simmer the rice on low heat.",
        "Fluff the rice with a fork.",
    ]
    facts = [Fact(" ".join(steps))]
    invented = (
        " ".join(steps)
        + " Sprinkle smoked paprika over the rice. Garnish each bowl with toasted walnuts."
    )
    result = check_grounding(invented, facts)
    assert [claim.grounded for claim in result.claims[-2:]] == [False, False]
    assert result.support_score is not None
    assert result.support_score < 0.5


def test_support_score_is_none_when_no_claim_needs_a_check() -> None:
    result = check_grounding("Hello! Can I help?", [Fact("Paris is in France.")])
    assert result.support_score is None


def test_no_facts_means_nothing_is_grounded() -> None:
    result = check_grounding("Paris is the capital of France.", [])
    assert not result.claims[0].grounded
    assert result.support_score == 0.0


def test_a_threshold_outside_zero_to_one_is_rejected() -> None:
    with pytest.raises(ValueError, match="citation_threshold"):
        check_grounding(
            "Paris is in France.", [Fact("Paris is in France.")], citation_threshold=1.5
        )
