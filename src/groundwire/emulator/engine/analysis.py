"""Reads one sentence closely: terms in order, which look like names, which clauses are negative.

The index only needs a sentence's set of terms; the checks that overlap misses (a missing
name, a flipped negation, swapped roles) need more, and run on few sentences, so this closer
reading is done on demand and cached.

A clause ends at ``; : ( ) —`` (but a record's ``key: no`` or ``key: False`` is one clause),
at a contrast word (``but``, ``although``), at a subordinator (``if``, ``until``,
``because``) and at a comma that is followed by a pronoun
(``..., it is open on Tuesdays``), and before a second predicate (``and will``). A clause is
negative when it holds a negation cue (``not``, ``never``, ``n't``, ``false``, ``no`` but not
``No. 9``, ``no more than`` nor ``no wonder``, ``kein``, ``不``, ``ない``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import NamedTuple

from groundwire.emulator.engine.caches import text_cache, word_cache
from groundwire.emulator.engine.lexicon import (
    AUXILIARIES,
    CLAUSE_BREAK_WORDS,
    CLAUSE_STARTING_PRONOUNS,
    NEGATION_CHARACTERS,
    NEGATION_CUES,
    NEGATION_SUFFIXES,
    SUBORDINATORS,
)
from groundwire.emulator.engine.numbers import is_numeric_term, join_number_tokens
from groundwire.emulator.engine.scripts import has_spaceless, is_spaceless
from groundwire.emulator.engine.text import (
    FUNCTION_WORD_MARK,
    MAX_CACHED_TEXT,
    MAX_CACHED_WORD,
    NUMBER_WORD_FORMS,
    TOKEN_PATTERN,
    opening_word,
    with_clock_hours,
    word_terms,
)

_NOT_ONLY = frozenset({"only", "just", "merely", "simply", "solely"})
_IDIOMS = frozenset({"wonder", "doubt"})
_BOUNDS = frozenset({"more", "fewer", "less", "later", "earlier", "greater"})
_COORDINATORS = frozenset({"and", "or"})
_OPENING_GAP = re.compile(r"[.!?:;\n\"“(\[*•]")
_CLAUSE_PUNCTUATION = re.compile(r"[;:()\[\]—–]|\s-\s|[，、；：（）]")
_PAUSE = re.compile(r"[,;:()\[\]\"“”«»—–，、；：（）]")
_NEGATION_HINT = re.compile(
    "|".join(sorted(NEGATION_CUES, key=len, reverse=True)).join((r"(?i)\b(?:", r")\b|n['’]t\b"))
    + "|["
    + "".join(NEGATION_CHARACTERS)
    + "]|"
    + "|".join(NEGATION_SUFFIXES)
)


def may_negate(sentence: str) -> bool:
    """Say quickly whether a sentence could hold a negation (a cheap test before reading it).

    Example:
        >>> may_negate("It isn't open."), may_negate("巴黎不是首都"), may_negate("It is open.")
        (True, True, False)
    """
    return _NEGATION_HINT.search(sentence) is not None


def written_as_name(sentence: str, term: str) -> bool:
    """Say whether the sentence writes the term capitalised somewhere other than first.

    A word that opens a line, a list item (``2 Add the rice``), a quotation or what follows a
    colon (``Tip: Apply it``) is written capitalised for that reason, not as a name.

    Example:
        >>> written_as_name("Her rival Alice won.", "alic"), written_as_name("Alice won.", "alic")
        (True, False)
        >>> written_as_name("Step 2: Add the rice.", "add")
        False
    """
    previous_end = 0
    numbered = False
    for position, match in enumerate(TOKEN_PATTERN.finditer(sentence)):
        word = match.group()
        opening = numbered or _OPENING_GAP.search(sentence, previous_end, match.start()) is not None
        numbered = position == 0 and word[0].isdigit()
        previous_end = match.end()
        if position and not opening and _looks_like_name(word) and term in word_terms(word):
            return True
    return False


class Token(NamedTuple):
    """One term of a sentence and what its written form said about it."""

    term: str
    word_index: int
    clause: int
    content: bool
    numeric: bool
    name_like: bool
    unmistakable_name: bool
    sentence_initial: bool
    negation: bool
    paused: bool = False
    """Punctuation (a comma, a quote, a bracket, a dash) stands between it and the word before."""


@dataclass(frozen=True, slots=True)
class Analysis:
    """A sentence read closely: its tokens in order and its negative clauses.

    Example:
        >>> reading = analyse("Bats are not blind; they hunt insects.")
        >>> [t.term for t in reading.tokens if t.content], sorted(reading.negated_clauses)
        (['bat', 'blind', 'hunt', 'insect'], [0])
    """

    tokens: tuple[Token, ...]
    negated_clauses: frozenset[int]
    terms: frozenset[str]
    """The content terms, as a set."""
    valued_negations: frozenset[int] = frozenset()
    """Clauses negated by a record's value (``Delivery: no``, ``DogsAllowed: False``)."""
    negative_questions: frozenset[int] = frozenset()
    """Clauses that ask a negative question (``wouldn't someone have noticed?``): they lean
    either way, so they neither affirm nor deny."""

    @property
    def content_tokens(self) -> tuple[Token, ...]:
        """The tokens that carry meaning (no function words)."""
        return tuple(token for token in self.tokens if token.content)


