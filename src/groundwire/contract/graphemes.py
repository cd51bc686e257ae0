"""Grapheme cluster boundaries: where text can be cut without splitting a visible character.

The standard library has no grapheme segmentation, so this is the subset of Unicode's rules
(UAX #29) that a marker inserted into text could break: CR LF, combining and spacing marks,
variation selectors, emoji modifiers and tags, ZWJ emoji sequences, regional-indicator pairs
(flags) and Hangul syllables. Prepended marks and Indic conjuncts are not handled.

>>> text = "e\u0301🇯🇵"
>>> [index for index in range(len(text) + 1) if is_cluster_boundary(text, index)]
[0, 2, 4]
"""

from __future__ import annotations

import unicodedata

__all__ = ["cluster_end", "cluster_start", "is_cluster_boundary"]

_ZWJ = "\u200d"
_CR, _LF = "\r", "\n"


def _is_extend(char: str) -> bool:
    """Characters that continue the cluster before them (UAX #29's Extend, ZWJ, SpacingMark)."""
    code = ord(char)
    return (
        unicodedata.category(char) in ("Mn", "Me", "Mc")  # combining marks, FE00–FE0F
        or 0x1F3FB <= code <= 0x1F3FF  # emoji skin-tone modifiers
        or 0xE0020 <= code <= 0xE007F  # emoji tag characters (subdivision flags)
        or 0xE0100 <= code <= 0xE01EF  # variation selectors supplement
        or char in (_ZWJ, "\u200c")
    )


def _is_regional_indicator(char: str) -> bool:
    return 0x1F1E6 <= ord(char) <= 0x1F1FF


def _is_pictographic(char: str) -> bool:
    """Emoji and symbols a ZWJ can join (an approximation of Extended_Pictographic)."""
    code = ord(char)
    return (
        unicodedata.category(char) == "So"
        or 0x1F000 <= code <= 0x1FAFF
        or 0x2600 <= code <= 0x27BF
        or code in (0x00A9, 0x00AE, 0x203C, 0x2049, 0x2122, 0x2139)
    )


def _is_control(char: str) -> bool:
    return char in (_CR, _LF) or unicodedata.category(char) in ("Cc", "Zl", "Zp")


def _hangul(char: str) -> str:
    """The Hangul syllable type of ``char``: L, V, T, LV, LVT, or "" for none."""
    code = ord(char)
    if 0x1100 <= code <= 0x115F or 0xA960 <= code <= 0xA97C:
        return "L"
    if 0x1160 <= code <= 0x11A7 or 0xD7B0 <= code <= 0xD7C6:
        return "V"
    if 0x11A8 <= code <= 0x11FF or 0xD7CB <= code <= 0xD7FB:
        return "T"
    if 0xAC00 <= code <= 0xD7A3:
        return "LV" if (code - 0xAC00) % 28 == 0 else "LVT"
    return ""


def is_cluster_boundary(text: str, index: int) -> bool:
    """Whether str index ``index`` falls between two grapheme clusters of ``text`` (or at an end).

    Example:
        >>> is_cluster_boundary("e\u0301t", 1), is_cluster_boundary("e\u0301t", 2)
        (False, True)
    """
    if index <= 0 or index >= len(text):
        return True
    before, after = text[index - 1], text[index]
    if before == _CR and after == _LF:
        return False
    if _is_control(before) or _is_control(after):
        return True
    previous, following = _hangul(before), _hangul(after)
    if previous and following:
        if previous == "L" and following in ("L", "V", "LV", "LVT"):
            return False
        if previous in ("LV", "V") and following in ("V", "T"):
            return False
        if previous in ("LVT", "T") and following == "T":
            return False
    if _is_extend(after):
        return False
    if before == _ZWJ and _is_pictographic(after):
        base = index - 2
        while base >= 0 and _is_extend(text[base]):
            base -= 1
        if base >= 0 and _is_pictographic(text[base]):
            return False
    if _is_regional_indicator(before) and _is_regional_indicator(after):
        run = 0
        while index - 1 - run >= 0 and _is_regional_indicator(text[index - 1 - run]):
            run += 1
        return run % 2 == 0  # inside a pair when an odd number of indicators precede
    return True


def cluster_end(text: str, index: int) -> int:
    """``index`` moved forward to the end of the grapheme cluster it falls inside.

    Example:
        >>> family = "👩\u200d👩\u200d👧"
        >>> cluster_end(family + "!", 1)
        5
    """
    index = min(max(index, 0), len(text))
    while not is_cluster_boundary(text, index):
        index += 1
    return index


def cluster_start(text: str, index: int) -> int:
    """``index`` moved back to the start of the grapheme cluster it falls inside.

    Example:
        >>> cluster_start("🇯🇵🇫🇷", 3)
        2
    """
    index = min(max(index, 0), len(text))
    while not is_cluster_boundary(text, index):
        index -= 1
    return index
