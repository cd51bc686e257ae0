"""Tells sentences that state a fact from those that do not (greetings, questions, "Let me check").

Google's checker marks such sentences ``grounding_check_required = false``: they get no
citations and do not count toward the support score. A sentence states no fact when it

* asks something (ends with ``?``) or introduces what follows (ends with ``:``),
* is made only of small-talk words (words/small_talk_words.txt: ``Hi there!``),
* opens, after ``Sure``/``Okay``, as the assistant speaking of itself
  (words/small_talk_openers.txt: ``Let me``, ``I hope``) and holds no digit, or
* says only that the sources are silent (``Passage 2 does not mention the cost.``): a negation,
  a source word and a verb of telling, no contrast word after its first word, and no digit.
"""

from __future__ import annotations

import re
import unicodedata

from groundwire.emulator.engine.words import word_set

_WORD = re.compile(r"\w+(?:['’]\w+)*")


def needs_check(sentence: str) -> bool:
    """Say whether a sentence states something the facts should support.

    Example:
        >>> needs_check("Let me check that for you."), needs_check("Is it tall?")
        (False, False)
        >>> needs_check("Sure, the tower is 330 metres tall."), needs_check("US"), needs_check("us")
        (True, True, False)
    """
    if _last_meaningful_character(sentence) in {"?", "？", ":", "："}:
        return False
    written = _WORD.findall(sentence)
    words = [word.replace("’", "'").casefold() for word in written]
    if all(word in word_set("small_talk_words") for word in words):
        # ``US`` in capitals is the country, not the pronoun.
        return any(len(word) > 1 and word.isupper() for word in written)
    has_digit = any(character.isdigit() for character in sentence)
    opening = words
    while opening and opening[0] in word_set("agreement_words"):
        opening = opening[1:]
    spoken = " ".join(opening) + " "
    speaks_of_itself = any(
        spoken.startswith(opener + " ") for opener in word_set("small_talk_openers")
    )
    return has_digit or not (speaks_of_itself or _says_sources_are_silent(words))


def _says_sources_are_silent(words: list[str]) -> bool:
    present = set(words)
    negated = not present.isdisjoint(word_set("silence_negations")) or any(
        w.endswith("n't") for w in words
    )
    return (
        negated
        and not present.isdisjoint(word_set("source_words"))
        and not present.isdisjoint(word_set("telling_words"))
        and present.isdisjoint(word_set("clause_breaks").difference(words[:1]))
    )


def _last_meaningful_character(sentence: str) -> str:
    for character in reversed(sentence):
        category = unicodedata.category(character)
        if (
            character.isspace()
            or character in "\"'*"
            or category in {"So", "Sk", "Cf", "Mn", "Pf", "Pe"}
        ):
            continue
        return character
    return ""
