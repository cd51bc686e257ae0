"""Tells sentences that state a fact from those that do not (greetings, questions, "Let me check").

Google's checker marks such sentences ``grounding_check_required = false``: they get no
citations and do not count toward the support score. A sentence states no fact when it

* asks something (ends with ``?``),
* introduces what follows (ends with ``:``, as in ``Sure, here is what I found:``),
* is made only of small-talk words (``Hi there!``, ``Great question!``, ``Bonjour !``), or
* opens as the assistant speaking of itself (``Let me``, ``I hope``, ``Feel free``) and holds
  no number, or
* says only that the sources are silent (``Passage 2 does not mention the cost.``, ``Unable
  to answer based on the given passages.``): a remark on the request, not on the world.
"""

from __future__ import annotations

import unicodedata

from groundwire.emulator.engine.layout import strip_layout
from groundwire.emulator.engine.lexicon import (
    CLAUSE_BREAK_WORDS,
    SILENCE_NEGATIONS,
    SMALL_TALK_OPENERS,
    SMALL_TALK_WORDS,
    SOURCE_WORDS,
    TELLING_WORDS,
)
from groundwire.emulator.engine.text import TOKEN_PATTERN, expanded_name

_AGREEMENT_WORDS = frozenset(
    {
        "sure",
        "certainly",
        "absolutely",
        "okay",
        "ok",
        "alright",
        "yes",
        "great",
        "well",
        "so",
        "of",
        "course",
    }
)


def needs_check(sentence: str) -> bool:
    """Say whether a sentence states something the facts should support.

    Example:
        >>> needs_check("Let me check that for you."), needs_check("Is it tall?")
        (False, False)
        >>> needs_check("Sure, the tower is 330 metres tall."), needs_check("US"), needs_check("us")
        (True, True, False)
    """
    said = [word.replace("’", "'").casefold() for word in TOKEN_PATTERN.findall(sentence)]
    sentence = strip_layout(sentence)
    last = _last_meaningful_character(sentence)
    if last in {"?", "？", ":", "："}:
        return False
    written = TOKEN_PATTERN.findall(sentence)
    words = [word.replace("’", "'").casefold() for word in written]
    if not words or all(word in SMALL_TALK_WORDS for word in words):
        # ``US`` in capitals is the country, not the pronoun.
        return any(expanded_name(word) is not None for word in written)
    while words and words[0] in _AGREEMENT_WORDS:
        words = words[1:]
    opening = " ".join(words) + " "
    speaks_of_itself = any(opening.startswith(opener + " ") for opener in SMALL_TALK_OPENERS)
    has_digit = any(character.isdigit() for character in sentence)
    return not (speaks_of_itself and not has_digit) and not (
        _says_sources_are_silent(said) and not has_digit
    )


def _says_sources_are_silent(words: list[str]) -> bool:
    """A negated verb of telling with the sources as its topic, and no contrast after it.

    A contrast that opens the sentence (``However, the passages do not say...``) looks back
    at the previous sentence: it starts no second clause of this one.
    """
    present = set(words)
    opening = next((place for place, word in enumerate(words) if word.isalpha()), 0)
    negated = not present.isdisjoint(SILENCE_NEGATIONS) or any(
        word.endswith("n't") for word in words
    )
    return (
        negated
        and not present.isdisjoint(SOURCE_WORDS)
        and not present.isdisjoint(TELLING_WORDS)
        and not any(word in CLAUSE_BREAK_WORDS for word in words[opening + 1 :])
    )


def _last_meaningful_character(sentence: str) -> str:
    for character in reversed(sentence):
        category = unicodedata.category(character)
        if character.isspace() or category in {"So", "Sk", "Cf", "Mn", "Pf", "Pe"}:
            continue
        if character in "\"'":
            continue
        return character
    return ""