class _Word(NamedTuple):
    position: int
    clause: int
    name_like: bool
    unmistakable_name: bool
    sentence_initial: bool
    negation: bool
    paused: bool


@text_cache(max_characters=2_000_000, max_key_characters=MAX_CACHED_TEXT)
def analyse(sentence: str) -> Analysis:
    """Read a sentence closely (see the module docstring for what clauses and negation are).

    Example:
        >>> reading = analyse("In the final, Bob defeated Alice.")
        >>> [(t.term, t.name_like) for t in reading.content_tokens]
        [('final', False), ('bob', True), ('defeat', False), ('alic', True)]
    """
    matches = list(TOKEN_PATTERN.finditer(sentence))
    raw_words = [match.group() for match in matches]
    if any(word.isdigit() for word in raw_words):
        ends = [0] + [match.end() for match in matches[:-1]]
        gaps = [sentence[end : match.start()] for end, match in zip(ends, matches, strict=True)]
        clock_words = with_clock_hours(raw_words, gaps)
    else:
        clock_words = raw_words
    items: list[tuple[str, _Word]] = []
    asks = sentence.rstrip().endswith("?")
    questioned: set[int] = set()
    clause = 0
    previous_end = 0
    valued: set[int] = set()
    for index, match in enumerate(matches):
        raw = match.group()
        lowered, name_like, unmistakable, cue = _word_shape(raw)
        gap = sentence[previous_end : match.start()]
        previous = raw_words[index - 1].casefold() if index else ""
        if items and (_starts_clause(gap, lowered) or _starts_predicate(previous, lowered)):
            clause += 1
        following = raw_words[index + 1] if index + 1 < len(raw_words) else ""
        after_following = raw_words[index + 2] if index + 2 < len(raw_words) else ""
        next_character = sentence[match.end() : match.end() + 1]
        contracted = lowered.endswith(("n't", "n’t"))
        if contracted and asks and _opens_question(gap, previous, items, clause):
            questioned.add(clause)
        negation = contracted or (
            cue and not _cue_cancelled(lowered, next_character, following, after_following)
        )
        if negation and ":" in gap:
            valued.add(clause)
        sentence_initial = index == 0 or ":" in gap or "\n" in gap
        word = _Word(
            position=index,
            clause=clause,
            name_like=name_like,
            unmistakable_name=unmistakable,
            sentence_initial=sentence_initial,
            negation=negation,
            paused=bool(index) and _PAUSE.search(gap) is not None,
        )
        written = clock_words[index]
        if sentence_initial:
            written = opening_word(written, following)
        items.extend((term, word) for term in word_terms(written))
        previous_end = match.end()
    if not NUMBER_WORD_FORMS.isdisjoint(raw_words):
        items = join_number_tokens(items)
    tokens = tuple(_token(term, word) for term, word in items)
    negated = frozenset(token.clause for token in tokens if token.negation)
    terms = frozenset(token.term for token in tokens if token.content)
    return Analysis(
        tokens=tokens,
        negated_clauses=negated,
        terms=terms,
        valued_negations=frozenset(valued),
        negative_questions=frozenset(questioned),
    )


