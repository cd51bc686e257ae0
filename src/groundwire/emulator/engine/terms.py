"""Turns a sentence into the terms the engine compares, so that forms of one word or number meet.

* A list mark opening the sentence (``1.``, ``-``) and notes naming a source (``(Passage 2)``)
  are no terms, nor are words naming the sources (words/source_words.txt: ``passages``).
* A dotted abbreviation is one name without its dots (``U.S.`` = ``US``).
* Words are casefolded, lose Latin and Greek accents and are lightly stemmed (plurals, ``-ed``,
  ``-ing``, irregular forms from words/irregular_forms.txt).
  Function words (words/function_words.txt) are no terms.
* Numbers are written one way: ``1,000`` = ``1000`` = ``one thousand``, ``2.1 million`` =
  ``2100000``, ``2.50`` = ``2.5``, ``19th`` = ``19``, ``%`` = ``percent``. A lone ``one`` is a word.
* Dates become their parts: ``December 19, 1997``, ``1997-12-19`` and ``12/19/1997`` all give
  ``1997``, ``month:12`` and ``19``.
* Text without spaces (Chinese, Japanese, Korean, Thai, Lao, Khmer, Burmese) becomes overlapping
  character bigrams (``东京是日本``: ``东京 京是 是日 日本``); Japanese hiragana is grammar and cuts
  runs;
  the character right after a number (a counter: ``1958年``) is a term of its own too.
* A sentence is negated when it holds a negation word (words/negation_words.txt), a ``n't``, or
  a negation mark inside unspaced text (words/negation_marks.txt).
"""

from __future__ import annotations

import re
import unicodedata
from decimal import Decimal, InvalidOperation
from functools import lru_cache
from typing import NamedTuple

from groundwire.emulator.engine.rules import CACHE_SENTENCE_CHARACTERS
from groundwire.emulator.engine.stemming import stem
from groundwire.emulator.engine.words import word_map, word_set

WORD, NUMBER, NAME = 0, 1, 2
"""A term's kind: a number weighs the ``numbers`` weight and feeds the ``number_differs`` veto,
a word or a name weighs 1; names feed the ``unknown_name`` veto. A term found as several kinds
keeps the last of these."""
_SPACELESS = (
    "\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff\u3040-\u30ff"
    "\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff"
)
_TOKEN = re.compile(
    rf"\d+(?:[.,:/-]\d+)*|[{_SPACELESS}]+|[^\W\d_](?:\.[^\W\d_])++\.?"
    rf"|[^\W\d_{_SPACELESS}]+(?:['’][^\W\d_{_SPACELESS}]+)*|%"
)
_LIST_MARK = re.compile(r"\s*+(?:[-*•]|\d{1,3}[.)])\s")
_SOURCE_NOTE = re.compile(
    r"[(\[]?(?:passage|source|document)s?\s*+\d{1,3}(?:\s*+(?:,|and|&|-)\s*+\d{1,3})*[)\]]?",
    re.IGNORECASE,
)
_HIRAGANA = re.compile("[\u3040-\u309f]+")
_ISO_DATE = re.compile(r"(\d{4})-(\d{1,2})-(\d{1,2})")
_US_DATE = re.compile(r"(\d{1,2})/(\d{1,2})/(\d{4})")
_THOUSANDS = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?")
_CLOCK = re.compile(r"(\d{1,2}):(\d{1,2})")
_MERIDIEM = {"am": 0, "pm": 12, "a.m.": 0, "p.m.": 12, "a.m": 0, "p.m": 12}
_CAMEL_PART = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])")
_NUMBER_PART = re.compile(r"\d+(?:\.\d+)?")
_SUFFIXES = frozenset({"st", "nd", "rd", "th", "s"})


class Reading(NamedTuple):
    """A sentence's terms (each once, with its kind, in order) and whether it is negated."""

    terms: tuple[tuple[str, int], ...]
    negated: bool


