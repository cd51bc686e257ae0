"""Faithful wording an over-strict reading rejected, and the relations it must still reject.

Issue 13's first kind of failure (faithful text judged too strictly) came largely from words
read as more than they say: a determiner ``one`` read as the number 1, a year read as a count,
an opening verb read as a name or a month, a negation in a subordinate clause read as denying
the main one, function words and hedges read as content. Its sixth kind (invented relations
between real entities) includes comparisons the evidence never makes. Examples are made up.
"""

from __future__ import annotations

from groundwire.emulator.engine import Claim, Fact, check_grounding
from groundwire.emulator.engine.analysis import analyse, written_as_name
from groundwire.emulator.engine.index import build_index
from groundwire.emulator.engine.matching import ClaimMatcher
from groundwire.emulator.engine.text import content_terms


def check(answer: str, *facts: str) -> list[Claim]:
    return list(check_grounding(answer, [Fact(text) for text in facts]).claims)


def grounded(answer: str, *facts: str) -> bool:
    checked = [claim for claim in check(answer, *facts) if claim.check_required]
    return bool(checked) and all(claim.grounded for claim in checked)


# Numbers that are no quantities.


def test_one_written_alone_is_a_determiner_not_the_number_one() -> None:
    assert "1" not in content_terms("One reviewer waited for a table.")
    assert grounded(
        "One reviewer waited 45 minutes for a table.",
        "Review (2.0 stars): We waited 45 minutes for a table on a Tuesday.",
    )


def test_one_inside_a_written_number_is_still_counted() -> None:
    assert "101" in content_terms("one hundred and one dalmatians")
    assert "21" in content_terms("twenty-one days")
    assert not grounded("The museum has one hundred rooms.", "The museum has 200 rooms.")


def test_a_year_before_a_name_is_no_count_of_it() -> None:
    fact = "In 2012, a gunman opened fire in a cinema in Aurora, killing 12 people."
    assert grounded("The 2012 Aurora cinema shooting killed 12 people.", fact)
    assert grounded("In 2012, a gunman opened fire in an Aurora cinema.", fact)


def test_a_day_after_its_month_is_no_count_of_the_next_word() -> None:
    fact = (
        "Since March 26, the coalition has carried out 1,200 airstrikes, aiming to stop the rebels."
    )
    claim = (
        "The coalition has carried out 1,200 airstrikes since March 26, aiming to stop the rebels."
    )
    assert grounded(claim, fact)


def test_a_quantity_still_counts_what_follows_it() -> None:
    assert not grounded(
        "The vaccine requires three doses.", "The vaccine is given as two doses, three weeks apart."
    )


# Capitals that are no names, and months that are verbs.


def test_a_capital_after_a_list_number_or_a_colon_is_no_name() -> None:
    assert not written_as_name("1 Add the broth and lentils.", "add")
    assert not written_as_name("Tip: Apply the paste.", "apply")
    assert written_as_name("Then ask Alice.", "alic")


def test_an_opening_verb_that_a_scraped_list_capitalises_needs_no_match_as_a_name() -> None:
    facts = (
        "1 Add broth and lentils; bring to a boil.",
        "In a saucepan, heat the oil, stir in 1 cup of rice and cook until lightly brown.",
    )
    assert grounded("Add 1 cup of rice and cook until lightly brown.", *facts)


def test_an_opening_may_is_the_verb_not_the_month() -> None:
    assert "month:5" not in content_terms("May reduce the risk of cancer.")
    assert "month:5" in content_terms("May 2021 was wet.")
    assert "month:5" not in analyse("May reduce the risk of cancer.").terms
    assert grounded(
        "May improve liver health.", "Broccoli may improve liver health, studies suggest."
    )


def test_an_opening_imperative_is_no_party_to_a_swapped_relation() -> None:
    fact = "To find the address, open a Windows command prompt and then use ipconfig."
    assert grounded("Use the command prompt on a Windows machine to find the address.", fact)


# Negation stays in its clause.


def test_a_negation_in_a_subordinate_clause_does_not_deny_the_main_one() -> None:
    fact = (
        "The agency now approves certain medications, allowing pilots to keep flying "
        "until depression is no longer a factor."
    )
    assert grounded("The agency now approves certain medications for pilots.", fact)


def test_a_negation_in_the_main_clause_still_denies_it() -> None:
    fact = "The agency does not approve these medications, even when symptoms are mild."
    assert not grounded("The agency approves these medications.", fact)


# Function words and hedges are not content.


def test_note_and_hedging_adverbs_are_function_words() -> None:
    assert content_terms("It is important to note that bees usually swarm.") == content_terms(
        "It is important that bees swarm."
    )
    assert content_terms("Delays were due to rain.") == content_terms("Delays were to rain.")


