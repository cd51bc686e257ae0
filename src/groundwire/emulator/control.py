"""What a test can steer in a running emulator: its stubs, its journal, CORS and stream pacing.

`ControlOptions` says what to offer; `local_state` holds the stubs and the journal in this
process, `shared_state` in a manager process that every worker of `serve --workers N` talks
to, so a stub registered through any worker answers in all of them, and `times` and
`sequence` count each call once, whichever worker took it. `switchboard_for` seats the stubs
at the switchboard; `http_handler` puts the admin API and CORS around the REST gateway.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from multiprocessing.managers import BaseManager
from typing import Any

from groundwire.emulator.answering import Call, Pacing, Switchboard
from groundwire.emulator.journal import DEFAULT_MAX_BYTES, DEFAULT_MAX_REQUESTS, Journal, entry_for
from groundwire.emulator.stubs import StubAnswerer, StubBook


@dataclass(frozen=True)
class ControlOptions:
    """The admin API (on or off), the journal's bounds (0 requests: off), CORS and pacing.

    Example:
        >>> ControlOptions(journal_requests=0).journal_requests
        0
    """

    admin: bool = True
    journal_requests: int = DEFAULT_MAX_REQUESTS
    journal_bytes: int = DEFAULT_MAX_BYTES
    cors_origins: tuple[str, ...] = ()
    pacing: Pacing = field(default_factory=Pacing)

    def __post_init__(self) -> None:
        if self.journal_requests < 0 or self.journal_bytes < 0:
            raise ValueError("the journal's bounds cannot be negative")


@dataclass(frozen=True)
class ControlState:
    """The stub book and the journal (None: off) the servers share, and the options."""

    options: ControlOptions
    book: Any
    """A `StubBook`, or a manager's proxy of one."""
    journal: Any | None
    """A `Journal`, or a manager's proxy of one."""


def local_state(options: ControlOptions | None = None) -> ControlState:
    """The stubs and the journal in this process's memory.

    Example:
        >>> local_state().journal.max_requests
        1000
    """
    options = options or ControlOptions()
    journal = (
        Journal(options.journal_requests, options.journal_bytes)
        if options.journal_requests
        else None
    )
    return ControlState(options, StubBook(), journal)


class _Manager(BaseManager):
    """Holds the one stub book and journal of a `serve --workers N`."""


_Manager.register("StubBook", StubBook)
_Manager.register("Journal", Journal)


@contextmanager
def shared_state(options: ControlOptions) -> Iterator[ControlState]:
    """The stubs and the journal in a manager process, for workers; stopped on exit.

    The state's proxies can be handed to worker processes as they start.
    """
    manager = _Manager(ctx=multiprocessing.get_context("spawn"))
    manager.start()
    try:
        book: Any = manager.StubBook()  # type: ignore[attr-defined]  # registered above
        journal: Any = (
            manager.Journal(options.journal_requests, options.journal_bytes)  # type: ignore[attr-defined]
            if options.journal_requests
            else None
        )
        yield ControlState(options, book, journal)
    finally:
        manager.shutdown()


class _JournalOf:
    """Writes calls to a journal that takes only plain data (a manager's proxy)."""

    def __init__(self, journal: Any) -> None:
        self.journal = journal

    def add_call(self, call: Call) -> None:
        self.journal.add(entry_for(call))


def switchboard_for(state: ControlState) -> Switchboard:
    """The switchboard for servers sharing `state`: stubs first, then the engine."""
    journal = None if state.journal is None else _JournalOf(state.journal)
    return Switchboard([StubAnswerer(state.book)], journal=journal, pacing=state.options.pacing)
