"""Hostile but legal text costs the engine time linear in its length, and bounded memory.

Work is compared as CPU time at n and 16n characters (the best of a few runs): linear work
grows about 16 times, quadratic about 256 times; the bound is 64. No wall-clock limit.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable

import pytest

from groundwire.emulator.engine import Fact, check_grounding, split_claims
from groundwire.emulator.engine.check_required import needs_check
from groundwire.emulator.engine.index import clear_caches
from groundwire.emulator.engine.sentences import split_sentences
from groundwire.emulator.engine.terms import cached_read
from groundwire.emulator.engine.terms import terms_of as content_terms

GROWTH = 16
LINEAR_BOUND = 64
REPEATS = 3

HOSTILE_UNITS = {
    "dots": ".",
    "bangs": "!",
    "ellipses": "…",
    "mixed signs": ".!?",
    "closers after a sign": '.")',
    "initials": "J. ",
    "dotted abbreviations": "a.",
    "lowercase after a period": "a. ",
    "digit groups": "1.",
    "apostrophes": "a'",
    "wide spaces": ".\u2003",
    "line breaks": "\n \n",
    "names": "Bob Alice ",
    "negations": "not ",
    "hyphens": "- ",
    "source notes": "(passage 1, ",
    "the given passages": "the given ",
    "list markers": "1. - ",
    "pronouns": "He said. ",
    "record lines": "key: value\n",
    "camel case": "aB",
    "clock times": "1:1 ",
    "underscores": "a_",
    "comparisons": "than ",
    "hour ranges": "5 to 9 pm ",
    "hours of the day": "8 in the ",
    "negating prefixes": "unfold ",
    "named passages": "(Passage 2) ",
    "names of several words": "Sheriff Bob Glanz ",
}
"""One repeated unit per kind of text a pattern could backtrack on."""

READERS: dict[str, Callable[[str], object]] = {
    "split_sentences": split_sentences,
    "split_claims": split_claims,
    "content_terms": content_terms,
    "needs_check": needs_check,
    "check_grounding as answer": lambda text: check_grounding("x" + text + "y", [Fact("x y.")]),
    "check_grounding as fact": lambda text: check_grounding("Bob met Alice.", [Fact(text)]),
    "check_grounding of a comparison naming its source": lambda text: check_grounding(
        "Sheriff Bob Glanz is taller than Alice (Passage 2).", [Fact(text), Fact("Glanz.")]
    ),
}


def _cpu_seconds(read: Callable[[str], object], text: str) -> float:
    """The least CPU time of a few runs, caches cleared and the collector paused.

    The collector's pauses are not the reader's work.
    """
    best = float("inf")
    for _ in range(REPEATS):
        clear_caches()
        gc.disable()
        try:
            started = time.process_time()
            read(text)
            best = min(best, time.process_time() - started)
        finally:
            gc.enable()
    return best


def _growth(read: Callable[[str], object], unit: str, characters: int) -> float:
    small = unit * (characters // len(unit))
    large = unit * (characters * GROWTH // len(unit))
    return _cpu_seconds(read, large) / max(_cpu_seconds(read, small), 1e-4)


@pytest.mark.parametrize("unit", list(HOSTILE_UNITS.values()), ids=list(HOSTILE_UNITS))
@pytest.mark.parametrize("reader", list(READERS.values()), ids=list(READERS))
def test_reading_hostile_text_takes_time_linear_in_its_length(
    reader: Callable[[str], object], unit: str
) -> None:
    assert _growth(reader, unit, 600) <= LINEAR_BOUND


@pytest.mark.parametrize("reader", list(READERS.values()), ids=list(READERS))
def test_reading_one_long_word_takes_time_linear_in_its_length(
    reader: Callable[[str], object],
) -> None:
    assert _growth(reader, "a", 6_000) <= LINEAR_BOUND


def test_a_run_of_dots_inside_a_word_is_one_sentence() -> None:
    text = "x" + "." * 20_000 + "y"
    assert split_sentences(text) == [(0, len(text))]


def test_a_run_of_dots_before_a_space_still_ends_the_sentence() -> None:
    text = "Wait..... Then it rained."
    assert [text[s:e] for s, e in split_sentences(text)] == ["Wait.....", "Then it rained."]


def test_distinct_huge_single_word_answers_are_not_kept_in_the_caches() -> None:
    clear_caches()
    for letter in "abcdef":
        check_grounding(letter * 200_000, [Fact("Rome is old.")])

    assert cached_read.cache_info().currsize == 0
