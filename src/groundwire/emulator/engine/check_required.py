"""Tells sentences that state a fact from those that do not (greetings, questions, "Let me check").

Google's checker marks such sentences ``grounding_check_required = false``: they get no
citations and do not count toward the support score. A sentence states no fact when it

* asks something (ends with ``?``),
* introduces what follows (ends with ``:``, as in ``Sure, here is what I found:``),
* is made only of small-talk words (``Hi there!``, ``Great question!``, ``Bonjour !``), or
* opens as the assistant speaking of itself (``Let me``, ``I hope``, ``Feel free``) and holds
  no number.
"""

from __future__ import annotations

import unicodedata

from groundwire.emulator.engine.lexicon import SMALL_TALK_OPENERS, SMALL_TALK_WORDS
from groundwire.emulator.engine.text import TOKEN_PATTERN

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
        >>> needs_check("Sure, the tower is 330 metres tall.")
        True
    """
    last = _last_meaningful_character(sentence)
    if last in {"?", "？", ":", "："}:
        return False
    words = [word.replace("’", "'").casefold() for word in TOKEN_PATTERN.findall(sentence)]
    if not words or all(word in SMALL_TALK_WORDS for word in words):
        return False
    while words and words[0] in _AGREEMENT_WORDS:
        words = words[1:]
    opening = " ".join(words) + " "
    speaks_of_itself = any(opening.startswith(opener + " ") for opener in SMALL_TALK_OPENERS)
    return not (speaks_of_itself and not any(character.isdigit() for character in sentence))


def _last_meaningful_character(sentence: str) -> str:
    for character in reversed(sentence):
        category = unicodedata.category(character)
        if character.isspace() or category in {"So", "Sk", "Cf", "Mn", "Pf", "Pe"}:
            continue
        if character in "\"'":
            continue
        return character
    return ""
