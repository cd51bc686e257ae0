"""Turns text into the terms the grounding engine compares, so that paraphrases meet.

What a term is:

* Words are casefolded, lose Latin and Greek accents (``café`` = ``cafe``), are lightly stemmed
  (plurals, ``-ed``, ``-ing``, ``-s``, a final ``-e``; irregular forms such as ``won`` = ``win``),
  and a few frequent synonyms share one term (``film`` = ``movie``, ``bought`` = ``acquire``).
  British and American spellings meet (``organise``/``organize``, ``metre``/``meter``).
  Cyrillic words lose a common case ending (``столицей`` = ``столица``).
* Clock times are one value however written: ``5pm`` = ``5 p.m.`` = ``17:00`` = ``17:0``, and a
  bare hour takes the meridiem stated after it (``from 5 to 9 pm``, ``8 in the morning``).
* Numbers are written one way: ``1,000`` = ``1000`` = ``one thousand``, ``2.1 million`` =
  ``2100000``, ``twenty-six`` = ``26``, ``19th`` = ``19``; signs become words (``%``, ``$``).
* Dates become their parts: a month name is ``month:12``, ``1997-12-19`` and ``12/19/1997``
  give ``1997``, ``month:12`` and ``19``. So a claim's ``1997`` is found in a fact's
  ``December 19, 1997``, while a claim's ``December 19, 1997`` is not found in ``1997``.
* Languages written without spaces (Chinese, Japanese, Korean, Thai, Lao, Khmer, Burmese) have
  no dictionary here: every run of such characters becomes overlapping character bigrams
  (``东京是日本`` gives ``东京 京是 是日 日本``), a one-character run stays one term. Japanese
  hiragana is grammar (particles, endings), so a hiragana run is a function word and cuts the
  runs around it (``日本の首都`` gives ``日本 首都``). Numbers
  inside such runs are still numbers, and the character after a number (a counter such as
  ``年`` or ``米``) is a term of its own too (``1958年建成`` gives ``1958 年 年建 建成``).
  Chinese numerals are not converted.
* Identifiers, as records write keys, are their words: ``RestaurantsPriceRange2`` is
  ``restaurant price range 2``, ``review_count`` is ``review count``; a state's postal code is
  its name (``AZ`` = ``Arizona``).
* Function words (``the``, ``is``, ``according``) are kept apart from content terms: they never
  carry a claim, but negation cues and passive ``by`` are read from them.
"""

from __future__ import annotations

import re
from itertools import chain

from groundwire.emulator.engine.caches import text_cache, word_cache
from groundwire.emulator.engine.lexicon import (
    ACRONYMS,
    MONTHS,
    MULTIPLIERS,
    NAME_ALIASES,
    ORDINAL_SUFFIXES,
    STOPWORDS,
    SYNONYMS,
    UNIT_WORDS,
    UNITS,
    US_STATES,
)
from groundwire.emulator.engine.numbers import (
    NUMBER_WORD_MARK,
    decimal_text,
    join_number_tokens,
    parse_digits,
)
from groundwire.emulator.engine.scripts import (
    character_bigrams,
    has_spaceless,
    is_hiragana,
    is_spaceless,
    script_runs,
)
from groundwire.emulator.engine.stemming import english_stem, stem

MAX_CACHED_WORD = 64
"""Longer words are read afresh each time: real words are shorter, and long keys cost memory."""
MAX_CACHED_TEXT = 10_000
"""Longer texts (no legal fact is) are read afresh each time."""

FUNCTION_WORD_MARK = "~"
"""Prefix of a function word's term (``~the``); such terms never enter a term set."""

_MARKS = (
    "\u0300-\u036f\u0483-\u0489\u0591-\u05c7\u0610-\u061a\u064b-\u065f\u0670\u06d6-\u06ed"
    "\u0900-\u0963\u0966-\u0dff\u0e00-\u0e7f\u0e80-\u0eff\u1000-\u109f\u1780-\u17ff"
    "\u1ab0-\u1aff\u1dc0-\u1dff\u200c\u200d\u20d0-\u20ff\u3099-\u309c\ufe00-\ufe0f\ufe20-\ufe2f"
)
TOKEN_PATTERN = re.compile(
    r"\d{1,2}:\d{1,2}(?![\d:])(?:\s?[AaPp]\.?[Mm]\b\.?)?"
    r"|\d{1,2}\s?[AaPp]\.?[Mm]\b\.?"
    r"|\d{4}-\d{1,2}-\d{1,2}(?!\d)"
    r"|\d{1,2}/\d{1,2}/\d{4}(?!\d)"
    r"|°\s?[CFcf]\b|[℃℉$€£%]"
    r"|[A-Za-z]{1,2}(?:\.[A-Za-z]{1,2}){1,8}\.?(?!\w)"
    rf"|\d+(?:[.,]\d+)*[\w{_MARKS}]*"
    rf"|[\w{_MARKS}]+(?:['’][\w{_MARKS}]+)*"
)
"""One match per written word, number, date or sign; everything else separates them."""

