"""Splits text into sentences, the unit of both claims and fact windows.

A sentence ends at ``. ! ? …`` followed by a space or the end (closing quotes and brackets
stay with it), at ``。！？`` (no space needed), and at every line break. A period does not end a
sentence after a title or short abbreviation (``Dr.``, ``No.``, ``c.``, ``e.g.``), after a
single capital initial (``J. K. Rowling``), after a list number at the start (``1. Paris``),
after a dotted abbreviation followed by a name (``the U.S. Census Bureau``), nor when the next
word starts with a lowercase letter. Thai, Lao and Khmer mark sentences with a
space, not a sign, so text in those scripts is split only at line breaks and the signs above.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from groundwire.emulator.engine.words import word_set

STOPWORDS = word_set("function_words")
TITLE_ABBREVIATIONS = word_set("abbreviations")

_CLOSERS = "\"'”’)\\]»」』"
_LATIN_END = re.compile(rf"[.!?…]++[{_CLOSERS}]*+")
_CJK_END = re.compile(r"[。！？]++[\"'”’)\]」』]*+")
_LINE_END = re.compile(r"\n\s*+")
_SENTENCE_SIGN = re.compile(r"[.!?…。！？\n]")
_NEXT_VISIBLE = re.compile(r"\s*+(\S)")
_WORD_SEPARATORS = " \t\u00a0"
_DOTTED_ABBREVIATION = re.compile(r"(?:[A-Za-z]\.){1,4}[A-Za-z]")
_WORD = re.compile(r"\w{1,40}")
_LONGEST_ABBREVIATION = max(len(abbreviation) for abbreviation in TITLE_ABBREVIATIONS)
_WORD_LOOKBACK = _LONGEST_ABBREVIATION + 8
"""How far back from a period the word before it is looked for; a longer word is no
abbreviation, and looking no further keeps splitting linear in the text's length."""


def split_sentences(text: str) -> list[tuple[int, int]]:
    """Split text into sentences, as (start, end) str indices, whitespace trimmed, in order.

    Runs in time linear in the length of the text, whatever it holds (a run of 20,000 dots
    included): every character is looked at a bounded number of times.

    Example:
        >>> text = "Dr. Chen arrived in the U.S. in 1997. She stayed!"
        >>> [text[start:end] for start, end in split_sentences(text)]
        ['Dr. Chen arrived in the U.S. in 1997.', 'She stayed!']
    """
    spans: list[tuple[int, int]] = []
    start = 0
    first_visible = _first_visible(text, start)
    for mark_start, mark_end, line_break in _boundaries(text):
        if line_break:
            end = mark_start
        elif _ends_sentence(text, first_visible, mark_start, mark_end):
            end = mark_end
        else:
            continue
        _append_trimmed(text, start, end, spans)
        start = mark_end
        first_visible = _first_visible(text, start)
    _append_trimmed(text, start, len(text), spans)
    return spans


def _boundaries(text: str) -> Iterator[tuple[int, int, bool]]:
    """Every place that may end a sentence: (start, end, is a line break).

    A run of ``.!?…`` (and closing quotes) that is not followed by a space is skipped whole,
    so no character is scanned twice.
    """
    position = 0
    while (sign := _SENTENCE_SIGN.search(text, position)) is not None:
        character = sign.group()
        if character == "\n":
            line = _LINE_END.match(text, sign.start())
            assert line is not None
            yield sign.start(), line.end(), True
            position = line.end()
            continue
        pattern = _CJK_END if character in "。！？" else _LATIN_END
        run = pattern.match(text, sign.start())
        assert run is not None
        position = run.end()
        if pattern is _CJK_END or position == len(text) or text[position].isspace():
            yield sign.start(), position, False


def _first_visible(text: str, start: int) -> int:
    visible = _NEXT_VISIBLE.match(text, start)
    return visible.start(1) if visible is not None else len(text)


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


def _ends_sentence(text: str, first_visible: int, mark_start: int, mark_end: int) -> bool:
    following = _NEXT_VISIBLE.match(text, mark_end)
    if following is not None and following.group(1).islower():
        return False
    if text[mark_start] != "." or text.startswith("..", mark_start):
        return True
    lookback = max(first_visible, mark_start - _WORD_LOOKBACK)
    space = max(text.rfind(separator, lookback, mark_start) for separator in _WORD_SEPARATORS)
    if space < 0 and lookback > first_visible:
        return True
    word_start = space + 1 if space >= 0 else lookback
    written = text[word_start:mark_start].lstrip("([\"'“‘")
    if not written or len(written) > _LONGEST_ABBREVIATION:
        return True
    word = written.casefold()
    if _DOTTED_ABBREVIATION.fullmatch(written):
        return (
            following is None
            or following.group(1) in "\"'“‘("
            or _next_word_is_function(text, following.start(1))
        )
    at_sentence_start = word_start <= first_visible
    is_abbreviation = word in TITLE_ABBREVIATIONS and not written.isupper()
    if is_abbreviation or _is_initial(
        written, _previous_word_opening(text, first_visible, word_start)
    ):
        return False
    is_list_number = word.isdigit() and at_sentence_start
    return not is_list_number


def _next_word_is_function(text: str, start: int) -> bool:
    """Whether the word at ``start`` is a function word (``The``, ``In``).

    After ``U.S.`` such a word opens a sentence, a name (``U.S. Census Bureau``) continues
    one.
    """
    word = _WORD.match(text, start)
    return word is not None and word.group().casefold() in STOPWORDS


def _previous_word_opening(text: str, first_visible: int, word_start: int) -> str:
    """The first character of the word before ``word_start`` in the sentence ("" if none)."""
    end = word_start
    while end > first_visible and text[end - 1].isspace():
        end -= 1
    begin = end
    while begin > first_visible and not text[begin - 1].isspace():
        begin -= 1
    return text[begin] if begin < end else ""


def _is_initial(written: str, previous_opening: str) -> bool:
    """Whether a lone capital is an initial: after a name or another (``J. K. Rowling``).

    ``vitamin C.`` ends a sentence, and so does a unit after a number (``425° F.``).
    """
    if len(written) != 1 or not written.isupper():
        return False
    return not previous_opening.islower() and not previous_opening.isdigit()
