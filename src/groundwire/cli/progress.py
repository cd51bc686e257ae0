"""Batch progress on stderr: a bar redrawn in place on a terminal, plain lines elsewhere."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Mapping
from typing import IO, Literal

ProgressMode = Literal["bar", "lines", "off"]

_BAR_WIDTH = 24
_NARROWEST_BAR = 8
_DEFAULT_WIDTH = 80
_BAR_REDRAW_SECONDS = 0.1
_LINE_SECONDS = 10.0


def duration_text(seconds: float) -> str:
    """A duration as `m:ss` (or `h:mm:ss`).

    >>> duration_text(4.2), duration_text(3725)
    ('0:04', '1:02:05')
    """
    whole = round(seconds)
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


def progress_text(done: int, total: int, elapsed: float, *, bar: bool, width: int = 80) -> str:
    """What the progress display says: count, rate and ETA (with a bar on a terminal).

    On a terminal the text fits in `width` columns, the last one left free (so it never
    wraps): the bar narrows, then goes, then the words, then the rate.

    >>> progress_text(12, 30, 2.4, bar=False)
    'batch: 12/30 lines  5.0/s  ETA 0:04'
    >>> progress_text(12, 30, 2.4, bar=True, width=40)
    '[███░░░░░] 12/30 lines  5.0/s  ETA 0:04'
    >>> progress_text(12, 30, 2.4, bar=True, width=24)
    '12/30 5.0/s ETA 0:04'
    """
    rate = done / elapsed if elapsed > 0 else 0.0
    eta = duration_text((total - done) / rate) if rate > 0 else "?"
    counts = f"{done}/{total} lines  {rate:.1f}/s  ETA {eta}"
    if not bar:
        return f"batch: {counts}"
    room = max(width - 1, 1)
    bar_width = min(_BAR_WIDTH, room - len(counts) - 3)
    if bar_width >= _NARROWEST_BAR:
        filled = bar_width * done // total if total else bar_width
        return f"[{'█' * filled}{'░' * (bar_width - filled)}] {counts}"
    for shorter in (counts, f"{done}/{total} {rate:.1f}/s ETA {eta}", f"{done}/{total}"):
        if len(shorter) <= room:
            return shorter
    return f"{done}/{total}"[:room]


def terminal_width(stream: IO[str], environ: Mapping[str, str] = os.environ) -> int:
    """The columns of the terminal `stream` draws on: $COLUMNS, else the terminal's, else 80."""
    columns = environ.get("COLUMNS", "")
    if columns.isdigit() and int(columns) > 0:
        return int(columns)
    try:
        width = os.get_terminal_size(stream.fileno()).columns
    except (AttributeError, OSError, ValueError):
        return _DEFAULT_WIDTH
    return width if width > 0 else _DEFAULT_WIDTH


class Progress:
    r"""Shows how far a batch has come; `update` is cheap enough to call after every line.

    `mode` "bar" redraws one line with `\r` at most ten times a second, fitted to the
    terminal's width at each redraw (`width` gives it; by default the stream's terminal);
    "lines" prints a plain line every ten seconds; "off" shows nothing.
    """

    def __init__(
        self,
        total: int,
        stream: IO[str],
        mode: ProgressMode,
        *,
        clock: Callable[[], float] = time.monotonic,
        width: Callable[[], int] | None = None,
    ) -> None:
        self.total = total
        self._stream = stream
        self._mode = mode
        self._clock = clock
        self._width = width if width is not None else lambda: terminal_width(stream)
        self._started = clock()
        self._shown_at = self._started
        self._shown_width = 0
        self._done = 0

    def update(self, done: int) -> None:
        """Notes that `done` lines are finished, redrawing when it is time to."""
        self._done = done
        now = self._clock()
        interval = _BAR_REDRAW_SECONDS if self._mode == "bar" else _LINE_SECONDS
        last = self._mode == "bar" and done == self.total
        if self._mode != "off" and (last or now - self._shown_at >= interval):
            self._show(now)

    def _show(self, now: float) -> None:
        self._shown_at = now
        elapsed = now - self._started
        if self._mode == "bar":
            width = self._width()
            text = progress_text(self._done, self.total, elapsed, bar=True, width=width)
            room = max(width - 1 - len(text), 0)
            padding = " " * min(max(self._shown_width - len(text), 0), room)
            self._stream.write(f"\r{text}{padding}")
            self._shown_width = len(text)
        else:
            self._stream.write(progress_text(self._done, self.total, elapsed, bar=False) + "\n")
        self._stream.flush()

    def finish(self) -> None:
        """Ends the bar's line, so what follows starts on a line of its own."""
        if self._mode == "bar" and self._shown_width:
            self._stream.write("\n")
            self._stream.flush()
            self._shown_width = 0
