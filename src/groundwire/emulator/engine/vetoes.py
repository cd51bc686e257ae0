"""Applies the vetoes to evidence: how much they cut its score, and whether it contradicts.

Word overlap says a window holds a claim's words; the checks (:mod:`checks`,
:mod:`quantities`, :mod:`relations`, :mod:`rarity`) say what it misses: a number or name, a
negation, an order. Each veto a window triggers multiplies its score by the veto's factor.
Vetoes on values (a missing or other number or name, a comparison the evidence never makes,
names it never relates, another passage than the one named) contradict the claim; those that
read how prose is put together cut the score only (see :func:`veto_factor`).
"""

from __future__ import annotations

from collections.abc import Sequence

from groundwire.emulator.engine.analysis import Token, analyse
from groundwire.emulator.engine.checks import (
    conflicting_value,
    missing_key_terms,
    negation_conflict,
    opposite_meaning,
)
from groundwire.emulator.engine.index import Window
from groundwire.emulator.engine.layout import strip_layout
from groundwire.emulator.engine.matching import ClaimMatcher
from groundwire.emulator.engine.quantities import counts_a_pair, opposite_bounds, unbound_numbers
from groundwire.emulator.engine.rarity import is_general
from groundwire.emulator.engine.relations import (
    mixed_name,
    name_runs,
    relation_said_of_others,
    roles_swapped,
    separated_names,
    unsupported_comparison,
)

MISSING_KEY_FACTOR = 0.4
MORE_MISSING_KEYS_FACTOR = 0.7
OTHER_VALUE_FACTOR = 0.4
NEGATION_FACTOR = 0.35
OPPOSITE_MEANING_FACTOR = 0.35
SWAPPED_ROLES_FACTOR = 0.35
COMPARISON_FACTOR = 0.35
SEPARATED_NAMES_FACTOR = 0.55
RELATION_OF_OTHERS_FACTOR = 0.55
"""A name and its relation word that the evidence says only in separate sentences."""
ADDED_DETAIL_FACTOR = 0.9
"""Per specific word of the claim that no fact holds in any form (an added detail)."""
OTHER_SOURCE_FACTOR = 0.5
"""Evidence from none of the facts the claim names (``(Passage 2)``) supports it less."""

_LONGEST_NAME = 6