def _opens_question(gap: str, previous: str, items: list[tuple[str, _Word]], clause: int) -> bool:
    """Whether a contracted negative auxiliary opens a question (``wouldn't someone have seen?``).

    It stands first in its clause, after a comma or after ``and``/``or``. ``Why didn't``
    presupposes the negation: no such question.
    """
    if previous == "why":
        return False
    return not items or items[-1][1].clause != clause or "," in gap or previous in _COORDINATORS


def _token(term: str, word: _Word) -> Token:
    function_word = term.startswith(FUNCTION_WORD_MARK)
    negation = word.negation
    numeric = not function_word and is_numeric_term(term)
    return Token(
        term=term,
        word_index=word.position,
        clause=word.clause,
        content=not function_word,
        numeric=numeric,
        name_like=word.name_like and not function_word and not numeric,
        unmistakable_name=word.unmistakable_name and not function_word and not numeric,
        sentence_initial=word.sentence_initial,
        negation=negation,
        paused=word.paused,
    )


def _starts_clause(gap: str, lowered: str) -> bool:
    if ":" in gap and lowered in NEGATION_CUES:
        return False  # a record's ``Delivery: no`` negates its key
    if _CLAUSE_PUNCTUATION.search(gap) or lowered in CLAUSE_BREAK_WORDS or lowered in SUBORDINATORS:
        return True
    return ("," in gap or "，" in gap) and lowered in CLAUSE_STARTING_PRONOUNS


@word_cache(max_entries=65536, max_key_characters=MAX_CACHED_WORD)
def _word_shape(raw: str) -> tuple[str, bool, bool, bool]:
    """What a written word is on its own, before looking at its neighbours.

    Its casefolded form, whether it looks like a name, is unmistakably one, and is a
    negation cue.
    """
    return raw.casefold(), _looks_like_name(raw), _is_unmistakable_name(raw), _is_cue(raw)


def _looks_like_name(raw: str) -> bool:
    """Capitalised or mixed case (``Paris``, ``iPhone``), or one capital letter (``vitamin K``)."""
    if not raw[0].isalpha() or is_spaceless(raw[0]) or raw == "I":
        return False
    return raw != raw.lower()


def _is_unmistakable_name(raw: str) -> bool:
    """All capitals or a capital inside (``NASA``, ``YouTube``): a name even first in a sentence."""
    if len(raw) < 2 or not raw[0].isalpha() or is_spaceless(raw[0]):
        return False
    rest = raw[1:]
    return rest != rest.lower()


def _is_cue(raw: str) -> bool:
    if has_spaceless(raw):
        return not NEGATION_CHARACTERS.isdisjoint(raw) or any(
            suffix in raw for suffix in NEGATION_SUFFIXES
        )
    return raw.casefold() in NEGATION_CUES


def _starts_predicate(previous: str, lowered: str) -> bool:
    """Whether ``and``/``or`` before an auxiliary starts a second predicate.

    Such a predicate has the same subject (``they aren't swayed and will seek...``), so a
    negation does not reach into it.
    """
    return previous in _COORDINATORS and lowered in AUXILIARIES


def _cue_cancelled(lowered: str, next_character: str, following: str, after: str) -> bool:
    """Whether a ``no`` or ``not`` is no negation at all.

    ``No. 9`` and ``No 9`` are numbers, ``not only`` (``not just``) is no negation, nor is
    a bound such as ``no more than`` or an idiom (``no wonder``, ``no doubt``).
    """
    if lowered == "no" and (next_character == "." or following[:1].isdigit()):
        return True
    if lowered == "no" and following.casefold() in _BOUNDS and after.casefold() == "than":
        return True
    if lowered == "no" and following.casefold() in _IDIOMS:
        return True
    return lowered == "not" and following.casefold() in _NOT_ONLY
