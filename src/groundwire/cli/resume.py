"""Batch resume bookkeeping: which input lines the output already answers, and its torn tail.

The output is JSON Lines, one line per input line, appended in completion order. A run that
was killed mid-write leaves a last line without its newline: that line is dropped (and its
input line done again), so every input line ends up with exactly one complete output line.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass
class OutputState:
    """What an existing output file holds.

    `done`: input line numbers that have an output line; `failed`: those whose line is an
    error; `repaired_bytes`: the size of the torn last line that was dropped; `unreadable`:
    complete lines that are not batch records (left in place, ignored).
    """

    done: set[int] = field(default_factory=set)
    failed: set[int] = field(default_factory=set)
    repaired_bytes: int = 0
    unreadable: int = 0

    def add(self, raw: bytes) -> None:
        """Takes one complete output line into account."""
        parsed = line_number(raw)
        if parsed is None:
            self.unreadable += 1
            return
        number, failed = parsed
        self.done.add(number)
        if failed:
            self.failed.add(number)


def record_line(record: Mapping[str, Any]) -> bytes:
    r"""One output line: compact JSON (UTF-8, not escaped) and a newline.

    >>> record_line({"line": 3, "id": "q-3", "result": {"support_score": 0.9}})
    b'{"line":3,"id":"q-3","result":{"support_score":0.9}}\n'
    """
    return (json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n").encode()


def line_number(raw: bytes) -> tuple[int, bool] | None:
    r"""(input line number, whether it failed) of one output line; None if it is no record.

    >>> line_number(b'{"line": 12, "error": {"code": "UNAVAILABLE", "message": "down"}}\n')
    (12, True)
    """
    try:
        record = json.loads(raw)
    except (ValueError, RecursionError):
        return None
    if not isinstance(record, dict):
        return None
    number = record.get("line")
    if isinstance(number, bool) or not isinstance(number, int) or number < 1:
        return None
    return number, "error" in record


def read_state(lines: Iterable[bytes]) -> OutputState:
    """The state of output lines (each complete, newline included)."""
    state = OutputState()
    for raw in lines:
        state.add(raw)
    return state


def prepare_output(path: str, *, retry_failed: bool = False) -> OutputState:
    """Reads the output file at `path` (creating it if missing), dropping a torn last line.

    With `retry_failed`, error lines are removed (the file is rewritten atomically), so the
    input lines they answered are done again.
    """
    with open(path, "a+b") as file:
        file.seek(0)
        state = OutputState()
        complete_size = 0
        for raw in file:
            if not raw.endswith(b"\n"):
                break
            complete_size += len(raw)
            state.add(raw)
        size = file.seek(0, os.SEEK_END)
        if size > complete_size:
            file.truncate(complete_size)
    state.repaired_bytes = size - complete_size
    if retry_failed and state.failed:
        _drop_error_lines(path)
        state.done -= state.failed
        state.failed = set()
    return state


def _drop_error_lines(path: str) -> None:
    directory = os.path.dirname(os.path.abspath(path))
    descriptor, temporary = tempfile.mkstemp(prefix=".groundwire-", dir=directory)
    try:
        os.chmod(temporary, os.stat(path).st_mode & 0o777)
        with open(path, "rb") as source, os.fdopen(descriptor, "wb") as target:
            for raw in source:
                parsed = line_number(raw)
                if parsed is None or not parsed[1]:
                    target.write(raw)
            target.flush()
            os.fsync(target.fileno())
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise


class OutputWriter:
    """Appends output lines, each with one unbuffered write, so a kill tears at most one.

    Not thread-safe by itself: the batch serialises its writes. After `close`, writes are
    refused (return False), so nothing lands once an interrupted run has begun to stop.
    """

    def __init__(self, path: str) -> None:
        self._descriptor: int | None = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)

    def write(self, record: Mapping[str, Any]) -> bool:
        """Appends `record` as one line; False when the writer is closed."""
        if self._descriptor is None:
            return False
        view = memoryview(record_line(record))
        while view:
            view = view[os.write(self._descriptor, view) :]
        return True

    def close(self) -> None:
        """Closes the file; later writes are refused."""
        if self._descriptor is not None:
            os.close(self._descriptor)
            self._descriptor = None
