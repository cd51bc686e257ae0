"""Reading a batch input file: its pending lines, each parsed on its own, and counted."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from groundwire.cli.errors import InputError
from groundwire.cli.io import GroundingInput, decode, grounding_input_from_json, parse_json


@dataclass(frozen=True)
class Line:
    """One input line to do: its 1-based number in the file and its bytes."""

    number: int
    raw: bytes


@dataclass(frozen=True)
class ParsedLine:
    """An input line read as a request: its `id` and input, or the problem with it."""

    id: Any
    grounding: GroundingInput | None
    problem: str | None


def parse_line(line: Line, text_keys: tuple[str, ...]) -> ParsedLine:
    """Reads one input line; a malformed one gives its problem rather than an exception.

    >>> parse_line(Line(3, b'{"id": 7, "answer": "Hi.", "facts": []}'), ("answer",)).id
    7
    """
    source = f"line {line.number}"
    try:
        document = parse_json(decode(line.raw, source), source)
    except InputError as error:
        return ParsedLine(None, None, error.message)
    record_id = document.get("id") if isinstance(document, dict) else None
    try:
        return ParsedLine(record_id, grounding_input_from_json(document, text_keys, source), None)
    except InputError as error:
        return ParsedLine(record_id, None, error.message)


def pending_lines(path: str, done: set[int]) -> Iterator[Line]:
    """The non-blank lines of the input file whose numbers are not in `done`."""
    with open(path, "rb") as file:
        for number, raw in enumerate(file, 1):
            if raw.strip() and number not in done:
                yield Line(number, raw)


@dataclass(frozen=True)
class InputCounts:
    """How many lines the input has, and how many of them are records and done.

    Records are the lines that are not blank; done are the records an earlier run did.
    """

    lines: int
    records: int
    done: int


def count_input(path: str, done: set[int]) -> InputCounts:
    """Counts the input file's lines against the line numbers in `done`."""
    lines = records = already = 0
    with open(path, "rb") as file:
        for raw in file:
            lines += 1
            if raw.strip():
                records += 1
                already += lines in done
    return InputCounts(lines, records, already)
