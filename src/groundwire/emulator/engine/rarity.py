"""Tells a claim's specific words from general ones, so that an added detail counts against it.

A faithful paraphrase brings words the facts lack, but mostly general ones (``help``,
``ensure``, ``process``); an invented detail often brings a specific one (``caramel``,
``autoimmune``, ``vocalizations``). A word is general when it is a form of an everyday English
word (:mod:`general_words`) or a regular derivation of one: the same word with one of a few
derivational endings (``thoroughly`` from ``thorough``, ``closure`` from ``close``,
``responsibility`` from ``responsible``). Only English claims are judged so (those with an
English function word such as ``the``, ``is`` or ``of``): in another language every word would
look specific. Names, numbers and codes are never specific words here: the key-term check
judges them.
"""

from __future__ import annotations

from functools import cache

from groundwire.emulator.engine.analysis import Analysis
from groundwire.emulator.engine.caches import word_cache
from groundwire.emulator.engine.general_words import GENERAL_WORDS
from groundwire.emulator.engine.lexicon import ENGLISH_FUNCTION_WORDS, STOPWORDS
from groundwire.emulator.engine.text import FUNCTION_WORD_MARK, MAX_CACHED_WORD, word_terms

_ENGLISH_FUNCTION_TERMS = frozenset(FUNCTION_WORD_MARK + word for word in ENGLISH_FUNCTION_WORDS)
_DERIVATIONS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("ility", ("le",)),
    ("ation", ("", "e")),
    ("ness", ("",)),
    ("ment", ("",)),
    ("ally", ("",)),
    ("ful", ("",)),
    ("ity", ("",)),
    ("ion", ("", "e")),
    ("anc", ("ant", "e")),
    ("enc", ("ent", "e")),
    ("ur", ("e",)),
    ("iv", ("", "e")),
    ("ly", ("",)),
    ("al", ("",)),
    ("er", ("", "e")),
    ("or", ("", "e")),
)
"""Endings (as engine terms write them) that make a word of another class from a general
word, and what the general word ends with instead (``closur`` from ``close``, ``importanc``
from ``important``, ``ability`` from ``able``)."""
_PREFIXES = ("un", "dis", "mis", "non", "over", "under", "out", "re", "pre", "co")
"""Prefixes that make a word from a general word (``unmet``, ``overcook``, ``dishonest``)."""
_SHORTEST_BASE = 3


@cache
def general_terms() -> frozenset[str]:
    """The engine terms of the everyday words and of the function words (computed once).

    Example:
        >>> "help" in general_terms(), "caramel" in general_terms()
        (True, False)
    """
    words = (*GENERAL_WORDS.split(), *STOPWORDS)
    return frozenset(
        term.removeprefix(FUNCTION_WORD_MARK) for word in words for term in word_terms(word)
    )


@word_cache(max_entries=16384, max_key_characters=MAX_CACHED_WORD)
def is_general(term: str) -> bool:
    """Whether an engine term is an everyday word or a regular derivation of one.

    Example:
        >>> is_general("thoroughly"), is_general("responsibility"), is_general("rheumatoid")
        (True, True, False)
        >>> is_general("closur"), is_general("unmet"), is_general("autoimmun")
        (True, True, False)
    """
    if len(term) < _SHORTEST_BASE:
        return True
    if _derives_from_general(term):
        return True
    return any(
        term.startswith(prefix)
        and len(term) - len(prefix) >= _SHORTEST_BASE
        and _derives_from_general(term[len(prefix) :])
        for prefix in _PREFIXES
    )


def _derives_from_general(term: str) -> bool:
    """Whether a term is a general word, a function word or such a word with one ending."""
    general = general_terms()
    if term in general or word_terms(term)[0] in general:
        return True
    for ending, replacements in _DERIVATIONS:
        base = term[: -len(ending)]
        if not term.endswith(ending) or len(base) < _SHORTEST_BASE:
            continue
        if base.endswith("i"):
            base = base[:-1] + "y"
        if any(word_terms(base + tail)[0] in general for tail in replacements):
            return True
    return False


def specific_terms(claim: Analysis, among: frozenset[str] | None = None) -> frozenset[str]:
    """The claim's plain words (no names, numbers or codes) that are not everyday English.

    Only the terms in ``among`` are judged, when given (the words no fact holds). Empty when
    the claim does not read as English (it holds no English function word).

    Example:
        >>> from groundwire.emulator.engine.analysis import analyse
        >>> sorted(specific_terms(analyse("Stir until it smells of caramel.")))
        ['caramel']
        >>> specific_terms(analyse("Le chat dort sur le canapé rouge."))
        frozenset()
    """
    if _ENGLISH_FUNCTION_TERMS.isdisjoint(token.term for token in claim.tokens):
        return frozenset()
    return frozenset(
        token.term
        for token in claim.content_tokens
        if (among is None or token.term in among)
        and not token.name_like
        and token.term.isascii()
        and token.term.isalpha()
        and not is_general(token.term)
    )
