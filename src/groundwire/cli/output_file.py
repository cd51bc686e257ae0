"""The batch output file on disk: read, made ready for a rerun, and appended to one line at a time.

A run killed mid-write leaves a last line without its newline: it is dropped (its input line is
done again). Records to redo are removed and moved lines renumbered by one atomic rewrite, so
every input line ends up with exactly one complete record, and a kill at any moment loses
nothing already written.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Mapping
from typing import Any

from groundwire.cli.resume import OutputRecord, OutputState, ResumePlan, parse_record, read_state
from groundwire.features.records import record_line


def read_output(path: str, *, retry_failed: bool, score_name: str) -> OutputState:
    """Reads the output file at `path` (a missing one is empty); changes nothing."""
    try:
        with open(path, "rb") as file:
            return read_state(file, retry_failed=retry_failed, score_name=score_name)
    except FileNotFoundError:
        return OutputState()


def prepare_output(
    path: str, state: OutputState, plan: ResumePlan, *, retry_failed: bool, score_name: str
) -> None:
    """Makes the output at `path` ready to append to: as `plan` says, with nothing torn.

    Creates a missing file; cuts a torn last line; removes the records to redo and gives
    kept records their lines' new numbers (one atomic rewrite, only when needed).
    """
    with open(path, "a+b") as file:
        if state.torn_bytes:
            file.truncate(state.complete_size)
    if state.redo or plan.moved:
        _rewrite(path, plan, retry_failed=retry_failed, score_name=score_name)


def _rewrite(path: str, plan: ResumePlan, *, retry_failed: bool, score_name: str) -> None:
    taken: dict[str, int] = {}
    directory = os.path.dirname(os.path.abspath(path))
    descriptor, temporary = tempfile.mkstemp(prefix=".groundwire-", dir=directory)
    try:
        os.chmod(temporary, os.stat(path).st_mode & 0o777)
        with open(path, "rb") as source, os.fdopen(descriptor, "wb") as target:
            for raw in source:
                record = parse_record(raw, score_name)
                if not isinstance(record, OutputRecord):
                    target.write(raw)  # no record of ours: left as it was
                elif record.final(retry_failed=retry_failed):
                    target.write(_renumbered(raw, record, plan, taken))
            target.flush()
            os.fsync(target.fileno())
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise


def _renumbered(raw: bytes, record: OutputRecord, plan: ResumePlan, taken: dict[str, int]) -> bytes:
    """The kept record's line, with the number of the input line it now answers."""
    index = taken.get(record.key, 0)
    taken[record.key] = index + 1
    number = plan.lines_of[record.key][index]
    if number == record.line:
        return raw
    document = json.loads(raw)
    document["line"] = number
    return record_line(document)


class OutputWriter:
    """Appends output lines, each with one unbuffered write, so a kill tears at most one.

    Not thread-safe by itself: the batch writes from one thread. After `close`, writes are
    refused (return False), so nothing lands once an interrupted run has begun to stop.
    """

    def __init__(self, path: str) -> None:
        self._descriptor: int | None = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)

    def write(self, record: Mapping[str, Any]) -> bool:
        """Appends `record` as one line; False when the writer is closed."""
        if self._descriptor is None:
            return False
        view = memoryview(record_line(dict(record)))
        while view:
            view = view[os.write(self._descriptor, view) :]
        return True

    def close(self) -> None:
        """Closes the file; later writes are refused."""
        if self._descriptor is not None:
            os.close(self._descriptor)
            self._descriptor = None
