"""Multi-byte text, accents, and languages written without spaces."""

from __future__ import annotations

from groundwire.emulator.engine import Fact, check_grounding
from groundwire.emulator.engine.terms import terms_of as content_terms


def grounded(claim: str, fact: str) -> bool:
    return all(c.grounded for c in check_grounding(claim, [Fact(fact)]).claims)


def test_accents_and_combining_marks_do_not_stop_a_match() -> None:
    assert grounded("Dvořák lived in New York in 1893.", "Dvor\u030cák lived in New York in 1893.")
    assert grounded("Cafe de Flore opened in 1887.", "Café de Flore opened in 1887.")


def test_emoji_in_a_claim_are_ignored_for_matching() -> None:
    assert grounded("Beyoncé released Lemonade in 2016 🍋.", "Beyoncé released Lemonade in 2016.")


def test_chinese_runs_are_compared_as_character_bigrams() -> None:
    assert sorted(content_terms("东京是日本的首都")) == sorted(
        ["东京", "京是", "是日", "日本", "本的", "的首", "首都"]
    )


def test_chinese_claim_stated_by_the_fact_is_grounded_and_a_changed_country_is_not() -> None:
    fact = "长城位于中国北部，全长超过两万公里。"
    assert grounded("长城位于中国北部。", fact)
    assert not grounded("长城位于日本北部。", fact)


def test_a_number_inside_chinese_text_must_match() -> None:
    fact = "东京塔于1958年建成，高333米。"
    assert grounded("东京塔建于1958年。", fact)
    assert not grounded("东京塔建于1968年。", fact)


def test_chinese_negation_is_seen() -> None:
    assert not grounded("巴黎不是法国的首都。", "巴黎是法国的首都。")


def test_japanese_hiragana_is_grammar_not_content() -> None:
    assert content_terms("日本の首都です") == frozenset({"日本", "首都"})
    assert grounded("東京は日本の首都です。", "東京は日本の首都であり、最大の都市です。")


def test_korean_and_thai_are_matched_without_spaces_inside_words() -> None:
    assert grounded("서울은 대한민국의 수도이다.", "서울은 대한민국의 수도이자 최대 도시이다.")
    assert grounded("เชียงใหม่เป็นเมืองในภาคเหนือของประเทศไทย", "เชียงใหม่เป็นเมืองใหญ่ในภาคเหนือของประเทศไทย")


def test_cyrillic_case_endings_are_stemmed() -> None:
    assert grounded("Москва является столицей России.", "Москва — столица России.")
    assert not grounded("Москва является столицей Украины.", "Москва — столица России.")


def test_negation_in_spanish_and_german_is_seen() -> None:
    assert not grounded(
        "El Everest no es la montaña más alta del mundo.",
        "El Everest es la montaña más alta del mundo.",
    )
    assert not grounded(
        "Die Brücke ist nicht für Autos geöffnet.", "Die Brücke ist für Autos geöffnet."
    )