NUMBER_WORD_FORMS: frozenset[str] = frozenset(
    chain.from_iterable((w, w.title(), w.upper()) for w in (*UNITS, *MULTIPLIERS))
)
"""Written forms of number words; a text containing none needs no number-word joining."""

_CAMEL_CASE = re.compile(r"[a-z][A-Z]")
_CAMEL_PART = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")
_CLOCK_TIME = re.compile(r"\d{1,2}(?::\d{1,2}(?:\s?[ap]\.?m\.?)?|\s?[ap]\.?m\.?)", re.IGNORECASE)
_CLOCK_WORDS = {"noon": "12:00", "midday": "12:00", "midnight": "0:00"}
_MERIDIEM_CLOCK = re.compile(r"(\d{1,2})(?::\d{1,2})?\s?([AaPp])\.?[Mm]\.?")
_RANGE_WORDS = frozenset({"to", "until", "till", "and", "through"})
_RANGE_SIGNS = frozenset({"-", "–", "—"})
_DAY_PARTS = {
    ("in", "the", "morning"): "am",
    ("in", "the", "afternoon"): "pm",
    ("in", "the", "evening"): "pm",
    ("at", "night"): "pm",
}
_ELISIONS = re.compile(r"^(?:l|d|j|qu|n|s|c|m|t|dell|all|nell|sull)'")
_LEADING_DIGITS = re.compile(r"\d+(?:[.,]\d+)*")
_PLURAL_QUANTITIES = frozenset({"hundreds", "thousands", "millions", "billions", "dozens"})
_AMBIGUOUS_MONTHS = frozenset({"may", "march", "mar"})
_CONTRACTED_NEGATIONS = {"ca": "can", "wo": "will", "sha": "shall"}
_DOTTED_FUNCTION_WORDS = frozenset({"eg", "ie", "cf", "vs", "am"})


@word_cache(max_entries=131072, max_key_characters=MAX_CACHED_WORD)
def word_terms(word: str) -> tuple[str, ...]:
    """Give the terms of one written word, number, date or sign (as matched by TOKEN_PATTERN).

    Function words come back marked with ``~``; number words carry a provisional mark that
    :func:`join_number_words` resolves.

    Example:
        >>> word_terms("Studied"), word_terms("1997-12-19"), word_terms("the")
        (('study',), ('1997', 'month:12', '19'), ('~the',))
    """
    if word[0].isdigit():
        return _number_terms(word)
    if has_spaceless(word):
        return _spaceless_terms(word)
    if "_" in word or (word.isascii() and _CAMEL_CASE.search(word)):
        parts = _identifier_parts(word)
        if parts != [word]:
            return tuple(chain.from_iterable(map(word_terms, parts)))
    expanded = expanded_name(word)
    if expanded is not None:
        return tuple(chain.from_iterable(map(word_terms, expanded.split())))
    if len(word) == 2 and word in US_STATES:
        return tuple(stem(part) for part in US_STATES[word].split() if part not in STOPWORDS)
    lowered = word.replace("’", "'").casefold()
    sign = lowered.replace(" ", "")
    if sign in SYNONYMS and not sign[0].isalpha():
        return (english_stem(SYNONYMS[sign]),)
    if "." in lowered:
        dotted = lowered.replace(".", "")
        return (FUNCTION_WORD_MARK + dotted if dotted in _DOTTED_FUNCTION_WORDS else dotted,)
    if lowered.endswith("n't"):
        base = _CONTRACTED_NEGATIONS.get(lowered[:-3], lowered[:-3])
        return (FUNCTION_WORD_MARK + base, FUNCTION_WORD_MARK + "not")
    lowered = _ELISIONS.sub("", lowered)
    if lowered.endswith("'s"):
        lowered = lowered[:-2]
    lowered = lowered.replace("'", "")
    return (_plain_word_term(word, lowered),) if lowered else ()


