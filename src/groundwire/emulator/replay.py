"""Replay: the emulator answers as a recorded API did, from a cassette, gRPC and REST alike.

A call matches a recorded exchange by its method (version included) and its request's
content, blind to field order. When a request was recorded more than once (a retry that
met UNAVAILABLE, then succeeded), each call gets the next recording and the last repeats.
A call that matches none fails with FAILED_PRECONDITION naming the closest recorded request
and where it differs, unless the fallback is the engine. Recorded delays (time to the
first response, between stream pieces) are kept at `speed` 1, divided by it otherwise, and
dropped at 0.
"""

from __future__ import annotations

import math
import os
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from groundwire.contract.errors import FailedPrecondition
from groundwire.emulator.answering import Call
from groundwire.emulator.cassette import Exchange, read_cassette, request_key
from groundwire.emulator.outcomes import Ending, Outcome, Piece

Fallback = Literal["fail", "engine"]
_SHOWN_DIFFERENCES = 3


@dataclass(frozen=True)
class ReplayOptions:
    """Which cassette to answer from, what an unmatched call gets, and how fast to replay.

    Example:
        >>> ReplayOptions("tests/cassettes/test_app.jsonl", fallback="engine", speed=0).speed
        0
    """

    path: str | os.PathLike[str]
    fallback: Fallback = "fail"
    speed: float = 1.0
    """1: the recorded pacing; 2: twice as fast; 0: everything at once."""

    def __post_init__(self) -> None:
        if self.fallback not in ("fail", "engine"):
            raise ValueError(f"fallback must be 'fail' or 'engine', not {self.fallback!r}")
        if not (math.isfinite(self.speed) and self.speed >= 0):
            raise ValueError(f"the replay speed must be 0 or more, not {self.speed!r}")

    def answerer(self) -> Replayer:
        """The replay's seat at the switchboard; `ConfigurationError` for an unreadable cassette."""
        return Replayer(read_cassette(self.path), self)


class Replayer:
    """Answers calls from recorded exchanges (see the module's text); safe across threads."""

    def __init__(self, exchanges: Sequence[Exchange], options: ReplayOptions) -> None:
        self.exchanges = tuple(exchanges)
        self.options = options
        self._recorded: dict[tuple[str, str], list[Exchange]] = {}
        for exchange in self.exchanges:
            key = (exchange.method.grpc_path, request_key(exchange.request))
            self._recorded.setdefault(key, []).append(exchange)
        self._played: dict[tuple[str, str], int] = {}
        self._lock = threading.Lock()

    def __call__(self, call: Call) -> Outcome | None:
        """The recorded outcome for `call`; for none, FAILED_PRECONDITION or the engine."""
        request = call.request_json()
        key = (call.method.grpc_path, request_key(request))
        recorded = self._recorded.get(key)
        if recorded is None:
            if self.options.fallback == "engine":
                return None
            return Outcome((), Ending(FailedPrecondition(self._unmatched(call, request))))
        with self._lock:
            played = self._played.get(key, 0)
            self._played[key] = played + 1
        return paced(recorded[min(played, len(recorded) - 1)].outcome, self.options.speed)

    def _unmatched(self, call: Call, request: dict[str, Any]) -> str:
        method = call.method
        asked = f"{method.version} {method.name}"
        where = os.fspath(self.options.path)
        if not self.exchanges:
            return f"the cassette {where} holds no exchanges to answer this {asked} call"
        same = [e for e in self.exchanges if e.method.grpc_path == method.grpc_path]
        leaves = set(_leaves(request))
        closest = max(same or self.exchanges, key=lambda e: _likeness(leaves, e.request))
        differences = sorted({path for path, _ in leaves ^ set(_leaves(closest.request))})
        shown = ", ".join(differences[:_SHOWN_DIFFERENCES]) + (
            ", ..." if len(differences) > _SHOWN_DIFFERENCES else ""
        )
        if not same:
            found = f"{closest.method.version} {closest.method.name}"
            return (
                f"no recorded exchange answers this {asked} request: the cassette {where} "
                f"holds no {asked} call; the closest recorded request is line "
                f"{closest.line} ({found})"
            )
        return (
            f"no recorded exchange answers this {asked} request; the closest recorded request "
            f"is line {closest.line} of {where}, which differs at {shown or 'nothing'}"
        )


def paced(outcome: Outcome, speed: float) -> Outcome:
    """`outcome` with its delays divided by `speed` (0: none at all).

    Example:
        >>> from groundwire.contract.errors import Unavailable
        >>> paced(Outcome((), Ending(Unavailable("x"), delay_seconds=2.0), 1.0), 2).delay_seconds
        0.5
    """
    if speed == 1:
        return outcome

    def scaled(seconds: float) -> float:
        return seconds / speed if speed else 0.0

    pieces = tuple(
        Piece(piece.response, scaled(piece.delay_seconds), piece.metadata)
        for piece in outcome.pieces
    )
    ending = outcome.ending
    if ending is not None:
        ending = Ending(ending.error, ending.abort, scaled(ending.delay_seconds))
    return Outcome(pieces, ending, scaled(outcome.delay_seconds))


def _leaves(value: Any, path: str = "") -> Iterator[tuple[str, str]]:
    """Every leaf of a request's JSON as (its path, its value's JSON), to compare requests."""
    if isinstance(value, dict):
        for name, item in value.items():
            yield from _leaves(item, f"{path}.{name}" if path else name)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _leaves(item, f"{path}[{index}]")
    else:
        yield path, request_key(value)


def _likeness(leaves: set[tuple[str, str]], recorded: dict[str, Any]) -> float:
    """How alike two requests are: the share of their leaves they have in common."""
    others = set(_leaves(recorded))
    union = leaves | others
    return len(leaves & others) / len(union) if union else 1.0
