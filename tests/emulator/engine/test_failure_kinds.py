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
    assert numbered.score == bare.score
    assert numbered.grounded


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


def test_units_and_signs_match_their_written_names() -> None:
    assert grounded("The trail is 5 kilometres long.", "The trail is 5 km long.")
    assert grounded("It was 20 degrees Celsius at noon.", "At noon it was 20 °C.")
    assert grounded("Turnout was 50 percent.", "Turnout was 50%.")
    assert not grounded("The trail is 5 miles long.", "The trail is 5 km long.")
    assert not grounded("The ride takes 3 days.", "The ride takes 3 hours.")
    assert grounded("The tank holds 5 litres.", "The tank holds 5 liters.")


def test_ordinals_and_number_words_match_their_digits() -> None:
    assert grounded("It was her 19th title.", "It was her nineteenth title.")
    assert grounded("The club has twenty-six members.", "The club has 26 members.")
    assert not grounded("The club has twenty-seven members.", "The club has 26 members.")


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


def test_none_of_the_sources_and_an_opening_however_still_say_the_sources_are_silent() -> None:
    facts = ("The tower is 330 metres tall.",)
    for remark in (
        "None of the passages mention the cost of tickets.",
        "However, the passages do not say when the tower opens.",
        "3. However, the passages do not say when the tower opens.",
    ):
        assert not check(remark, *facts)[0].check_required, remark


def test_a_remark_on_the_sources_that_also_states_a_fact_is_checked() -> None:
    (claim,) = check("The passages do not mention the cost, but it opened in 1889.", "X.")
    assert claim.check_required


def test_not_just_is_no_negation() -> None:
    assert grounded(
        "The cost includes not just tuition, but also books and fees.",
        "The cost of attendance is more than just your tuition: it includes books and fees.",
    )


# Pronouns and names: a pronoun subject stands for the most recent name of its fact.


def test_a_name_is_found_in_a_sentence_whose_pronoun_stands_for_it() -> None:
    fact = "In 1955 the club hired Smith. He led the team from 1958 to 1963."
    named = check("Smith led the team from 1958 to 1963.", fact)[0]
    pronoun = check("He led the team from 1958 to 1963.", fact)[0]
    assert named.grounded
    assert named.score == pronoun.score


def test_an_everyday_word_of_a_name_may_be_left_out_by_the_facts_but_a_name_may_not() -> None:
    fact = (
        "Two deputies who arrested a man in Marlow, Oklahoma, were reassigned on Monday "
        "after threats against their families."
    )
    assert grounded(
        "Two Marlow County deputies were reassigned on Monday after threats against their "
        "families.",
        fact,
    )
    assert not grounded(
        "Two Marlow Dalton deputies were reassigned on Monday after threats against their "
        "families.",
        fact,
    )


def test_a_surname_alone_stands_for_the_one_full_name_it_ended_before() -> None:
    filler = "Rain fell all morning. Crowds lined the road. Music played at the finish. "
    said = "Dale said the final hill was the hardest part."
    one = "On Sunday, Ann (Berg) Dale won the race in Oslo. " + filler + said
    two = "For years, Tom Dale and Eva Dale ran the shop in Oslo. " + filler + said
    assert grounded("After the race, Ann said the final hill was the hardest part.", one)
    assert not grounded("After the race, Tom said the final hill was the hardest part.", two)


def test_a_possessive_does_not_stand_for_the_earlier_name() -> None:
    fact = "Marie Curie was born in Warsaw. Her husband Pierre Curie was born in Paris."
    assert not grounded("Marie Curie was born in Paris.", fact)


def test_a_pronoun_stands_for_the_most_recent_name_not_an_earlier_one() -> None:
    fact = (
        "In 1955 Smith joined the club. The club grew quickly. Members came from far away. "
        "In 1957 Jones arrived. He led the team in 1960."
    )
    assert grounded("Jones led the team in 1960.", fact)
    assert not grounded("Smith led the team in 1960.", fact)


def test_a_definite_description_stands_for_the_name_said_before_it() -> None:
    fact = (
        "Harbor Mills opened a plant near the river in 2010. The river was low that year. "
        "The town was glad of the work. The company hired 300 workers in 2012."
    )
    assert grounded("Harbor Mills hired 300 workers in 2012.", fact)
    assert not grounded("Harbor Mills hired 400 workers in 2012.", fact)


# Evidence spread across a document: distant sentences and several facts compose.


def test_a_claim_joining_distant_sentences_of_one_fact_is_grounded_and_cites_it() -> None:
    article = (
        "Aaron Hernandez played tight end for the New England Patriots. "
        "The team signed him to a contract extension in 2012. "
        "Fans filled the stadium every week. "
        "Weather delayed one game in December. "
        "A jury found Hernandez guilty of murder in 2015, and he was sentenced to life in prison."
    )
    (claim,) = check(
        "Hernandez, a former New England Patriots player, was found guilty and sentenced to life.",
        article,
    )
    assert claim.grounded
    assert [c.fact_index for c in claim.citations] == [0]