def test_using_is_a_form_of_use() -> None:
    assert content_terms("using a brush") == content_terms("use a brush")


# Comparisons are relations: the evidence must compare too.


def test_a_comparison_the_evidence_never_makes_is_not_supported() -> None:
    fact = "Mule deer and white-tailed deer differ in ear size; mule deer have large ears."
    assert not grounded("Mule deer have larger ears than white-tailed deer.", fact)


def test_a_comparison_the_evidence_makes_is_supported() -> None:
    fact = "Mule deer have larger ears than white-tailed deer and a black-tipped tail."
    assert grounded("Mule deer have larger ears than white-tailed deer.", fact)


def test_more_than_a_number_is_a_bound_not_a_comparison() -> None:
    assert grounded("More than 500 fighters were killed.", "Over 500 fighters were killed.")


def test_rather_than_in_the_evidence_is_no_comparison() -> None:
    fact = "Mule deer have large ears, rather than the small ears of white-tailed deer."
    assert not grounded("Mule deer have larger ears than white-tailed deer.", fact)


# Values in words, and opposites by prefix.


def test_twice_is_the_number_two() -> None:
    assert "2" in content_terms("The ferry sails twice a week.")
    assert grounded("The ferry sails twice a week.", "The ferry sails two times a week.")
    assert not grounded("The ferry sails twice a week.", "The ferry sails three times a week.")


def test_an_un_form_contradicts_evidence_that_has_only_its_base() -> None:
    fact = "The sauce is always served thickened, with a little flour."
    assert not grounded("The sauce is always served unthickened, with a little flour.", fact)
    assert grounded("The sauce is always served thickened, with a little flour.", fact)


# Added details: a specific word no fact holds costs more than a common one.


def test_an_added_specific_word_costs_more_than_an_added_common_word() -> None:
    fact = "Stir the soup gently over a low heat for ten minutes before serving it."
    (common,) = check("Stir the soup gently over a low heat for ten minutes to help it.", fact)
    (specific,) = check("Stir the soup gently over a low heat for ten minutes with saffron.", fact)
    assert specific.score < common.score


def test_a_specific_word_the_facts_hold_costs_nothing() -> None:
    fact = "Stir the soup gently with saffron over a low heat for ten minutes."
    (claim,) = check("Stir the soup gently with saffron over a low heat for ten minutes.", fact)
    assert claim.score == 1.0


# A claim that names its source is checked against that source.


def test_a_claim_is_supported_by_the_passage_it_names() -> None:
    facts = (
        "Kale is rich in iron.",
        "Broccoli supports the heart.",
        "Broccoli improves liver health.",
    )
    assert grounded("Broccoli improves liver health (Passage 3).", *facts)
    assert not grounded("Broccoli improves liver health (Passage 2).", *facts)
    assert grounded("Broccoli improves liver health.", *facts)


def test_a_named_source_beyond_the_facts_changes_nothing() -> None:
    facts = ("Kale is rich in iron.", "Broccoli improves liver health.")
    assert grounded("Broccoli improves liver health [7].", *facts)
    assert grounded("Broccoli improves liver health (Passages 1 and 2).", *facts)


# Other values: a value is that of the word it belongs to.


def test_a_value_after_a_coordinator_belongs_to_the_word_after_it() -> None:
    fact = (
        "The ministry said 385 civilians had been killed and 342 wounded since March. "
        "The agency put the toll higher, with 648 killed and 2,191 injured in all."
    )
    claim = (
        "The ministry said 385 civilians had been killed and 342 wounded; the agency put it higher."
    )
    assert grounded(claim, fact)


def test_a_number_counts_the_noun_after_it_not_the_word_before() -> None:
    fact = (
        "Southwest led with the most award tickets, 11.9 million of them. "
        "The study ranked the five biggest US airlines."
    )
    claim = "Southwest offered the most award tickets among the five biggest US airlines."
    assert grounded(claim, fact)


def test_another_value_in_the_same_slot_still_contradicts() -> None:
    facts = ("Marie Curie was born in Warsaw.", "Pierre was born here. He met Marie in Paris.")
    assert not grounded("Marie Curie was born in Paris.", *facts)


# Names of several words.


def test_a_last_name_names_a_name_written_whole_in_some_fact() -> None:
    index = build_index(
        [
            Fact("Sheriff Stanley Glanz spoke first. On Monday, Glanz left."),
            Fact("The University of California, Riverside, and the Anschutz Campus admitted him."),
        ]
    )
    matcher = ClaimMatcher(analyse("Sheriff Stanley Glanz apologised."), index)
    assert matcher.named_by_last_word(("sheriff", "stanley", "glanz"))
    assert not matcher.named_by_last_word(("california", "anschutz", "campus"))


