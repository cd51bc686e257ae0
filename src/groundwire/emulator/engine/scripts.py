"""Knows which scripts are written without spaces, and cuts their text into comparable pieces.

Chinese, Japanese, Korean, Thai, Lao, Khmer and Burmese have no dictionary here: a run of such
characters becomes overlapping character bigrams, and a one-character run stays one piece.
Japanese hiragana is grammar (particles, endings), so it is cut out of the runs around it.
"""

from __future__ import annotations

import re

_SPACELESS = re.compile(
    "[\u0e00-\u0eff\u1000-\u109f\u1100-\u11ff\u1780-\u17ff\u3040-\u30ff\u3130-\u318f"
    "\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\uff66-\uff9f"
    "\U00020000-\U0002fa1f]"
)
_SPACED, _UNSPACED, _HIRAGANA = 0, 1, 2


def is_spaceless(character: str) -> bool:
    """Say whether a character belongs to a script written without spaces between words.

    Example:
        >>> is_spaceless("東"), is_spaceless("ก"), is_spaceless("a")
        (True, True, False)
    """
    return _SPACELESS.match(character) is not None


def has_spaceless(text: str) -> bool:
    """Say whether any character of the text is written without spaces.

    Example:
        >>> has_spaceless("Tokyo 東京"), has_spaceless("Tokyo")
        (True, False)
    """
    return _SPACELESS.search(text) is not None


def is_hiragana(character: str) -> bool:
    """Say whether a character is Japanese hiragana (the script of particles and endings).

    Example:
        >>> is_hiragana("の"), is_hiragana("東")
        (True, False)
    """
    return "\u3041" <= character <= "\u309f"


def script_runs(word: str) -> list[str]:
    """Cut a word where it changes between spaced script, hiragana and other unspaced script.

    Example:
        >>> script_runs("日本の首都1958年")
        ['日本', 'の', '首都', '1958', '年']
    """
    runs: list[str] = []
    start = 0
    for position in range(1, len(word) + 1):
        if position == len(word) or _run_kind(word[position]) != _run_kind(word[start]):
            runs.append(word[start:position])
            start = position
    return runs


def character_bigrams(run: str) -> list[str]:
    """The overlapping character pairs of an unspaced run (the run itself when one long).

    Example:
        >>> character_bigrams("东京塔"), character_bigrams("米")
        (['东京', '京塔'], ['米'])
    """
    if len(run) == 1:
        return [run]
    return [run[index : index + 2] for index in range(len(run) - 1)]


def _run_kind(character: str) -> int:
    if is_hiragana(character):
        return _HIRAGANA
    return _UNSPACED if is_spaceless(character) else _SPACED