def test_a_claim_joining_three_distant_paragraphs_of_one_fact_is_grounded() -> None:
    filler = "Fans filled the stadium every week. Weather delayed one game in December. "
    article = (
        "The museum reopened to visitors after a long renovation of its roof. "
        + filler * 2
        + "The new wing of the museum holds a collection of ancient glassware and pottery. "
        + filler * 2
        + "Entry to the museum is free for children and students under twelve."
    )
    assert grounded(
        "The popular, friendly local museum reopened after a renovation of its roof, its new "
        "wing holds ancient glassware and pottery, and entry is free for children and students.",
        article,
    )


_OPENING = "Harbor City opened a new hospital on Monday."
_FILLER = "The weather was mild. Traffic was light on the bridge. A band played in the square."
_HOSPITAL_CLAIM = (
    "Harbor City opened a new hospital on Monday, and its wards were full of patients by noon."
)


def test_a_sentence_of_the_same_fact_that_names_nothing_may_join_composed_evidence() -> None:
    later = "By noon the hospital's wards were full of patients."
    assert grounded(_HOSPITAL_CLAIM, f"{_OPENING} {_FILLER} {later}")


def test_a_sentence_that_names_nothing_joins_no_other_passage_nor_names_another_entity() -> None:
    later = "By noon the hospital's wards were full of patients."
    assert not grounded(_HOSPITAL_CLAIM, f"{_OPENING} {_FILLER}", later)
    other = "By noon the wards of Lakeside Clinic were full of patients."
    assert not grounded(_HOSPITAL_CLAIM, f"{_OPENING} {_FILLER} {other}")


def test_a_review_that_names_nothing_speaks_of_the_record_it_comes_with() -> None:
    record = "name: Casa Verde\ncity: Tucson\ncategories: Mexican, Bars\nstars: 4.0"
    review = "Review (4.0 stars, 2021-06-02): A lively bar: the tacos were great, but slow service."
    claim = "Casa Verde is a Mexican bar in Tucson with great tacos and slow service."
    assert grounded(claim, record, review)
    assert not grounded(claim, "Casa Verde is a Mexican bar in Tucson.", review)


_YEAR_FILLER = (
    "The weather was mild that year. Traffic was light on the bridge. A band played in the square. "
)
_TRIAL = (
    "Dana Reyes, 41, grew up on a farm. "
    + _YEAR_FILLER
    + "The trial of Dana Reyes for fraud began on Monday in Denver, where she ran a bakery that "
    "she founded in 2009. "
    + _YEAR_FILLER
    + "Dana Reyes ran the bakery in Denver for years. "
    + _YEAR_FILLER
    + "On Monday Dana Reyes denied the fraud at her trial. "
    + _YEAR_FILLER
    + "Prosecutors say the bakery hid its losses from investors."
)


def test_a_number_said_once_far_from_the_rest_of_the_claim_may_join_its_evidence() -> None:
    claim = (
        "The fraud trial of Dana Reyes, {age}, who founded a bakery in Denver in 2009, "
        "began on Monday."
    )
    assert grounded(claim.format(age=41), _TRIAL)
    assert not grounded(claim.format(age=45), _TRIAL)


def test_a_number_bounded_the_other_way_is_not_supported() -> None:
    fact = "The island is home to just under 270 people, most of them farmers."
    assert not grounded("The island is home to just over 270 people.", fact)
    assert not grounded("The island is home to more than 270 people.", fact)
    assert grounded("The island is home to nearly 270 people.", fact)


def test_a_claim_joining_two_facts_cites_both() -> None:
    (claim,) = check(
        "The bridge opened in 1937 and spans 1,280 metres.",
        "The Golden Gate Bridge opened in 1937.",
        "The bridge spans 1,280 metres between its towers.",
    )
    assert claim.grounded
    assert sorted(c.fact_index for c in claim.citations) == [0, 1]


def test_composed_evidence_keeps_every_veto() -> None:
    assert not grounded(
        "The bridge opened in 1938 and spans 1,280 metres.",
        "The Golden Gate Bridge opened in 1937.",
        "The bridge spans 1,280 metres between its towers.",
    )


# Data-to-text: records as key: value lines, and reviews.


RECORD = "\n".join(
    [
        "name: Casa Luna",
        "address: 123 Main St",
        "city: Tucson",
        "state: AZ",
        "business_stars: 4.0",
        "review_count: 212",
        "categories: Mexican, Restaurants",
        "attributes RestaurantsDelivery: False",
        "attributes WheelchairAccessible: True",
    ]
)


def test_a_record_is_about_the_entity_its_first_line_names() -> None:
    assert grounded("Casa Luna has 4 stars from 212 reviews.", RECORD)


def test_keys_written_as_identifiers_read_as_their_words() -> None:
    assert grounded("Casa Luna is wheelchair accessible.", RECORD)


def test_a_state_code_is_the_state() -> None:
    assert grounded("Casa Luna is a Mexican restaurant in Tucson, Arizona.", RECORD)


