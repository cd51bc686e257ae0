"""A request's allowance of engine work, counted in units of work, not seconds, so answers repeat.

A clock would make the same request answer differently on a busy machine; a count of work does
not. The emulator hands each request one :class:`WorkBudget`; the engine spends from it as it
checks claims, and a claim it reaches with the budget spent is answered as unsupported, uncited
and counted as unfinished (the emulator reports that count in the response's
``x-groundwire-unfinished-claims`` header or trailing metadata).
"""

from __future__ import annotations

from dataclasses import dataclass

DEFAULT_WORK_UNITS = 24_000_000
"""One request's budget, in the engine's units (see
:func:`groundwire.emulator.engine.grounding.claim_work`).

Above what the largest legal request costs on every text ``make bench`` generates but acronym
runs (17.3 million on repeated sentences, 16.8 million on text made of numbers), so that no
answer of ordinary sentences meets it; an answer of more than 600 claims, or whose claims all
meet every fact sentence, does."""


@dataclass
class WorkBudget:
    """Work left for one request; the same request always spends the same amount.

    Example:
        >>> budget = WorkBudget(10)
        >>> budget.spend(7); budget.exhausted
        False
        >>> budget.spend(3); budget.exhausted
        True
    """

    units: int = DEFAULT_WORK_UNITS
    spent: int = 0

    def spend(self, units: int) -> None:
        """Count ``units`` of work as done."""
        self.spent += units

    @property
    def exhausted(self) -> bool:
        """Whether the work done has reached the budget, so no further claim is checked."""
        return self.spent >= self.units