def expanded_name(word: str) -> str | None:
    """The full name a capitalised short form or alias stands for (``U.S.``, ``UK``, ``Britain``).

    Case matters: ``US`` and ``U.S.`` are the United States, ``us`` stays a pronoun.

    Example:
        >>> expanded_name("U.S."), expanded_name("Britain"), expanded_name("us")
        ('United States', 'United Kingdom', None)
    """
    if word in NAME_ALIASES:
        return NAME_ALIASES[word]
    if len(word) <= 8 and word.isupper():
        return ACRONYMS.get(word.replace(".", ""))
    return None


def _identifier_parts(word: str) -> list[str]:
    """The words inside a key or a joined-up identifier.

    ``review_count``: ``review``, ``count``; ``PriceRange22``: ``Price``, ``Range``, ``22``;
    a one-letter piece keeps the word whole (``PhD``, ``iPhone``).
    """
    parts: list[str] = []
    for part in word.split("_"):
        pieces = _CAMEL_PART.findall(part) if part.isascii() and _CAMEL_CASE.search(part) else []
        if pieces and all(len(piece) > 1 for piece in pieces):
            parts.extend(pieces)
        elif part:
            parts.append(part)
    return parts


def _plain_word_term(word: str, lowered: str) -> str:
    if lowered in UNITS:
        return f"{NUMBER_WORD_MARK}u:{UNITS[lowered]}"
    if lowered in MULTIPLIERS:
        return f"{NUMBER_WORD_MARK}m:{MULTIPLIERS[lowered]}"
    if lowered in _CLOCK_WORDS:
        return _CLOCK_WORDS[lowered]
    if lowered in MONTHS and (word[0].isupper() or lowered not in _AMBIGUOUS_MONTHS):
        return f"month:{MONTHS[lowered]}"
    if lowered in STOPWORDS or lowered in _PLURAL_QUANTITIES:
        return FUNCTION_WORD_MARK + lowered
    return stem(lowered)


def _number_terms(word: str) -> tuple[str, ...]:
    if _CLOCK_TIME.fullmatch(word):
        return (_clock_time(word),)
    if "-" in word:
        year_text, month_text, day_text = word.split("-")
        return (decimal_text(year_text), f"month:{int(month_text)}", decimal_text(day_text))
    if "/" in word:
        first, second, year = (int(part) for part in word.split("/"))
        month, day = (second, first) if first > 12 else (first, second)
        return (str(year), f"month:{month}", str(day))
    match = _LEADING_DIGITS.match(word)
    digits = match.group() if match else word
    suffix = word[len(digits) :]
    numbers = tuple(parse_digits(digits))
    if not suffix:
        return numbers
    lowered = suffix.casefold()
    if lowered in ORDINAL_SUFFIXES:
        return {"1": ("first",), "2": ("second",)}.get(numbers[-1], numbers)
    if lowered == "s" and numbers[-1].endswith("0"):
        return (numbers[-1] + "s",)
    if has_spaceless(suffix):
        counter = () if is_hiragana(suffix[0]) or len(suffix) == 1 else (suffix[0],)
        return numbers + counter + word_terms(suffix)
    if lowered in UNIT_WORDS:
        return numbers + word_terms(suffix)
    return (word.casefold(),)


def _clock_time(word: str) -> str:
    """``5pm``, ``5 p.m.``, ``17:00`` and ``17:0`` are all ``17:00``."""
    digits, _, rest = word.partition(":")
    minutes_text = "".join(c for c in rest if c.isdigit()) or "0"
    hour_text = "".join(c for c in digits if c.isdigit())
    hour, minutes = int(hour_text), int(minutes_text)
    meridiem = "".join(c for c in word.casefold() if c.isalpha())
    if meridiem == "pm" and hour < 12:
        hour += 12
    elif meridiem == "am" and hour == 12:
        hour = 0
    return f"{hour}:{minutes:02d}"


def _spaceless_terms(word: str) -> tuple[str, ...]:
    terms: list[str] = []
    after_number = False
    for run in script_runs(word):
        if is_hiragana(run[0]):
            terms.append(FUNCTION_WORD_MARK + run)
        elif is_spaceless(run[0]):
            if after_number and len(run) > 1:
                terms.append(run[0])
            terms.extend(character_bigrams(run))
        else:
            terms.extend(word_terms(run))
        after_number = run[0].isdigit()
    return tuple(terms)