def test_a_false_attribute_contradicts_a_claim_that_it_holds() -> None:
    assert not grounded("Casa Luna offers delivery.", RECORD)
    assert grounded("Casa Luna does not offer delivery.", RECORD)


def test_a_wrong_number_in_a_record_is_not_supported() -> None:
    assert not grounded("Casa Luna has 4 stars from 312 reviews.", RECORD)


# Invented relations between real entities: each name present is not enough.


def test_names_the_evidence_never_relates_do_not_make_a_relation() -> None:
    facts = (
        "In Smith v. Jones the court declared the contract void.",
        "The Carter case was decided in 2004 and concerned a lease.",
    )
    assert not grounded(
        "The Carter case is similar to Smith v. Jones, where the court declared the contract void.",
        *facts,
    )


def test_names_related_in_the_evidence_are_supported() -> None:
    facts = (
        "Inception was directed by Christopher Nolan.",
        "Leonardo DiCaprio stars in Inception.",
    )
    assert grounded(
        "Inception was directed by Christopher Nolan and stars Leonardo DiCaprio.", *facts
    )


def test_swapped_roles_between_two_names_are_not_supported() -> None:
    assert not grounded("Bob defeated Alice in the final.", "In the final, Alice defeated Bob.")


def test_names_of_different_clauses_are_no_swapped_roles() -> None:
    fact = (
        "Guards were trying to stop Lane. Officer Mark Dunn, who was off duty, shot Lane "
        "with his rifle. Dunn was later charged."
    )
    claim = "Guards were trying to stop Lane when Officer Mark Dunn shot him, and Dunn was charged."
    assert grounded(claim, fact)
    assert not grounded("Lane shot Officer Mark Dunn with his rifle.", fact)


def test_a_relation_the_facts_give_another_name_is_not_supported_for_this_one() -> None:
    fact = (
        "The Harrow Reservoir was planned by the surveyor Nell Ostrander. "
        "Its first keeper was Jonas Pike."
    )
    assert not grounded("Jonas Pike planned it.", fact)
    assert not grounded("It was planned by Jonas Pike.", fact)
    assert grounded("Nell Ostrander planned it.", fact)
    assert grounded("Jonas Pike was its first keeper.", fact)


def test_a_name_said_with_its_relation_word_anywhere_in_the_facts_keeps_it() -> None:
    fact = (
        "Teodor Lisk painted the chapel ceiling in 1702. "
        "Ana Pell painted the altar screen. Later restorers praised Lisk."
    )
    assert grounded("Ana Pell painted the altar screen.", fact)
    assert grounded("Teodor Lisk painted the chapel ceiling.", fact)


def test_a_name_made_of_the_words_of_two_other_names_is_not_supported() -> None:
    fact = (
        "The Corven Ferry sails from Lisdale. "
        "It is run by Marta Quill and was built by Harland Shipworks."
    )
    assert not grounded("Lisdale Quill runs the ferry.", fact)
    assert not grounded("It was built by Corven Shipworks.", fact)
    assert grounded("Marta Quill runs the ferry.", fact)
    assert grounded("It was built by Harland Shipworks.", fact)


def test_a_full_name_said_elsewhere_in_the_facts_is_no_mixed_name() -> None:
    fact = (
        "Deputy Alma Roe made the arrest. Later that week Sheriff Ben Roe "
        "praised the team. Roe had trained the recruits herself."
    )
    assert grounded("Deputy Alma Roe made the arrest.", fact)


# Too strict on faithful text: a negation reaches only its own predicate.


def test_a_negation_does_not_reach_a_second_predicate() -> None:
    assert grounded(
        "Prosecutors will seek the death penalty.",
        "Prosecutors aren't swayed and will seek the death penalty.",
    )


def test_no_more_than_is_a_bound_not_a_negation() -> None:
    assert grounded(
        "You can widen the entrance to 3 inches at most after a few weeks.",
        "You can widen the entrance to no more than 3 inches after a few weeks.",
    )


def test_a_negated_predicate_still_contradicts_its_positive_claim() -> None:
    assert not grounded(
        "Prosecutors are swayed.", "Prosecutors aren't swayed and will seek the death penalty."
    )


def test_a_dotted_abbreviation_before_a_name_does_not_end_the_claim() -> None:
    claims = check("One shooting was at the U.S. Census Bureau. Then it rained.", "X.")
    assert [claim.text for claim in claims] == [
        "One shooting was at the U.S. Census Bureau.",
        "Then it rained.",
    ]


def test_a_number_counts_the_head_noun_after_its_modifier() -> None:
    fact = "JetBlue offered 892,000 one-way passenger tickets, the fewest award tickets."
    assert grounded("JetBlue offered 892,000 award tickets.", fact)
    assert not grounded("JetBlue offered 982,000 award tickets.", fact)


def test_no_wonder_is_an_idiom_not_a_negation() -> None:
    assert grounded(
        "The college closed after the department cut its access to federal aid.",
        "It's no wonder the college closed after the department cut its access to federal aid.",
    )
