"""Strips what formats a sentence but says nothing: list markers, bullets, headings, source notes.

An answer written as a list (``1. Connect your phone``, ``- Name: Casa Luna``, ``Step 2:``)
or with notes on where it read things (``(Passage 3)``, ``[2]``, ``according to passage 1``,
``the article``, ``the author`` of a summary)
means the same as the bare sentence; read with them, ``1`` is a number the facts must hold
and ``passage`` a word they lack. Scraped facts carry list numbers too (``4  Serve hot.``).
The patterns run once per sentence, anchored or with bounded repetition, in linear time.
"""

from __future__ import annotations

import re

_LEADING_LAYOUT = re.compile(
    r"""\s*+
    (?:(?:[-*•·‣◦▪●○■□➢➤→–—+>]|\#{1,6})\s*+)*+
    (?:
        (?:step|part|phase|tip|stage|item)\s++\d{1,3}\s*+[:.)\-–—]?
      | \(?(?:\d{1,3}|[a-zA-Z]|[ivxIVX]{1,4})[.)](?![\d\w])
      | \d{1,3}(?=\s{2})
    )?+
    (?:\s*+\*{1,3})?+""",
    re.IGNORECASE | re.VERBOSE,
)
_SOURCE_NUMBERS = r"\d{1,3}(?:\s*+(?:,|and|&|-|–)\s*+\d{1,3}){0,10}"
_SOURCE_NOTE = re.compile(
    rf"""\[{_SOURCE_NUMBERS}\]
    | \(\s*+(?:see\s++|from\s++|according\s++to\s++)?(?:the\s++)?
        (?:passage|source|document|doc|reference|ref|context|article|result)s?\s*+
        {_SOURCE_NUMBERS}\s*+\)
    | \b(?:in|from|by|of)\s++(?:the\s++)?(?:passage|source|document)s?\s++{_SOURCE_NUMBERS}\b
    | \b(?:passage|source|document)s?\s++{_SOURCE_NUMBERS}\b
    | \b(?:(?:the|these|this|those|both)\s++)?(?:(?:given|provided|above|retrieved)\s++)?
        (?:passages?|sources?|documents?|context)\b
        (?:\s++(?:provided|given|above))?
    | \b(?:the|this)\s++(?:news\s++)?(?:article|author)\b(?!\s++of\b)""",
    re.IGNORECASE | re.VERBOSE,
)
_DIGIT = re.compile(r"\d")
_SOURCE_NUMBER = re.compile(r"(\d{1,3})(?:\s*+[-–]\s*+(\d{1,3}))?")
_LONGEST_RANGE = 10
_EMPHASIS = re.compile(r"\*{1,3}|_{2,3}|`+")


def strip_layout(sentence: str) -> str:
    """The sentence without its list marker, Markdown emphasis and notes on its sources.

    Example:
        >>> strip_layout("1. Connect your phone (Passage 2).")
        'Connect your phone  .'
        >>> strip_layout("- **Name:** Casa Luna"), strip_layout("Step 3: Stir.")
        ('Name: Casa Luna', 'Stir.')
        >>> strip_layout("Passage 1 suggests that it rains."), strip_layout("It has 2 wheels.")
        ('suggests that it rains.', 'It has 2 wheels.')
    """
    marker = _LEADING_LAYOUT.match(sentence)
    text = sentence[marker.end() :] if marker is not None else sentence
    if "*" in text or "_" in text or "`" in text:
        text = _EMPHASIS.sub("", text)
    text = _SOURCE_NOTE.sub(" ", text)
    return text.strip()


def named_sources(sentence: str) -> frozenset[int]:
    """The facts a sentence's notes name by number (``Passage 2``, ``[3]``), counted from 0.

    A claim that names its source is checked against that source: ``(Passage 2)`` is the
    request's second fact.

    Example:
        >>> sorted(named_sources("It is cheap (Passages 1 and 3) [5]."))
        [0, 2, 4]
        >>> sorted(named_sources("Step 2: stir.")), sorted(named_sources("See sources 2-4."))
        ([], [1, 2, 3])
    """
    named: set[int] = set()
    for note in _SOURCE_NOTE.finditer(sentence):
        for number in _SOURCE_NUMBER.finditer(note.group()):
            first = int(number.group(1))
            last = int(number.group(2)) if number.group(2) else first
            if first >= 1 and 0 <= last - first <= _LONGEST_RANGE:
                named.update(range(first - 1, last))
    return frozenset(named)
