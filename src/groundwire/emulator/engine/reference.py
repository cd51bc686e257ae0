"""Resolves what a fact's sentences are about when they do not say it by name.

A fact that reads "Smith joined in 1955. He led the team from 1958 to 1963." supports "Smith
led the team from 1958 to 1963": the pronoun subject stands for the most recent name. Light
coreference, without a parser: a sentence whose subject is a pronoun (``he``, ``she``,
``they``, or an opening ``it``; not a possessive), or a definite description (an opening
``The company``, ``This plan``: a common noun, no name after it), also holds the names of the
nearest earlier sentence of the same fact that has names: a news article goes on about what
it named (``Acme opened a plant. ... The company hired 300 workers.``). A business record
written as ``key: value`` lines is about the entity its first line names, so that title counts
for every line.
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
