"""Reads the engine's word lists, plain data files in ``words/``, once per process."""

from __future__ import annotations

from functools import cache
from importlib import resources


@cache
def entries(name: str) -> tuple[tuple[str, ...], ...]:
    """The lines of ``words/<name>.txt`` as tuples of words, comments and blank lines skipped.

    Example:
        >>> entries("months")[0]
        ('january', '1')
    """
    text = resources.files(__package__).joinpath("words", f"{name}.txt").read_text("utf-8")
    return tuple(
        tuple(line.split()) for line in text.splitlines() if line.strip() and line[0] != "#"
    )


@cache
def word_set(name: str) -> frozenset[str]:
    """Every line of a word list as one string (a word, or words joined by a space).

    Example:
        >>> "the" in word_set("function_words")
        True
    """
    return frozenset(" ".join(entry) for entry in entries(name))


@cache
def word_map(name: str) -> dict[str, str]:
    """A two-column word list as a mapping from its first column to its second.

    Example:
        >>> word_map("irregular_forms")["wrote"]
        'write'
    """
    return {entry[0]: entry[1] for entry in entries(name)}
