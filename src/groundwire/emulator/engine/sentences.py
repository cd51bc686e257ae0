"""Splits text into sentences, the unit of both claims and fact windows.

A sentence ends at ``. ! ? …`` followed by a space or the end (closing quotes and brackets
stay with it), at ``。！？`` (no space needed), and at every line break. A period does not end a
sentence after a title or short abbreviation (``Dr.``, ``No.``, ``c.``, ``e.g.``), after a
single capital initial (``J. K. Rowling``), after a list number at the start (``1. Paris``), nor
when the next word starts with a lowercase letter. Thai, Lao and Khmer mark sentences with a
space, not a sign, so text in those scripts is split only at line breaks and the signs above.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from groundwire.emulator.engine.lexicon import TITLE_ABBREVIATIONS

_BOUNDARY = re.compile(r"""[.!?…]+["'”’)\]»」』]*(?=\s|$)|[。！？]+["'”’)\]」』]*|\n\s*""")
_SENTENCE_SIGN = re.compile(r"[.!?…。！？\n]")
_NEXT_VISIBLE = re.compile(r"\s*(\S)")
_LONGEST_ABBREVIATION = max(len(abbreviation) for abbreviation in TITLE_ABBREVIATIONS)


def split_sentences(text: str) -> list[tuple[int, int]]:
    """Split text into sentences, as (start, end) str indices, whitespace trimmed, in order.

    Example:
        >>> text = "Dr. Chen arrived in the U.S. in 1997. She stayed!"
        >>> [text[start:end] for start, end in split_sentences(text)]
        ['Dr. Chen arrived in the U.S. in 1997.', 'She stayed!']
    """
    spans: list[tuple[int, int]] = []
    start = 0
    for boundary in _boundaries(text):
        if boundary.group().strip() == "":
            end = boundary.start()
        elif _ends_sentence(text, start, boundary.start(), boundary.end()):
            end = boundary.end()
        else:
            continue
        _append_trimmed(text, start, end, spans)
        start = boundary.end()
    _append_trimmed(text, start, len(text), spans)
    return spans


def _boundaries(text: str) -> Iterator[re.Match[str]]:
    """Every place that may end a sentence; a cheap scan for the signs finds where to look."""
    position = 0
    while (sign := _SENTENCE_SIGN.search(text, position)) is not None:
        boundary = _BOUNDARY.match(text, sign.start())
        if boundary is None:
            position = sign.end()
            continue
        yield boundary
        position = boundary.end()


def split_claims(answer: str) -> list[tuple[int, int]]:
    """Split an answer into its claims (sentences), as UTF-8 byte spans (end exclusive), in order.

    ``answer.encode()[start:end].decode()`` is the claim text; whitespace between sentences
    belongs to no claim.

    Example:
        >>> answer = "Hi! Zürich is big."
        >>> spans = split_claims(answer)
        >>> spans, [answer.encode()[s:e].decode() for s, e in spans]
        ([(0, 3), (4, 19)], ['Hi!', 'Zürich is big.'])
    """
    byte_spans: list[tuple[int, int]] = []
    position = byte_position = 0
    for start, end in split_sentences(answer):
        start_byte = byte_position + len(answer[position:start].encode())
        end_byte = start_byte + len(answer[start:end].encode())
        byte_spans.append((start_byte, end_byte))
        position, byte_position = end, end_byte
    return byte_spans


def _append_trimmed(text: str, start: int, end: int, spans: list[tuple[int, int]]) -> None:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    if start < end:
        spans.append((start, end))


def _ends_sentence(text: str, sentence_start: int, mark_start: int, mark_end: int) -> bool:
    following = _NEXT_VISIBLE.match(text, mark_end)
    if following is not None and following.group(1).islower():
        return False
    if text[mark_start] != "." or text.startswith("..", mark_start):
        return True
    word_start = max(
        sentence_start,
        *(text.rfind(space, sentence_start, mark_start) + 1 for space in " \t\u00a0"),
    )
    written = text[word_start:mark_start].lstrip("([\"'“‘")
    if not written or len(written) > _LONGEST_ABBREVIATION:
        return True
    word = written.casefold()
    before = text[sentence_start:word_start]
    is_abbreviation = word in TITLE_ABBREVIATIONS and not written.isupper()
    if is_abbreviation or _is_initial(written, before):
        return False
    is_list_number = word.isdigit() and not before.strip()
    return not is_list_number


def _is_initial(written: str, before: str) -> bool:
    """A lone capital after a name or another initial (``J. K. Rowling``), not ``vitamin C.``"""
    if len(written) != 1 or not written.isupper():
        return False
    previous = before.split()[-1:] or [""]
    return not previous[0][:1].islower()
