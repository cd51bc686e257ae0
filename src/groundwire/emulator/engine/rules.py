"""The engine's rules in one table, and every constant it uses, so a reader can predict an answer.

A rule is a row: its name, what it does in one line, its weight, the weight that turns it off
(what ``make bench`` sets to measure it against the small core) and the test that states it.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass


@dataclass(frozen=True)
class Rule:
    """One row of the engine's rule table.

    Example:
        >>> RULES[0].name
        'content_words'
    """

    name: str
    description: str
    weight: float
    off: float
    test: str


_TESTS = "tests/emulator/engine/test_rules.py::"
RULES = (
    Rule(
        "content_words",
        "A claim's score is the weighted share of its content words that one window of one fact"
        " holds (each word weighs this much).",
        1.0,
        1.0,
        _TESTS + "test_a_claims_score_is_the_share_of_its_words_one_window_holds",
    ),
    Rule(
        "numbers",
        "A number, date part or percentage weighs this much in the share.",
        2.0,
        1.0,
        _TESTS + "test_numbers_weigh_more_than_words",
    ),
    Rule(
        "word_prefix",
        "Words compare on this many first letters of their stems (organisation = organised).",
        5,
        0,
        _TESTS + "test_words_compare_on_their_first_letters",
    ),
    Rule(
        "number_differs",
        "A window that holds a number but not all of the claim's loses this share of its score.",
        1.0,
        0.0,
        _TESTS + "test_a_number_that_differs_vetoes_the_window",
    ),
    Rule(
        "negation_flipped",
        "A window negated where the claim is not (or the other way) loses this share.",
        0.5,
        0.0,
        _TESTS + "test_a_flipped_negation_vetoes_the_window",
    ),
    Rule(
        "unknown_name",
        "A claim with a name that no fact holds loses this share of its score.",
        0.5,
        0.0,
        _TESTS + "test_a_name_no_fact_mentions_vetoes_the_claim",
    ),
    Rule(
        "weakest_claim",
        "The support score is the weakest claim's score at this weight plus, at the rest, the"
        " mean over claims of the grounded ones' scores.",
        0.9,
        0.0,
        _TESTS + "test_the_support_score_blends_the_mean_with_the_weakest_claim",
    ),
)
"""Every rule of the engine: the one place to read what it does and to change a weight."""

DEFAULT_BAR = 0.6
"""The citation threshold when a request sets none (Google's documented default)."""
CITABLE_FLOOR = 0.2
"""Support under this is never cited, however low the threshold."""
MAX_WINDOW_SENTENCES = 3
"""A window is up to this many consecutive sentences of one fact."""
WHOLE_FACT_CHARACTERS = 2_000
"""A fact this short is also one window, whatever its sentences (a record, a short passage)."""
CANDIDATE_SENTENCES = 8
"""Windows are read around the claim's best this many fact sentences (most weight held)."""
CANDIDATE_LIMIT = 250
"""Candidates come from the claim's rarest terms, the next term only while the candidates stay
this few (the rarest term's first this many sentences at least): a long request stays fast."""
CLAIM_UNITS = 40_000
"""What checking a claim costs in work units, besides one per fact sentence holding a term of
it (see :func:`groundwire.emulator.engine.grounding.claim_work`); with the default budget an
answer is checked up to some 600 claims."""
CACHE_SENTENCE_CHARACTERS = 2_000
"""Claims up to this long stay cached once read (4,096 of them)."""
CACHE_FACTS = 512
"""How many facts' readings stay cached, so a repeated request reads its facts once."""

_weights = {rule.name: rule.weight for rule in RULES}
_cache_clearers: list[Callable[[], None]] = []


def on_rule_change(clear: Callable[[], None]) -> None:
    """Have ``clear`` called whenever :func:`rules_off` changes a weight (a cache to forget)."""
    _cache_clearers.append(clear)


def rule_weight(name: str) -> float:
    """The weight a rule has now (its table weight unless :func:`rules_off` turned it off).

    Example:
        >>> rule_weight("numbers")
        2.0
    """
    return _weights[name]


@contextlib.contextmanager
def rules_off(*names: str) -> Iterator[None]:
    """Run with some rules at their ``off`` weight: how ``make bench`` measures a rule's worth.

    Example:
        >>> with rules_off("numbers"):
        ...     rule_weight("numbers")
        1.0
    """
    saved = dict(_weights)
    _weights.update({rule.name: rule.off for rule in RULES if rule.name in names})
    for clear in _cache_clearers:
        clear()
    try:
        yield
    finally:
        _weights.update(saved)
        for clear in _cache_clearers:
            clear()


def rule_table() -> str:
    """The rule table as Markdown, as docs/engine.md shows it.

    Example:
        >>> rule_table().splitlines()[0]
        '| rule | what it does | weight | off | test |'
    """
    rows = ["| rule | what it does | weight | off | test |", "|---|---|---|---|---|"]
    for rule in RULES:
        test = rule.test.split("::")[1]
        rows.append(
            f"| `{rule.name}` | {rule.description} | {rule.weight:g} | {rule.off:g} | `{test}` |"
        )
    return "\n".join(rows) + "\n"
