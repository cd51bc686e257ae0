"""Batch resume: which input lines the output already answers, matched by content, not position.

The output is JSON Lines, one record per input line, appended in completion order; each record
carries its line's key (`batch_input.request_key`). A rerun keeps the records that are final
(results, and failures no retry would change) and redoes the rest: transient failures by
default, every failure with --retry-failed. Each kept record must answer a line of the input
as this command would send it; when one does not, the output belongs to another input (or
other options) and the run is refused before anything is touched. Lines that moved (a line
inserted above them) keep their records, renumbered.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field

from groundwire.cli.batch_input import InputLine

TRANSIENT_CODES = frozenset({"UNAVAILABLE", "DEADLINE_EXCEEDED", "RESOURCE_EXHAUSTED"})
"""Failures that say nothing about the line itself: the next run does their lines again."""


@dataclass(frozen=True)
class OutputRecord:
    """One output record as resume sees it: its key and line, its failure code or its score."""

    key: str
    line: int
    code: str | None
    score: float | None

    def final(self, *, retry_failed: bool) -> bool:
        """Whether the record stands: a result, or a failure that is not to be done again."""
        if self.code is None:
            return True
        return not retry_failed and self.code not in TRANSIENT_CODES


def parse_record(raw: bytes, score_name: str) -> OutputRecord | str | None:
    r"""One output line as a record; "keyless" for a record of an older version; else None.

    >>> parse_record(b'{"line": 2, "key": "ab", "error": {"code": "UNAVAILABLE"}}\n', "s")
    OutputRecord(key='ab', line=2, code='UNAVAILABLE', score=None)
    """
    try:
        record = json.loads(raw)
    except (ValueError, RecursionError):
        return None
    if not isinstance(record, dict):
        return None
    number, key = record.get("line"), record.get("key")
    if isinstance(number, bool) or not isinstance(number, int) or number < 1:
        return None
    if not isinstance(key, str):
        return "keyless"
    error, result = record.get("error"), record.get("result")
    if isinstance(error, dict):
        return OutputRecord(key, number, str(error.get("code") or "UNKNOWN"), None)
    if not isinstance(result, dict):
        return None
    score = result.get(score_name)
    return OutputRecord(key, number, None, score if isinstance(score, int | float) else None)


@dataclass
class OutputState:
    """What an existing output holds: its kept records by key, and what a rerun drops.

    `kept` lists, per key, the final records in file order; `redo` counts the failures whose
    lines are done again; `keyless` counts records of an older version (no key);
    `unreadable` the complete lines that are no records (left in place, ignored);
    `complete_size` the bytes up to the end of the last complete line (a torn one follows).
    """

    kept: dict[str, list[OutputRecord]] = field(default_factory=dict)
    redo: int = 0
    keyless: int = 0
    unreadable: int = 0
    complete_size: int = 0
    size: int = 0

    @property
    def torn_bytes(self) -> int:
        """The size of the torn last line an interrupted run left (0 when none)."""
        return self.size - self.complete_size


def read_state(lines: Iterable[bytes], *, retry_failed: bool, score_name: str) -> OutputState:
    r"""The state of an output from its lines (as read from the file, newlines kept).

    A last line without its newline is torn: it is not taken into account.

    >>> state = read_state([b'{"line":1,"key":"k","result":{}}\n', b'{"li'],
    ...                    retry_failed=False, score_name="support_score")
    >>> len(state.kept["k"]), state.torn_bytes
    (1, 4)
    """
    state = OutputState()
    for raw in lines:
        state.size += len(raw)
        if not raw.endswith(b"\n"):
            break
        state.complete_size += len(raw)
        parsed = parse_record(raw, score_name)
        if parsed is None:
            state.unreadable += 1
        elif isinstance(parsed, str):
            state.keyless += 1
        elif parsed.final(retry_failed=retry_failed):
            state.kept.setdefault(parsed.key, []).append(parsed)
        else:
            state.redo += 1
    return state


@dataclass
class ResumePlan:
    """The input matched against the output: lines done, lines to do, records left over.

    The i-th input line with a key is answered by the i-th kept record with that key, so
    identical lines each keep a record of their own. `lines_of[key]` are the line numbers the
    kept records of `key` now answer; `foreign` lists the kept records that answer no line;
    `done_lines` marks the done line numbers, one bit each (so the run reads only the others).
    """

    lines: int = 0
    done: int = 0
    lines_of: dict[str, list[int]] = field(default_factory=dict)
    foreign: list[OutputRecord] = field(default_factory=list)
    moved: int = 0
    done_kept: list[OutputRecord] = field(default_factory=list)
    done_lines: bytearray = field(default_factory=bytearray)

    @property
    def pending(self) -> int:
        """Input lines this run does."""
        return self.lines - self.done

    def is_done(self, number: int) -> bool:
        """Whether input line `number` is answered by a kept record."""
        byte = number >> 3
        return byte < len(self.done_lines) and bool(self.done_lines[byte] & (1 << (number & 7)))

    def mark_done(self, number: int) -> None:
        """Marks input line `number` as answered."""
        byte = number >> 3
        if byte >= len(self.done_lines):
            self.done_lines.extend(bytes(byte + 1 - len(self.done_lines)))
        self.done_lines[byte] |= 1 << (number & 7)


def plan_resume(state: OutputState, lines: Iterable[InputLine]) -> ResumePlan:
    """Matches every input line against the records the output keeps."""
    plan = ResumePlan()
    for line in lines:
        plan.lines += 1
        kept = state.kept.get(line.key)
        if kept is None:
            continue
        numbers = plan.lines_of.setdefault(line.key, [])
        if len(numbers) < len(kept):
            record = kept[len(numbers)]
            plan.moved += record.line != line.number
            plan.done_kept.append(record)
            numbers.append(line.number)
            plan.mark_done(line.number)
            plan.done += 1
    for key, records in state.kept.items():
        plan.foreign.extend(records[len(plan.lines_of.get(key, ())) :])
    return plan


def foreign_problem(plan: ResumePlan, output: str, source: str) -> str | None:
    """Why the output cannot be resumed with this input, in one line; None when it can."""
    if not plan.foreign:
        return None
    failures = all(record.code is not None for record in plan.foreign)
    what = counted(len(plan.foreign), "failure" if failures else "record")
    remedy = (
        "pass --retry-failed to do those lines again, or write to a new output file"
        if failures
        else "write to a new output file"
    )
    return (
        f"{output}: holds {what} for no line of {source} as this command "
        f"sends it (another input, an edited line, or another --method, --citation-threshold "
        f"or --claim-scores); {remedy}"
    )


def counted(count: int, noun: str) -> str:
    """`count` and `noun`, plural when it is not one.

    >>> counted(1, "record"), counted(3, "failure")
    ('1 record', '3 failures')
    """
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"
