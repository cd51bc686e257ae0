"""The engine's rules in one table, and every constant it uses, so a reader can predict an answer.

A rule is a row: its name, what it does in one line, its weight, the weight that turns it off
(what ``make bench`` sets to measure it against the overlap count), why it has that weight, and
the test that states it. A row stays only while removing it lowers a figure of
``bench/quality/rule_worth.py`` or the docs promise it to test writers.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass


@dataclass(frozen=True)
class Rule:
    """One row of the engine's rule table: what it does, its weight and why it has that weight.

    Example:
        >>> RULES[0].name
        'content_words'
    """

    name: str
    description: str
    weight: float
    off: float
    reason: str
    test: str


_TESTS = "tests/emulator/engine/test_rules.py::"
RULES = (
    Rule(
        "content_words",
        "The floor: a claim's score is the share of its terms (words, numbers, date parts) that"
        " one window of one fact holds, a word weighing this much.",
        1.0,
        1.0,
        "The overlap count every rule is measured against; it cannot be turned off. Words"
        " compare on their stems, not on their first five letters: that row (`word_prefix`) was"
        " noise on every figure and went.",
        _TESTS + "test_a_claims_score_is_the_share_of_its_words_one_window_holds",
    ),
    Rule(
        "numbers",
        "A number, date part or percentage weighs this much in the share.",
        2.0,
        1.0,
        "Twice a word: a claim that gets its numbers right and rewords the rest (`weighs 1.24"
        " kg`) is usually right. Pays on the dev cases; noise on RAGTruth.",
        _TESTS + "test_numbers_weigh_more_than_words",
    ),
    Rule(
        "number_differs",
        "A window that holds a number but not all of the claim's loses this share of its score.",
        1.0,
        0.0,
        "Promised to test writers (a wrong number fails). All of the score: a claim with one"
        " wrong number is wrong, however many words it shares. Pays on the dev cases.",
        _TESTS + "test_a_number_that_differs_vetoes_the_window",
    ),
    Rule(
        "negation_flipped",
        "A window negated where the claim is not (or the other way) loses this share.",
        0.5,
        0.0,
        "Promised to test writers (a flipped negation fails at the default threshold). Half:"
        " the share that drops a claim holding all its terms under the 0.6 default, not to 0,"
        " since negation words are read without their scope. Pays on the dev cases, costs on"
        " RAGTruth pairs (RAGTruth's hallucinations are rarely flips): kept, as promised.",
        _TESTS + "test_a_flipped_negation_vetoes_the_window",
    ),
    Rule(
        "unknown_name",
        "A claim with a name that no fact holds loses this share of its score.",
        0.5,
        0.0,
        "Half, so that a claim whose every other term a window holds still falls under 0.6."
        " Pays on the dev cases; lowers both RAGTruth figures within noise.",
        _TESTS + "test_a_name_no_fact_mentions_vetoes_the_claim",
    ),
    Rule(
        "weakest_claim",
        "The support score is the weakest claim's score at this weight plus, at the rest, the"
        " mean over claims of the grounded ones' scores.",
        0.9,
        0.0,
        "An answer is as faithful as its least supported claim; the 0.1 left to the mean only"
        " orders answers whose weakest claims tie. Pays on RAGTruth AUROC.",
        _TESTS + "test_the_support_score_blends_the_mean_with_the_weakest_claim",
    ),
)
"""Every rule of the engine: the one place to read what it does and to change a weight."""

DEFAULT_BAR = 0.6
"""The citation threshold when a request sets none: Google's documented default."""
CITABLE_FLOOR = 0.2
"""Support under this is never cited, however low the threshold: at a fifth of its terms a
window shares little more than the topic with the claim."""
MAX_WINDOW_SENTENCES = 3
"""A window is up to this many consecutive sentences of one fact: a claim that joins what a
source says over a sentence or two (a pronoun, then its subject) is still read as one."""
WHOLE_FACT_CHARACTERS = 2_000
"""A fact this short is also one window, whatever its sentences (a record, a short passage):
about a screen of text, past which a fact is a document and sentences far apart say other things."""
CANDIDATE_SENTENCES = 8
"""Windows are read around the claim's best this many fact sentences (most terms held): enough
that the best window is among them, few enough that a 200-fact request stays fast."""
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


def rule_weight(name: str) -> float:
    """The weight a rule has now (its table weight unless :func:`rules_off` turned it off).

    Example:
        >>> rule_weight("unknown_name")
        0.5
    """
    return _weights[name]


@contextlib.contextmanager
def rules_off(*names: str) -> Iterator[None]:
    """Run with some rules at their ``off`` weight: how ``make bench`` measures a rule's worth.

    Example:
        >>> with rules_off("unknown_name"):
        ...     rule_weight("unknown_name")
        0.0
    """
    saved = dict(_weights)
    _weights.update({rule.name: rule.off for rule in RULES if rule.name in names})
    try:
        yield
    finally:
        _weights.update(saved)


def rule_table() -> str:
    """The rule table as Markdown, as docs/engine.md shows it.

    Example:
        >>> rule_table().splitlines()[0]
        '| rule | what it does | weight | off | why this weight | test |'
    """
    rows = [
        "| rule | what it does | weight | off | why this weight | test |",
        "|---|---|---|---|---|---|",
    ]
    for rule in RULES:
        test = rule.test.split("::")[1]
        rows.append(
            f"| `{rule.name}` | {rule.description} | {rule.weight:g} | {rule.off:g}"
            f" | {rule.reason} | `{test}` |"
        )
    return "\n".join(rows) + "\n"
