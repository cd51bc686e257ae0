"""Reduces a word to the stem its inflections share, so that ``studied`` meets ``studies``.

English (and other Latin-script words, after accents are folded) lose plurals, ``-ed``,
``-ing``, ``-s`` and a final ``-e``; irregular forms map to their base (``won``: ``win``); a
light thesaurus joins frequent synonyms (``film``: ``movie``); British spellings become
American (``organise``, ``metre``). Cyrillic words lose a common case ending. Stems need not be
words (``make`` gives ``mak``): they only have to be equal for forms of one word.
"""

from __future__ import annotations

import unicodedata

from groundwire.emulator.engine.words import entries, word_map

IRREGULAR_FORMS = word_map("irregular_forms")

_CYRILLIC_ENDINGS = [ending for (ending,) in entries("cyrillic_endings")]
_BRITISH_ENDINGS = (
    ("isation", "ization"),
    ("ise", "ize"),
    ("ised", "ized"),
    ("ising", "izing"),
    ("ises", "izes"),
    ("tre", "ter"),
)


def fold_accents(word: str) -> str:
    """Remove accents from Latin and Greek letters, keeping marks that other scripts need.

    Example:
        >>> fold_accents("Dvořák"), fold_accents("Αθήνα"), fold_accents("が")
        ('Dvorak', 'Αθηνα', 'が')
    """
    decomposed = unicodedata.normalize("NFD", word)
    kept: list[str] = []
    for character in decomposed:
        if unicodedata.combining(character) and kept and ord(kept[-1]) < 0x0400:
            continue
        kept.append(character)
    return unicodedata.normalize("NFC", "".join(kept))


def stem(word: str) -> str:
    """Reduce a casefolded word to the stem its inflections share.

    Example:
        >>> stem("pollinators"), stem("stopped"), stem("making"), stem("make"), stem("столицей")
        ('pollinator', 'stop', 'mak', 'mak', 'столиц')
    """
    word = IRREGULAR_FORMS.get(word, word)
    folded = fold_accents(word)
    if folded.isascii():
        return english_stem(_american_spelling(folded))
    if "\u0400" <= folded[0] <= "\u04ff":
        return _cyrillic_stem(folded)
    return folded


def english_stem(word: str) -> str:
    """Strip English inflections (no lookups): plurals, ``-ed``, ``-ing``, a final ``-e``.

    Example:
        >>> english_stem("studies"), english_stem("running"), english_stem("needed")
        ('study', 'run', 'need')
    """
    if len(word) <= 3 or not word.isalpha():
        return word
    if word.endswith(("ies", "ied")) and len(word) > 4:
        word = word[:-3] + "y"
    elif word.endswith("sses") or (word.endswith(("ches", "shes", "xes", "zes")) and len(word) > 4):
        word = word[:-2]
    elif word.endswith("s") and not word.endswith(("ss", "us", "is")):
        word = word[:-1]
    if word.endswith("ing") and len(word) > 5:
        word = _undouble(word[:-3])
    elif word.endswith("ed") and not word.endswith("eed") and len(word) > 3:
        word = _undouble(word[:-2])
    if word.endswith("e") and len(word) > 3:
        word = word[:-1]
    return word


def _american_spelling(word: str) -> str:
    for british, american in _BRITISH_ENDINGS:
        if word.endswith(british) and len(word) > len(british) + 2:
            return word[: -len(british)] + american
    if word.endswith("our") and len(word) > 5:
        return word[:-3] + "or"
    return word


def _undouble(word: str) -> str:
    if len(word) > 2 and word[-1] == word[-2] and word[-1] in "bgmnprt":
        return word[:-1]
    return word


def _cyrillic_stem(word: str) -> str:
    for ending in _CYRILLIC_ENDINGS:
        if word.endswith(ending) and len(word) - len(ending) >= 3:
            return word[: -len(ending)]
    return word
