"""What a test can steer in a running emulator: its stubs, its journal, CORS and stream pacing.

`ControlOptions` says what to offer; `local_state` holds the stubs and the journal in this
process. `shared_state` also serves them (a multiprocessing manager, on a thread of `serve`'s
own process) to every worker of `serve --workers N`: a stub registered through any worker
answers in all of them, and `times` and `sequence` count each call once, whichever worker
took it. `switchboard_for` seats the stubs at the switchboard.
"""

from __future__ import annotations

import multiprocessing
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from multiprocessing.managers import BaseManager
from typing import TYPE_CHECKING, Any

from groundwire.emulator.answering import Answerer, Call, Pacing, Switchboard
from groundwire.emulator.journal import DEFAULT_MAX_BYTES, DEFAULT_MAX_REQUESTS, Journal, entry_for
from groundwire.emulator.stubs import (
    DEFAULT_MAX_STUB_BYTES,
    DEFAULT_MAX_STUBS,
    StubAnswerer,
    StubBook,
)

if TYPE_CHECKING:
    from groundwire.emulator.engine import BatchJudge
    from groundwire.emulator.recorder import RecordOptions
    from groundwire.emulator.replay import ReplayOptions


@dataclass(frozen=True)
class ControlOptions:
    """The admin API, the bounds of the journal and the stubs, whom the REST port answers.

    A journal of 0 requests is off. `allowed_hosts` and `cors_origins` are the Host names
    and web origins answered besides loopback's; `pacing` cuts the engine's streams.

    Example:
        >>> ControlOptions(journal_requests=0).journal_requests
        0
    """

    admin: bool = True
    journal_requests: int = DEFAULT_MAX_REQUESTS
    journal_bytes: int = DEFAULT_MAX_BYTES
    cors_origins: tuple[str, ...] = ()
    allowed_hosts: tuple[str, ...] = ()
    """Host names answered besides IP addresses, localhost and the bound address."""
    max_stubs: int = DEFAULT_MAX_STUBS
    max_stub_bytes: int = DEFAULT_MAX_STUB_BYTES
    pacing: Pacing = field(default_factory=Pacing)
    cassette: ReplayOptions | RecordOptions | None = None
    """Answer from a recording (`replay`), or record what an upstream answers (`recorder`)."""

    def __post_init__(self) -> None:
        if min(self.journal_requests, self.journal_bytes, self.max_stubs, self.max_stub_bytes) < 0:
            raise ValueError("the journal's and the stubs' bounds cannot be negative")


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
    return ControlState(options, StubBook(options.max_stubs, options.max_stub_bytes), journal)


@contextmanager
def shared_state(options: ControlOptions) -> Iterator[ControlState]:
    """The stubs and the journal served to worker processes from a thread of this one.

    The state's proxies can be handed to workers as they start; each call on them is a
    round trip to this process, where one lock orders every worker's calls. Stopped on exit.
    """
    book = StubBook(options.max_stubs, options.max_stub_bytes)
    journal = (
        Journal(options.journal_requests, options.journal_bytes)
        if options.journal_requests
        else None
    )

    class Shared(BaseManager):
        """Serves this `serve`'s one stub book and journal."""

    Shared.register("book", callable=lambda: book)
    Shared.register("journal", callable=lambda: journal)
    server = Shared(authkey=multiprocessing.current_process().authkey).get_server()
    threading.Thread(target=server.serve_forever, name="groundwire-shared", daemon=True).start()
    client = Shared(address=server.address, authkey=multiprocessing.current_process().authkey)
    client.connect()
    try:
        shared_book: Any = client.book()  # type: ignore[attr-defined]  # registered above
        shared_journal: Any = client.journal() if journal is not None else None  # type: ignore[attr-defined]
        yield ControlState(options, shared_book, shared_journal)
    finally:
        server.stop_event.set()  # type: ignore[attr-defined]  # made by serve_forever


class _JournalOf:
    """Writes calls to a journal that takes only plain data (a manager's proxy)."""

    def __init__(self, journal: Any) -> None:
        self.journal = journal

    def add_call(self, call: Call) -> None:
        self.journal.add(entry_for(call))


def switchboard_for(state: ControlState, judge: BatchJudge | None = None) -> Switchboard:
    """The switchboard for servers sharing `state`: stubs, a cassette's answerer, the engine.

    A `judge` scores claims in the engine's place.
    """
    journal = None if state.journal is None else _JournalOf(state.journal)
    answerers: list[Answerer] = [StubAnswerer(state.book)]
    if state.options.cassette is not None:
        answerers.append(state.options.cassette.answerer())
    return Switchboard(answerers, journal=journal, pacing=state.options.pacing, judge=judge)
