"""Checks that a claim's quantity counts, or measures, what the evidence's does.

A number before a noun (``three doses``) is a quantity of that noun: the evidence must give
the same number for it (``two doses, three weeks apart`` has a 3, but not three doses), in
the same unit (``5 km`` is no ``5 miles``). Codes (``COVID-19``, ``Apollo 11``) and numbers
that date something (a year, a decade, a day after its month) are no quantities. A bound
must not turn: ``just over 270`` is not what ``just under 270`` says.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from itertools import pairwise

from groundwire.emulator.engine.analysis import Analysis, Token
from groundwire.emulator.engine.lexicon import MEASURES
from groundwire.emulator.engine.text import word_terms

_QUANTITY_REACH = 4
_BOUNDS = {
    **dict.fromkeys(("~over", "~above", "~more", "greater", "least", "exceed"), 1),
    **dict.fromkeys(("~under", "~below", "~less", "fewer", "~nearly", "~almost"), -1),
}
"""Words that bound the number after them (``than`` skipped), from above (1) or below (-1)."""
_YEAR = re.compile(r"1[5-9]\d\d|20\d\d|\d{3,4}0s")


def _units_by_term() -> dict[str, tuple[str, int]]:
    units: dict[str, tuple[str, int]] = {}
    for dimension, spellings in MEASURES.items():
        for unit, words in enumerate(spellings):
            for word in words.split():
                for term in word_terms(word):
                    units.setdefault(term, (dimension, unit))
    return units


_UNITS = _units_by_term()


def unbound_numbers(claim: Analysis, evidence: Sequence[Analysis]) -> list[str]:
    """Quantities of the claim that the evidence gives for something else.

    A number written right before a noun (``three doses``) must stand before that noun (or the
    word after it: ``award tickets``) in the evidence too (within four words), when the
    evidence mentions it at all: ``two doses, three weeks apart`` has a 3, but not three
    doses. A number before a unit must not be given only in another unit of the same measure.
    Codes such as ``COVID-19`` or ``Apollo 11`` (a number right after a name) and dates are
    not quantities. An age (``a 26-year-old man``) is also given by the number right after a
    name, as news writes it (``Camilien, 26,``).

    Example:
        >>> from groundwire.emulator.engine.analysis import analyse
        >>> fact = [analyse("It is given as two doses, three weeks apart.")]
        >>> unbound_numbers(analyse("It requires three doses."), fact)
        ['3']
        >>> unbound_numbers(analyse("The trail is 5 miles long."), [analyse("It is 5 km.")])
        ['5']
    """
    unbound: list[str] = []
    tokens = claim.tokens
    for position, token in enumerate(tokens[:-1]):
        noun = tokens[position + 1]
        after_name = position > 0 and tokens[position - 1].name_like
        if not token.numeric or not noun.content or noun.numeric or after_name:
            continue
        if noun.word_index - token.word_index > 1 or _dates(tokens, position):
            continue
        if _is_age(tokens, position) and any(
            _age_after_a_name(r.tokens, token.term) for r in evidence
        ):
            continue
        nouns = _counted_nouns(tokens, position)
        mentions = [(r, i) for r in evidence for i, t in enumerate(r.tokens) if t.term in nouns]
        counted_otherwise = bool(mentions) and not any(
            _counts(reading.tokens, place, token.term) for reading, place in mentions
        )
        if counted_otherwise or (
            noun.term in _UNITS and _measured_otherwise(evidence, token.term, noun.term)
        ):
            unbound.append(token.term)
    return unbound


def opposite_bounds(claim: Analysis, evidence: Sequence[Analysis]) -> list[str]:
    """Numbers the claim bounds one way and the evidence the other (``over 270`` for ``under 270``).

    Example:
        >>> from groundwire.emulator.engine.analysis import analyse
        >>> fact = [analyse("The island is home to just under 270 people.")]
        >>> opposite_bounds(analyse("It has just over 270 residents."), fact)
        ['270']
        >>> opposite_bounds(analyse("It has nearly 270 residents."), fact)
        []
    """
    said: dict[str, set[int]] = {}
    for reading in evidence:
        for number, bound in _bounded_numbers(reading.tokens):
            said.setdefault(number, set()).add(bound)
    return [
        number
        for number, bound in _bounded_numbers(claim.tokens)
        if -bound in said.get(number, ()) and bound not in said[number]
    ]


def _bounded_numbers(tokens: Sequence[Token]) -> list[tuple[str, int]]:
    """Each number written after a bound: 1 for one from above (``over``), -1 from below."""
    found: list[tuple[str, int]] = []
    for place, token in enumerate(tokens):
        if not token.numeric or place == 0:
            continue
        before = place - 1
        if tokens[before].term == "~than" and before > 0:
            before -= 1
        bound = _BOUNDS.get(tokens[before].term)
        if bound is not None:
            found.append((token.term, bound))
    return found


def counts_a_pair(claim: Analysis, evidence: Sequence[Analysis]) -> bool:
    """Whether the claim's ``two`` counts what the evidence names one by one, as a pair.

    ``Two shootings`` is what ``shootings -- one at the bureau and another downtown`` says, and
    ``the two men`` what ``Camilien and Colina knew each other`` says: the evidence writes
    ``both``, ``one ... another`` (or ``the other``), or two names joined by ``and``.

    Example:
        >>> from groundwire.emulator.engine.analysis import analyse
        >>> fact = [analyse("There were shootings: one at noon and another at dusk.")]
        >>> counts_a_pair(analyse("Two shootings took place."), fact)
        True
        >>> counts_a_pair(analyse("Two shootings took place."), [analyse("One shooting.")])
        False
    """
    tokens = claim.tokens
    if not any(
        t.term == "2" and place + 1 < len(tokens) and tokens[place + 1].content
        for place, t in enumerate(tokens)
    ):
        return False
    for reading in evidence:
        said = reading.tokens
        terms = [t.term for t in said]
        one = terms.index("~one") if "~one" in terms else len(terms)
        later = terms[one + 1 :]
        if "~both" in terms or "~another" in later or _the_other(later):
            return True
        if any(
            said[place].term == "~and" and said[place - 1].name_like and said[place + 1].name_like
            for place in range(1, len(said) - 1)
        ):
            return True
    return False


def _the_other(terms: Sequence[str]) -> bool:
    return any(first == "~the" and second == "~other" for first, second in pairwise(terms))


def _is_age(tokens: Sequence[Token], position: int) -> bool:
    """Whether the number at ``position`` gives an age: ``a 26-year-old man``."""
    following = [t.term for t in tokens[position + 1 : position + 3]]
    return following == ["year", "old"]


def _age_after_a_name(tokens: Sequence[Token], number: str) -> bool:
    """Whether the number stands right after a name, as news gives an age (``Camilien, 26,``)."""
    return any(
        token.term == number and place > 0 and tokens[place - 1].name_like
        for place, token in enumerate(tokens)
    )


def _dates(tokens: Sequence[Token], position: int) -> bool:
    """Whether the number at ``position`` dates something rather than counting it.

    A month, a year (``the 2012 shooting``), a decade (``the 1860s``) or a day after its month
    (``March 26``) is no quantity of the word after it.
    """
    term = tokens[position].term
    if term.startswith("month:") or _YEAR.fullmatch(term):
        return True
    return position > 0 and tokens[position - 1].term.startswith("month:")


def _measured_otherwise(evidence: Sequence[Analysis], number: str, unit: str) -> bool:
    """Whether the evidence gives the number in another unit of the same measure, never in this.

    ``5 miles`` against ``5 km``; ``5 litres`` against ``5 liters`` is the same unit.
    """
    dimension, wanted = _UNITS[unit]
    other = False
    for reading in evidence:
        tokens = reading.tokens
        for place in range(len(tokens) - 1):
            if tokens[place].term != number:
                continue
            measured = _UNITS.get(tokens[place + 1].term)
            if measured is None or measured[0] != dimension:
                continue
            if measured[1] == wanted:
                return False
            other = True
    return other


def _counted_nouns(tokens: Sequence[Token], position: int) -> frozenset[str]:
    """What the number at ``position`` may count.

    The next content word, and the one after it in the same clause (``892,000 award
    tickets`` counts tickets). Names right after the number may only say whose the thing is,
    so the first words after them count too (``two Tulsa County deputies`` counts deputies).
    """
    found = _content_run(tokens, position, position + 1)
    start = position + 1
    while start < len(tokens) and tokens[start].name_like and not tokens[start].numeric:
        start += 1
    if start > position + 1:
        found |= _content_run(tokens, position, start)
    return found


def _content_run(tokens: Sequence[Token], position: int, start: int) -> frozenset[str]:
    """The first two content words from ``start`` on, within three tokens and the clause."""
    found: list[str] = []
    for later in range(start, min(len(tokens), start + 3)):
        token = tokens[later]
        if token.numeric or token.clause != tokens[position].clause or len(found) == 2:
            break
        if token.content:
            found.append(token.term)
    return frozenset(found)


def _counts(tokens: Sequence[Token], place: int, number: str) -> bool:
    """Whether the number counts the noun at ``place``.

    It does when it stands shortly before it, or is the value of a record's key ending in
    that noun (``review_count: 356``, the next clause's first word).
    """
    if any(t.term == number for t in tokens[max(0, place - _QUANTITY_REACH) : place]):
        return True
    key_clause = tokens[place].clause
    for later in range(place + 1, min(len(tokens), place + 1 + _QUANTITY_REACH)):
        if tokens[later].clause != key_clause:
            return tokens[later].clause == key_clause + 1 and tokens[later].term == number
    return False