def join_number_words(terms: list[str]) -> list[str]:
    """Turn runs of number words (and a number followed by a multiplier) into one number.

    Example:
        >>> join_number_words([word_terms(w)[0] for w in "two hundred and six bones".split()])
        ['206', 'bon']
    """
    return [term for term, _ in join_number_tokens([(term, None) for term in terms])]


def with_clock_hours(words: list[str], gaps: list[str]) -> list[str]:
    """The words, each bare hour given the meridiem that the words after it state.

    ``from 5 to 9 pm`` and ``5-9pm`` are 17:00 to 21:00 (``11 to 2pm`` starts in the
    morning), ``8 in the morning`` is 8:00 and ``9 at night`` 21:00. ``gaps[i]`` is the text
    between word ``i - 1`` and word ``i``. One pass, looking at most three words ahead.

    Example:
        >>> with_clock_hours(["5", "to", "9pm"], ["", " ", " "])
        ['5pm', 'to', '9pm']
        >>> with_clock_hours(["11", "2pm"], ["", "-"])
        ['11am', '2pm']
        >>> with_clock_hours(["8", "in", "the", "morning"], [""] * 4)
        ['8am', 'in', 'the', 'morning']
    """
    read = list(words)
    for place, word in enumerate(words):
        if not (word.isascii() and word.isdigit() and 1 <= int(word) <= 12):
            continue
        meridiem = _stated_meridiem(words, gaps, place)
        if meridiem is not None:
            read[place] = word + meridiem
    return read


def _stated_meridiem(words: list[str], gaps: list[str], place: int) -> str | None:
    ahead = [word.casefold() for word in words[place + 1 : place + 4]]
    phrase = tuple(ahead[:3]) if tuple(ahead[:3]) in _DAY_PARTS else tuple(ahead[:2])
    if phrase in _DAY_PARTS:
        return _DAY_PARTS[phrase]
    following = place + 1
    if ahead and ahead[0] in _RANGE_WORDS:
        following = place + 2
    elif not (place + 1 < len(words) and gaps[place + 1].strip() in _RANGE_SIGNS):
        return None
    if following >= len(words):
        return None
    clock = _MERIDIEM_CLOCK.fullmatch(words[following])
    if clock is None:
        return None
    hour, stated = int(clock.group(1)), "pm" if clock.group(2).casefold() == "p" else "am"
    hour_here = int(words[place])
    if hour_here <= hour or hour_here == 12:
        return stated
    return "am" if stated == "pm" else "pm"


def opening_word(word: str, following: str) -> str:
    """A sentence's first word as it should be read: an opening modal is no month.

    ``May reduce the risk`` opens with the verb, written capitalised only because it is first.

    Example:
        >>> opening_word("May", "reduce"), opening_word("May", "2021"), opening_word("Rome", "is")
        ('may', 'May', 'Rome')
    """
    if word.casefold() in _AMBIGUOUS_MONTHS and following[:1].islower():
        return word.casefold()
    return word


@text_cache(max_characters=4_000_000, max_key_characters=MAX_CACHED_TEXT)
def content_terms(text: str) -> frozenset[str]:
    """Give the set of content terms of a text: what a claim or a fact sentence is about.

    Example:
        >>> sorted(content_terms("The film was released on December 19, 1997."))
        ['19', '1997', 'month:12', 'movi', 'releas']
    """
    words = TOKEN_PATTERN.findall(text)
    if len(words) > 1:
        words[0] = opening_word(words[0], words[1])
    if any(word.isdigit() for word in words):
        words = with_clock_hours(words, _gaps(text))
    if NUMBER_WORD_FORMS.isdisjoint(words):
        return frozenset(chain.from_iterable(map(_content_word_terms, words)))
    terms = join_number_words(list(chain.from_iterable(map(word_terms, words))))
    return frozenset(term for term in terms if term[0] != FUNCTION_WORD_MARK)


def _gaps(text: str) -> list[str]:
    """The text before each written word (after the previous one)."""
    gaps: list[str] = []
    end = 0
    for match in TOKEN_PATTERN.finditer(text):
        gaps.append(text[end : match.start()])
        end = match.end()
    return gaps


@word_cache(max_entries=131072, max_key_characters=MAX_CACHED_WORD)
def _content_word_terms(word: str) -> tuple[str, ...]:
    return tuple(term for term in word_terms(word) if term[0] != FUNCTION_WORD_MARK)


def clear_text_caches() -> None:
    """Forget every cached word and sentence reading (for cold-start benchmarks).

    Example:
        >>> clear_text_caches()
    """
    for cached in (word_terms, _content_word_terms, content_terms):
        cached.cache_clear()