def veto_factor(
    windows: Sequence[Window], matcher: ClaimMatcher, keys: Sequence[Token]
) -> tuple[float, bool]:
    """The product of the factors of every veto the windows trigger, and whether any did.

    An added specific word lowers the factor but is no contradiction: the evidence does not
    speak against it, it only lacks it. Nor are the vetoes that read how prose is put
    together (a negation, an opposite word, two names in the other order): clause-level cues
    often negate what the claim does not say (``pleaded not guilty to charges of``), and
    order often changes in a faithful paraphrase (``followed by JetBlue`` / ``JetBlue came
    second``). They keep the claim uncited but leave it partly covered: on tuning data, among
    claims the words alone would ground, they cut 23 faithful and 5 hallucinated claims
    (uncited claims run 3.3 faithful to 1). In a record they read plain values (``key:
    False``) and contradict.

    Example:
        >>> from groundwire.emulator.engine.analysis import analyse
        >>> from groundwire.emulator.engine.checks import key_tokens
        >>> from groundwire.emulator.engine.index import build_index
        >>> from groundwire.emulator.engine.results import Fact
        >>> index = build_index([Fact("Rome was founded in 753 BC. It did not fall in 410.")])
        >>> window = index.windows_around(0)[0]
        >>> def veto(claim):
        ...     matcher = ClaimMatcher(analyse(claim), index)
        ...     return veto_factor([window], matcher, key_tokens(matcher.claim, bool))
        >>> veto("Rome was founded in 753 BC."), veto("Rome was founded in 754 BC.")
        ((1.0, False), (0.4, True))
    """
    index = matcher.index
    evidence_terms = frozenset().union(
        *(index.attribute_terms[w.fact_index] for w in windows),
        *(index.sentence_terms[s] for w in windows for s in range(w.first, w.last + 1)),
    )
    texts = [index.sentence_text(s) for w in windows for s in range(w.first, w.last + 1)]
    readings = (
        [analyse(strip_layout(text)) for text in texts] if matcher.needs_readings(texts) else []
    )
    factor = 1.0
    claim_names = [token for token in matcher.claim.tokens if token.name_like]
    names = name_runs(keys)
    runs = {term: name for name in names for term in name[:-1]}
    whole = {term: name for name in names for term in name}
    missing = [
        term
        for term in missing_key_terms(keys, evidence_terms, index.related_terms)
        if not _named_by_its_last_word(runs.get(term), evidence_terms, matcher)
        and not _everyday_word_of_a_named_name(term, whole.get(term), evidence_terms)
    ]
    if readings:
        missing += [n for n in unbound_numbers(matcher.claim, readings) if n not in missing]
        missing += [n for n in opposite_bounds(matcher.claim, readings) if n not in missing]
        if "2" in missing and counts_a_pair(matcher.claim, readings):
            missing.remove("2")
    if missing:
        factor *= MISSING_KEY_FACTOR * MORE_MISSING_KEYS_FACTOR ** (len(missing) - 1)
    elif (len(readings) > 1 and conflicting_value(matcher.claim, keys, readings)) or (
        readings and mixed_name(claim_names, readings, evidence_terms, index.said_as_one)
    ):
        factor *= OTHER_VALUE_FACTOR
    from_records = any(index.is_record[w.fact_index] for w in windows)
    read = 1.0
    if readings and negation_conflict(matcher.claim, readings, index.weight):
        read *= NEGATION_FACTOR
    if readings and opposite_meaning(matcher.claim, readings):
        read *= OPPOSITE_MEANING_FACTOR
    if readings and roles_swapped(matcher.claim, readings):
        read *= SWAPPED_ROLES_FACTOR
    if from_records:
        factor, read = factor * read, 1.0
    if readings and unsupported_comparison(matcher.claim, readings):
        factor *= COMPARISON_FACTOR
    everywhere = frozenset().union(*(index.attribute_terms[w.fact_index] for w in windows))
    passages = [
        frozenset().union(*(index.sentence_terms[s] for s in range(w.first, w.last + 1)))
        for w in windows
    ]
    if not from_records and separated_names(keys, passages, everywhere):
        factor *= SEPARATED_NAMES_FACTOR
    sentences = [index.sentence_terms[s] for w in windows for s in range(w.first, w.last + 1)]
    if (
        readings
        and not from_records
        and relation_said_of_others(
            matcher.claim, sentences, everywhere, index.said_together, index.readings_with
        )
    ):
        factor *= RELATION_OF_OTHERS_FACTOR
    named = matcher.named_facts
    if named and not all(window.fact_index in named for window in windows):
        factor *= OTHER_SOURCE_FACTOR
    return factor * read * ADDED_DETAIL_FACTOR**matcher.added_details, factor < 1.0


def _everyday_word_of_a_named_name(
    term: str, name: tuple[str, ...] | None, evidence_terms: frozenset[str]
) -> bool:
    """Whether a missing word of a name is an everyday word beside a specific one the evidence has.

    A summary writes ``Tulsa County deputies`` where the article says ``deputies in Tulsa``:
    the name's specific word (``Tulsa``, not an everyday word) names it, and the missing one
    is an everyday word (``County``, ``Airport``), not another name (``Tulsa Smith``).
    """
    if name is None or len(name) < 2 or not is_general(term):
        return False
    return any(word != term and word in evidence_terms and not is_general(word) for word in name)


def _named_by_its_last_word(
    name: tuple[str, ...] | None, evidence_terms: frozenset[str], matcher: ClaimMatcher
) -> bool:
    """Whether a missing word of a name (not its last) is named all the same, by the last word.

    The evidence must hold the name's last word, the one that names (``Glanz`` for ``Sheriff
    Stanley Glanz``; ``Marie`` alone does not name ``Marie Curie``), and that word must name
    only this name in the facts (:meth:`ClaimMatcher.named_by_last_word`).
    """
    if name is None or len(name) > _LONGEST_NAME or name[-1] not in evidence_terms:
        return False
    return matcher.named_by_last_word(name)
