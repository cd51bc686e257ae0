"""An added word costs a claim only when it is specific: not everyday English, nor made from it."""

from groundwire.emulator.engine.analysis import analyse
from groundwire.emulator.engine.general_words import GENERAL_WORDS
from groundwire.emulator.engine.rarity import is_general, specific_terms


def test_an_everyday_word_is_general() -> None:
    assert is_general("help")
    assert is_general("ensur")


def test_a_word_with_a_derivational_ending_on_an_everyday_word_is_general() -> None:
    assert is_general("closur")  # close + -ure
    assert is_general("responsibility")  # responsible + -ity
    assert is_general("importanc")  # important + -ance


def test_a_prefixed_everyday_word_is_general() -> None:
    assert is_general("unmet")
    assert is_general("overcook")


def test_a_specialist_word_is_specific() -> None:
    assert not is_general("rheumatoid")
    assert not is_general("autoimmun")
    assert sorted(specific_terms(analyse("Stir until it smells of caramel."))) == ["caramel"]


def test_names_numbers_and_other_languages_have_no_specific_words() -> None:
    assert specific_terms(analyse("It opened in 1998 in Caracas.")) == frozenset()
    assert specific_terms(analyse("Le chat dort sur le canapé rouge.")) == frozenset()


def test_the_general_word_list_is_our_own_short_list() -> None:
    words = GENERAL_WORDS.split()
    assert len(words) == len(set(words))
    assert len(words) < 5_000