def read(sentence: str) -> Reading:
    """:func:`read_sentence`, cached for sentences up to ``CACHE_SENTENCE_CHARACTERS``."""
    if len(sentence) > CACHE_SENTENCE_CHARACTERS:
        return read_sentence(sentence)
    return cached_read(sentence)


def read_sentence(sentence: str) -> Reading:
    """The terms of one sentence, and whether it is negated.

    Example:
        >>> read("Paris isn't home to 2,100 museums.")
        Reading(terms=(('paris', 0), ('hom', 0), ('2100', 1), ('museum', 0)), negated=True)
    """
    sentence = _SOURCE_NOTE.sub(" ", unicodedata.normalize("NFC", sentence))
    opening = _LIST_MARK.match(sentence)
    start_at = opening.end() if opening else 0
    tokens = [(m.group(), m.start(), m.end()) for m in _TOKEN.finditer(sentence, start_at)]
    found: dict[str, int] = {}
    negated = False
    position = 0
    while position < len(tokens):
        token, start, _ = tokens[position]
        lowered = token.casefold()
        if _is_number(token, lowered):
            end = _number_run_end(tokens, position)
            for term in _numbers([word.casefold() for word, _, _ in tokens[position:end]]):
                _keep(found, term, NUMBER)
            position = end
            continue
        position += 1
        if _negates(token, lowered):
            negated = True
            if token[0] not in _SPACELESS_SET:
                continue
        if token[0] in _SPACELESS_SET:
            after_number = position > 1 and tokens[position - 2][0][0].isdigit()
            for term in _bigrams(token, counter=after_number and tokens[position - 2][2] == start):
                _keep(found, term, WORD)
        elif lowered in ("%", "percent"):
            _keep(found, "%", NUMBER)
        elif lowered in _MONTHS and (token[0].isupper() or lowered not in _FUNCTION_WORDS):
            _keep(found, f"month:{_MONTHS[lowered]}", NUMBER)
        elif "." in token:  # lowercase ones (e.g., i.e.) are no names
            if not token.islower():
                _keep(found, lowered.replace(".", ""), NAME)
        elif lowered not in _FUNCTION_WORDS and lowered not in _SOURCE_WORDS:
            parts = (
                _CAMEL_PART.findall(token) if not token.istitle() and not token.isupper() else []
            )
            if len(parts) > 1:
                for part in parts:
                    _keep(found, stem(part.casefold()), WORD)
                continue
            name = (start > start_at and token[0].isupper()) or (len(token) > 1 and token.isupper())
            term = stem(lowered)
            _keep(found, term, NAME if name else WORD)
    return Reading(tuple(found.items()), negated)


@lru_cache(maxsize=4_096)
def cached_read(sentence: str) -> Reading:
    """:func:`read_sentence` through a cache of the last 4,096 sentences read."""
    return read_sentence(sentence)


def terms_of(text: str) -> frozenset[str]:
    """Every term of a text, all sentences together.

    Example:
        >>> sorted(terms_of("日本の首都です"))
        ['日本', '首都']
    """
    return frozenset(term for term, _ in read(text).terms)


def _keep(found: dict[str, int], term: str, kind: int) -> None:
    found[term] = max(kind, found.get(term, WORD))


def _is_number(token: str, lowered: str) -> bool:
    return token[0].isdigit() or lowered in _NUMBER_WORDS or lowered in _MULTIPLIERS


def _number_run_end(tokens: list[tuple[str, int, int]], position: int) -> int:
    """Where a run of number tokens ends (``one hundred and two``, ``19th``, ``2.1 million``)."""
    end = position + 1
    while end < len(tokens):
        token, start, _ = tokens[end]
        lowered = token.casefold()
        suffix = (lowered in _SUFFIXES and start == tokens[end - 1][2]) or lowered in _MERIDIEM
        joined = (
            lowered == "and"
            and end + 1 < len(tokens)
            and tokens[end + 1][0].casefold() in _NUMBER_WORDS
        )
        if not (suffix or joined or _is_number(token, lowered)):
            break
        end += 1
    return end