def test_a_last_name_two_names_share_names_neither() -> None:
    index = build_index(
        [Fact("In 1891 Marie Curie moved. Her husband Pierre Curie was born in Paris.")]
    )
    matcher = ClaimMatcher(analyse("Pierre Curie was born in Paris."), index)
    assert not matcher.named_by_last_word(("pierr", "curi"))


# Clock times: a bare hour takes the meridiem stated after it.


def test_a_bare_hour_takes_the_meridiem_after_it() -> None:
    fact = "hours Friday: 17:0-21:0"
    assert grounded("On Friday it is open from 5 to 9 pm.", fact)
    assert grounded("On Friday it is open 5-9pm.", fact)
    assert not grounded("On Friday it is open from 5 to 9 am.", fact)


def test_an_hour_of_the_morning_or_the_evening_is_a_clock_time() -> None:
    assert grounded("The market opens at 8 in the morning.", "The market opens at 8:00.")
    assert grounded("The bar closes at 11 at night.", "The bar closes at 23:00.")
    assert not grounded("The bar closes at 11 in the morning.", "The bar closes at 23:00.")


def test_a_range_of_bare_numbers_stays_numbers() -> None:
    assert "5" in content_terms("The house has 5 to 9 rooms.")


# A negative question leans either way; names between a number and its noun.


_RHETORICAL = (
    "The course was intense.",
    "Wouldn't the instructors have noticed her odd behavior during the course?",
)


def test_a_negative_question_in_the_facts_denies_nothing() -> None:
    assert grounded("The instructors would have noticed her odd behavior.", *_RHETORICAL)
    assert grounded("The instructors may not have noticed her odd behavior.", *_RHETORICAL)


def test_a_why_question_and_a_plain_negation_still_deny() -> None:
    for fact in (
        "Why didn't the instructors notice her odd behavior during the course?",
        "The instructors didn't notice her odd behavior during the course.",
    ):
        assert not grounded("The instructors noticed her odd behavior during the course.", fact)


def test_an_age_given_after_a_name_supports_the_same_age_written_before_a_noun() -> None:
    fact = (
        "A 35-year-old man was arrested on Friday near the harbour. Police said the remains "
        "found in the river belonged to Tomas Brel, 41, a fisherman from the town."
    )
    claim = (
        "A 35-year-old man was arrested on Friday after the remains of a {}-year-old "
        "fisherman, Tomas Brel, were found in the river."
    )
    assert check_grounding(claim.format(41), [Fact(fact)]).claims[0].grounded
    assert not check_grounding(claim.format(47), [Fact(fact)]).claims[0].grounded


def test_a_verb_of_saying_is_attribution_in_every_form() -> None:
    fact = [Fact("The two fires in Dalby were connected, police said on Monday.")]
    claim = "Fires broke out in Dalby, with police stating they were connected."
    assert check_grounding(claim, fact).claims[0].grounded


def test_a_currency_sign_is_no_slot_that_another_amount_fills() -> None:
    fact = [
        Fact(
            "The simplified method lets a taxpayer deduct $5 per square foot. "
            "With it, a taxpayer may claim up to $1,500 in all."
        )
    ]
    claim = "The simplified method lets a taxpayer claim up to ${}."
    assert check_grounding(claim.format("1,500"), fact).claims[0].grounded
    assert not check_grounding(claim.format("2,500"), fact).claims[0].grounded


def test_two_counts_what_the_facts_name_one_by_one() -> None:
    pair = "Fires broke out in Dalby on Sunday, one at the mill and another at the school."
    single = "A fire broke out in Dalby on Sunday at the mill, and other buildings were evacuated."
    names = "Anna Berg and Ole Lund opened the bakery in Dalby in 1998."

    def grounded(claim: str, fact: str) -> bool:
        return check_grounding(claim, [Fact(fact)]).claims[0].grounded

    assert grounded("Two fires broke out in Dalby on Sunday.", pair)
    assert grounded("Two people opened the bakery in Dalby in 1998.", names)
    assert not grounded("Three fires broke out in Dalby on Sunday.", pair)
    assert not grounded("Two fires broke out in Dalby on Sunday.", single)


def test_a_number_counts_the_noun_after_the_names_that_follow_it() -> None:
    claim = "Two Harbor City nurses were honoured for their work."
    opening = "The mayor of Harbor City spoke at the ceremony."
    assert grounded(claim, f"{opening} Two nurses were honoured for their work.")
    assert not grounded(claim, f"{opening} Three nurses were honoured for their work.")
