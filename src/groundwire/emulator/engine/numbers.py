"""Reads numbers the way people write them, so that ``1,000``, ``1000`` and ``one thousand`` meet.

Digits lose their thousands separators (``2,100,000``; ``1.000.000``) and trailing zeros
(``1.50``); a single separator before other than three digits is a decimal point (``3,5`` is
3.5). Number words join into one number (``two hundred and six`` is 206, ``twenty-six`` is
26), and a number followed by a multiplier is multiplied (``2.1 million`` is 2100000). A plural
quantity alone (``thousands of runners``) is vague and is no number, nor is a lone ``one``
(``one reviewer``, ``one of them``, ``one possible reason``): written out alone it is mostly a
determiner or a pronoun, and a claim's ``one reason`` must not need a 1 in the facts.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from decimal import Decimal, InvalidOperation
from typing import Generic, TypeVar

NUMBER_WORD_MARK = "\x00"
"""Prefix of a number word's provisional term: ``\\x00u:11`` (a unit), ``\\x00m:1000`` (a
multiplier); :func:`join_number_tokens` turns runs of them into numbers."""

AND_TERM = "~and"
"""The term of ``and``, which may sit inside a written number (``one hundred and two``)."""
LONE_ONE_TERM = "~one"
"""The term of ``one`` written alone: a function word, not the number 1."""

Payload = TypeVar("Payload")
_NUMBER_GROUPS = re.compile(r"[.,]")


def is_numeric_term(term: str) -> bool:
    """Say whether a term is a number, a date part or a code with digits (``s24``).

    Example:
        >>> is_numeric_term("1997"), is_numeric_term("month:12"), is_numeric_term("river")
        (True, True, False)
    """
    return any(character.isdigit() for character in term)


def parse_digits(digits: str) -> list[str]:
    """Write the number(s) in a run of digits and separators one way.

    Example:
        >>> parse_digits("2,100,000"), parse_digits("1.50"), parse_digits("3,5")
        (['2100000'], ['1.5'], ['3.5'])
    """
    groups = _NUMBER_GROUPS.split(digits)
    separators = _NUMBER_GROUPS.findall(digits)
    if not separators:
        return [decimal_text(digits)]
    if len(set(separators)) == 2:
        whole, _, fraction = digits.rpartition(separators[-1])
        return [decimal_text(_NUMBER_GROUPS.sub("", whole) + "." + fraction)]
    thousands = all(len(group) == 3 for group in groups[1:])
    if thousands and (separators[0] == "," or len(separators) > 1):
        return [decimal_text("".join(groups))]
    if len(separators) == 1:
        return [decimal_text(groups[0] + "." + groups[1])]
    return [decimal_text(group) for group in groups]


def decimal_text(digits: str) -> str:
    """Write a plain decimal without leading or trailing zeros.

    Example:
        >>> decimal_text("007"), decimal_text("2.50")
        ('7', '2.5')
    """
    try:
        value = Decimal(digits)
    except InvalidOperation:
        return digits
    return _format_decimal(value)


def _format_decimal(value: Decimal) -> str:
    text = format(value.normalize(), "f")
    return text[:-2] if text.endswith(".0") else text


def join_number_tokens(items: Sequence[tuple[str, Payload]]) -> list[tuple[str, Payload]]:
    """Join runs of number-word terms (and a number and its multiplier) into one number.

    A joined number keeps the payload of its first word.

    Example:
        >>> fifty, thousand = NUMBER_WORD_MARK + "u:50", NUMBER_WORD_MARK + "m:1000"
        >>> join_number_tokens([(fifty, 3), (thousand, 4), ("peopl", 5)])
        [('50000', 3), ('peopl', 5)]
    """
    joined: list[tuple[str, Payload]] = []
    run: _NumberRun[Payload] = _NumberRun()
    for term, payload in items:
        if term.startswith(NUMBER_WORD_MARK):
            if term[1] == "u" and run.active and not run.extends(Decimal(term[3:])):
                run.flush_into(joined)
            run.add(term, payload)
        elif term == AND_TERM and run.accepts_and():
            run.pending_and = (term, payload)
        else:
            run.flush_into(joined)
            if _is_plain_number(term):
                run.start_with_digits(term, payload)
            else:
                joined.append((term, payload))
    run.flush_into(joined)
    return joined


class _NumberRun(Generic[Payload]):
    """The number being read from consecutive number words, and where it started."""

    def __init__(self) -> None:
        self.total = self.current = Decimal(0)
        self.from_digits = False
        self.payloads: list[Payload] = []
        self.pending_and: tuple[str, Payload] | None = None

    @property
    def active(self) -> bool:
        """Whether a number is being read."""
        return bool(self.payloads)

    def extends(self, value: Decimal) -> bool:
        """Whether a unit word continues this number (``twenty`` ``six``) or starts another."""
        if self.from_digits:
            return False
        tens_without_unit = self.current % 100 >= 20 and self.current % 10 == 0 and value < 10
        return self.current % 100 == 0 or tens_without_unit

    def accepts_and(self) -> bool:
        """Whether an ``and`` may sit inside this number (``one hundred and two``)."""
        return self.active and not self.from_digits and self.pending_and is None

    def add(self, term: str, payload: Payload) -> None:
        """Take in one number word."""
        value = Decimal(term[3:])
        if term[1] == "u":
            self.current += value
        elif value == 100:
            self.current = (self.current or Decimal(1)) * value
        else:
            self.total += (self.current or Decimal(1)) * value
            self.current = Decimal(0)
        self.payloads.append(payload)
        self.pending_and = None

    def start_with_digits(self, term: str, payload: Payload) -> None:
        """Start a number written in digits, which a multiplier may follow."""
        self.current, self.from_digits = Decimal(term), True
        self.payloads.append(payload)

    def flush_into(self, joined: list[tuple[str, Payload]]) -> None:
        """Write out the number read so far (and a held-back ``and``), and start afresh."""
        if self.payloads:
            value = self.total + self.current
            lone_one = len(self.payloads) == 1 and not self.from_digits and value == 1
            term = LONE_ONE_TERM if lone_one else _format_decimal(value)
            joined.append((term, self.payloads[0]))
        if self.pending_and is not None:
            joined.append(self.pending_and)
        self.total = self.current = Decimal(0)
        self.from_digits = False
        self.payloads = []
        self.pending_and = None


def _is_plain_number(term: str) -> bool:
    return term.replace(".", "", 1).isdigit()
