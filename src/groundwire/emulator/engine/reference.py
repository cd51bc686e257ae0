"""Resolves what a fact's sentences are about when they do not say it by name.

A fact that reads "Smith joined in 1955. He led the team from 1958 to 1963." supports "Smith
led the team from 1958 to 1963": the pronoun subject stands for the most recent name. Light
coreference, without a parser: a sentence whose subject is a pronoun (``he``, ``she``,
``they``, or an opening ``it``; not a possessive), or a definite description (an opening
``The company``, ``This plan``: a common noun, no name after it), also holds the names of the
nearest earlier sentence of the same fact that has names: a news article goes on about what
it named (``Acme opened a plant. ... The company hired 300 workers.``). A surname alone
also holds the other words of the one full name it ended earlier in the fact (``Dillard``
after ``Jill (Duggar) Dillard``). A business record written as ``key: value`` lines is about
the entity its first line names, so that title counts for every line.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from groundwire.emulator.engine.lexicon import STOPWORDS

_PERSONAL_SUBJECT = re.compile(r"\W*+(?:\w++\W++){0,3}?(?:he|she|they)\b", re.IGNORECASE)
_IMPERSONAL_SUBJECT = re.compile(r"\W*+(?:it|its)\b", re.IGNORECASE)
_DEFINITE_SUBJECT = re.compile(r"\W*+(?:The|This)\s++[a-z][a-z-]{0,30}+\b(?!\s++[A-Z])")
_NAME = re.compile(r"\b[A-Z][\w'’-]{0,40}")
_RECORD_LINE = re.compile(r"[^\n:]{1,80}:\s")
_LOOKBACK_SENTENCES = 3
_MOST_NAMES = 4
_MOST_WORDS = 400


def names_in(sentence: str) -> list[str]:
    """The capitalised words of a sentence that are not function words, in order.

    Example:
        >>> names_in("In 1955 Bob Smith joined the club.")
        ['Bob', 'Smith']
    """
    return [word for word in _NAME.findall(sentence) if word.casefold() not in STOPWORDS]


def antecedents(text: str, spans: Sequence[tuple[int, int]]) -> list[list[str]]:
    """For each sentence with a pronoun subject, the names it may stand for (else nothing).

    Example:
        >>> text = "Smith joined in 1955. He led the team."
        >>> antecedents(text, [(0, 21), (22, 38)])
        [[], ['Smith']]
    """
    found: list[list[str]] = []
    for number, (start, end) in enumerate(spans):
        sentence = text[start:end]
        if not (
            _PERSONAL_SUBJECT.match(sentence)
            or _IMPERSONAL_SUBJECT.match(sentence)
            or _DEFINITE_SUBJECT.match(sentence)
        ):
            found.append([])
            continue
        names: list[str] = []
        for earlier in range(number - 1, max(-1, number - 1 - _LOOKBACK_SENTENCES), -1):
            names = names_in(text[spans[earlier][0] : spans[earlier][1]])[:_MOST_NAMES]
            if names:
                break
        found.append(names)
    return found


def surname_antecedents(text: str, spans: Sequence[tuple[int, int]]) -> list[list[str]]:
    """For each sentence, the other words of earlier full names whose last word it names alone.

    News names a person in full once (``Jill (Duggar) Dillard``) and by the surname after
    (``Dillard said...``); that sentence is about the whole name too. Only a last word that
    ends one full name of the fact so far counts (``Duggar`` after ``Jim Bob Duggar`` and
    ``Josh Duggar`` stands for neither).

    Example:
        >>> text = "Ann Dale won. Dale said it was hard."
        >>> surname_antecedents(text, [(0, 13), (14, 36)])
        [[], ['Ann']]
    """
    by_last: dict[str, set[tuple[str, ...]]] = {}
    found: list[list[str]] = []
    for start, end in spans:
        runs = _name_runs(text[start:end])
        extra: list[str] = []
        for run in runs:
            if len(run) == 1:
                known = by_last.get(run[0].casefold(), set())
                if len(known) == 1:
                    extra.extend(word for word in next(iter(known)) if word != run[0])
        for run in runs:
            if len(run) > 1:
                by_last.setdefault(run[-1].casefold(), set()).add(run)
        found.append(extra[:_MOST_NAMES])
    return found


def _name_runs(sentence: str) -> list[tuple[str, ...]]:
    """Runs of adjacent capitalised words (a bracketed one included), function words aside."""
    runs: list[list[str]] = []
    joined = False
    for raw in sentence.split()[:_MOST_WORDS]:
        word = raw.strip("()[]\"'“”‘’,;:.!?")
        if word.endswith(("'s", "’s")):
            word = word[:-2]
        if not _NAME.fullmatch(word) or word.casefold() in STOPWORDS:
            joined = False
            continue
        if joined:
            runs[-1].append(word)
        else:
            runs.append([word])
        joined = not raw.endswith((",", ";", ":", ".", "!", "?"))
    return [tuple(run) for run in runs]


def record_title(text: str, spans: Sequence[tuple[int, int]]) -> str:
    r"""The value of a record's first ``key: value`` line, when most lines are such; else "".

    Example:
        >>> record = "name: Casa Luna\ncity: Tucson\nstars: 4.0"
        >>> record_title(record, [(0, 15), (16, 28), (29, 39)])
        'Casa Luna'
    """
    if len(spans) < 2:
        return ""
    lines = [text[start:end] for start, end in spans]
    keyed = [line for line in lines if _RECORD_LINE.match(line)]
    if 2 * len(keyed) < len(lines) or not _RECORD_LINE.match(lines[0]):
        return ""
    return lines[0].partition(":")[2].strip()
