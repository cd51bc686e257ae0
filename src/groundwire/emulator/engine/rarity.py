"""Tells a claim's specific words from common ones, so an added detail counts against it.

A faithful paraphrase brings words the facts lack, but mostly common ones (``help``,
``ensure``, ``process``); an invented detail often brings a specific one (``caramel``,
``autoimmune``, ``vocalizations``). A word is specific when it is no form of a word in the
list of common English words (:mod:`common_words`). Only English claims are judged so (those
with an English function word such as ``the``, ``is`` or ``of``): in another language every
word would look specific.
"""

from __future__ import annotations

from functools import cache

from groundwire.emulator.engine.analysis import Analysis
from groundwire.emulator.engine.common_words import COMMON_WORDS
from groundwire.emulator.engine.lexicon import ENGLISH_FUNCTION_WORDS
from groundwire.emulator.engine.text import FUNCTION_WORD_MARK, word_terms

_ENGLISH_FUNCTION_TERMS = frozenset(FUNCTION_WORD_MARK + word for word in ENGLISH_FUNCTION_WORDS)


@cache
def common_terms() -> frozenset[str]:
    """The engine terms of the common English words (computed once, on first use).

    Example:
        >>> "help" in common_terms(), "caramel" in common_terms()
        (True, False)
    """
    return frozenset(term for word in COMMON_WORDS.split() for term in word_terms(word))


def specific_terms(claim: Analysis) -> frozenset[str]:
    """The claim's plain words (no names, numbers or codes) that are not common English.

    Empty when the claim does not read as English (it holds no English function word).

    Example:
        >>> from groundwire.emulator.engine.analysis import analyse
        >>> sorted(specific_terms(analyse("Stir until it smells of caramel.")))
        ['caramel']
        >>> specific_terms(analyse("Le chat dort sur le canapé rouge."))
        frozenset()
    """
    if _ENGLISH_FUNCTION_TERMS.isdisjoint(token.term for token in claim.tokens):
        return frozenset()
    common = common_terms()
    return frozenset(
        token.term
        for token in claim.content_tokens
        if not token.name_like
        and token.term.isascii()
        and token.term.isalpha()
        and token.term not in common
    )