def _numbers(run: list[str]) -> list[str]:
    """The numbers a run of number tokens says, each in its one written form."""
    found: list[str] = []
    value: Decimal | None = None
    lone_one = False
    for lowered in run:
        if lowered in _MERIDIEM:
            if value is not None and value == int(value) and 1 <= value <= 12:
                found.append(f"{int(value) % 12 + _MERIDIEM[lowered]:02d}:00")
                value, lone_one = None, False
        elif lowered in _MULTIPLIERS:
            if value is not None:
                value, lone_one = value * _MULTIPLIERS[lowered], False
        elif lowered in _NUMBER_WORDS:
            word_value = _NUMBER_WORDS[lowered]
            if value is not None and value >= 20 and value % 10 == 0 and word_value < 10:
                value, lone_one = value + word_value, False
                continue
            if value is not None and not lone_one:
                found.append(_number_text(value))
            value, lone_one = word_value, lowered == "one"
        elif lowered[0].isdigit():
            if value is not None and not lone_one:
                found.append(_number_text(value))
            parts = _number_parts(lowered)
            single = len(parts) == 1 and _NUMBER_PART.fullmatch(parts[0]) is not None
            value, lone_one = (Decimal(parts[0]), False) if single else (None, False)
            if not single:
                found.extend(parts)
    if value is not None and not lone_one:
        found.append(_number_text(value))
    return found


def _number_parts(token: str) -> list[str]:
    """The numbers of one token: a date's parts, clock times, ranges' ends, plain numbers."""
    if date := _ISO_DATE.fullmatch(token):
        year, month, day = date.groups()
        return [year, f"month:{int(month)}", str(int(day))]
    if date := _US_DATE.fullmatch(token):
        month, day, year = date.groups()
        return [year, f"month:{int(month)}", str(int(day))]
    parts: list[str] = []
    for piece in token.split("-"):
        if clock := _CLOCK.fullmatch(piece):
            parts.append(f"{int(clock[1]):02d}:{int(clock[2]):02d}")
            continue
        if _THOUSANDS.fullmatch(piece):
            piece = piece.replace(",", "")
        parts.extend(_number_text(Decimal(part)) for part in _NUMBER_PART.findall(piece))
    return parts


def _number_text(value: Decimal) -> str:
    try:
        return format(value.normalize(), "f")
    except InvalidOperation:
        return str(value)


def _negates(token: str, lowered: str) -> bool:
    if lowered in _NEGATION_WORDS or lowered.endswith(("n't", "n’t")):
        return True
    return token[0] in _SPACELESS_SET and any(mark in token for mark in _NEGATION_MARKS)


def _bigrams(run: str, *, counter: bool) -> list[str]:
    """A run's character bigrams; a counter after a number (``1958年``) is a term too."""
    terms: list[str] = [run[0]] if counter else []
    for piece in _HIRAGANA.split(run):
        if len(piece) == 1:
            terms.append(piece)
        terms.extend(piece[i : i + 2] for i in range(len(piece) - 1))
    return terms


_SPACELESS_SET = frozenset(
    chr(code)
    for low, high in re.findall(r"(.)-(.)", _SPACELESS)
    for code in range(ord(low), ord(high) + 1)
)
_FUNCTION_WORDS = word_set("function_words")
_NEGATION_WORDS = word_set("negation_words")
_SOURCE_WORDS = word_set("source_words")
_NEGATION_MARKS = word_set("negation_marks")
_MONTHS = {name: int(number) for name, number in word_map("months").items()}
_NUMBER_WORDS = {word: Decimal(value) for word, value in word_map("number_words").items()}
_MULTIPLIERS = {word: Decimal(value) for word, value in word_map("multipliers").items()}
