"""Each kind of failure found on real LLM answers, stated as the rule the engine now follows.

The kinds are those of issue 13: faithful text judged too strictly, pronouns and names,
evidence spread across a document, formats of one value, list markers and layout, invented
relations between real entities, and lead-ins. Examples are made up; each rule is shown with
a supported case and, where it could be abused, an unsupported one.
"""

from __future__ import annotations

from groundwire.emulator.engine import Claim, Fact, check_grounding


def check(answer: str, *facts: str) -> list[Claim]:
    return list(check_grounding(answer, [Fact(text) for text in facts]).claims)


def grounded(answer: str, *facts: str) -> bool:
    checked = [claim for claim in check(answer, *facts) if claim.check_required]
    return bool(checked) and all(claim.grounded for claim in checked)


# Layout: list markers, bullets, Markdown and notes on sources are no content.


def test_a_numbered_step_scores_as_the_bare_step() -> None:
    fact = "Connect your phone to the charger and wait for the light to turn green."
    (numbered,) = check("1. Connect your phone to the charger and wait for the light.", fact)
    (bare,) = check("Connect your phone to the charger and wait for the light.", fact)
    assert numbered.score == bare.score and numbered.grounded


def test_bullets_headings_and_bold_are_not_content() -> None:
    fact = "The museum is closed on Mondays."
    assert grounded("- **The museum** is closed on Mondays.", fact)
    assert grounded("## The museum is closed on Mondays", fact)
    assert grounded("Step 2: The museum is closed on Mondays.", fact)


def test_a_list_marker_in_a_scraped_fact_is_no_number_of_its_claim() -> None:
    assert grounded("Serve the soup with rice.", "4  Serve the soup with rice.")


def test_notes_on_which_passage_said_it_are_not_content() -> None:
    fact = "Broccoli is rich in potassium, which supports the nervous system."
    assert grounded("Broccoli is rich in potassium (Passage 3).", fact)
    assert grounded("According to passage 1, broccoli is rich in potassium [1].", fact)


def test_a_list_marker_does_not_hide_a_wrong_number() -> None:
    assert not grounded("2. Let it simmer for 50 minutes.", "Let it simmer for 5 minutes.")


# Formats of one value: times, dates, numbers, units.


def test_times_in_twelve_and_twenty_four_hour_forms_are_one_value() -> None:
    fact = "hours Tuesday: 17:0-21:0"
    assert grounded("On Tuesday it is open from 5pm to 9pm.", fact)
    assert grounded("On Tuesday it is open from 5 p.m. to 9 P.M.", "hours Tuesday: 17:00-21:00")
    assert grounded("On Saturday it opens at noon.", "hours Saturday: 12:0-23:0")


def test_a_different_time_is_not_supported() -> None:
    assert not grounded("On Tuesday it is open from 6pm to 9pm.", "hours Tuesday: 17:0-21:0")


def test_a_written_date_matches_an_iso_date_and_a_number_word_its_digits() -> None:
    assert grounded(
        "The review of June 2, 2021 gave four stars.", "Review (4.0 stars, 2021-06-02): Good."
    )


def test_dotted_abbreviations_match_their_undotted_form() -> None:
    assert grounded(
        "She was one of six PhD students awarded the grant.",
        "She was one of six Ph.D. students who were awarded the grant.",
    )


# Lead-ins and remarks on the sources need no check.


def test_a_lead_in_to_a_list_needs_no_check() -> None:
    (lead_in,) = check(
        "Based on these passages, to bake hard-boiled eggs, follow these steps:",
        "Bake the eggs at 325 degrees for 30 minutes.",
    )
    assert not lead_in.check_required


def test_saying_the_sources_are_silent_needs_no_check() -> None:
    facts = ("The tower is 330 metres tall.",)
    assert not check("Passage 2 does not mention the cost of tickets.", *facts)[0].check_required
    assert not check("Unable to answer based on the given passages.", *facts)[0].check_required


def test_a_remark_on_the_sources_that_also_states_a_fact_is_checked() -> None:
    (claim,) = check("The passages do not mention the cost, but it opened in 1889.", "X.")
    assert claim.check_required


def test_not_just_is_no_negation() -> None:
    assert grounded(
        "The cost includes not just tuition, but also books and fees.",
        "The cost of attendance is more than just your tuition: it includes books and fees.",
    )
