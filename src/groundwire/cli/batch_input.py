"""Reading a batch input file: each line parsed on its own, as an item and a key of its request.

The key is what resume matches an output record to its input line by: a hash of the request the
line makes (its text, facts, effective threshold and options, the method) and its id. It is
blind to the line's position and to how its JSON is spelled (key order, spacing, `answer` for
`answer_candidate`), and changes when anything sent would change.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, BinaryIO

from groundwire.cli.errors import InputError
from groundwire.cli.io import GroundingInput, decode, grounding_input_from_json, parse_json
from groundwire.features.batch_spec import BY_COMMAND, BatchSpec

_KEY_BYTES = 16
MAX_LINE_BYTES = 16 << 20
"""The longest input line read: no request Google takes is this large (its own limits are far
lower), so a longer line is refused unread instead of being held in memory and sent."""
_CHUNK_BYTES = 1 << 20


@dataclass(frozen=True)
class RequestShape:
    """What the command line adds to every line's request: the method and its defaults.

    `method` is the name `--method` takes; `claim_scores` asks for the options its batch spec
    sets for `--claim-scores` (none for a method whose claims get no score).
    """

    method: str
    citation_threshold: float | None = None
    claim_scores: bool = False

    @property
    def batch(self) -> BatchSpec:
        """The batch spec of the method: the keys a line gives its text under, and more."""
        return BY_COMMAND[self.method]


@dataclass(frozen=True)
class InputLine:
    """One input line read: its 1-based number, key and id, and its item or its problem.

    `item` is the mapping of arguments the library batch takes (None when the line is no
    request, and `problem` says why); `characters` counts its text and facts.
    """

    number: int
    key: str
    id: Any
    item: Mapping[str, Any] | None
    problem: str | None
    characters: int = 0


def read_line(number: int, raw: bytes, shape: RequestShape) -> InputLine:
    """Reads one input line; a malformed one gives its problem rather than an exception.

    >>> line = read_line(3, b'{"id": 7, "answer": "Hi.", "facts": []}', RequestShape("check"))
    >>> line.id, line.item["answer_candidate"], len(line.key)
    (7, 'Hi.', 32)
    """
    source = f"line {number}"
    try:
        document = parse_json(decode(raw, source), source)
    except InputError as error:
        return InputLine(number, _raw_key(raw, shape), readable_id(raw), None, error.message)
    record_id = document.get("id") if isinstance(document, dict) else None
    try:
        grounding = grounding_input_from_json(document, shape.batch.text_keys, source)
    except InputError as error:
        return InputLine(number, _raw_key(raw, shape), record_id, None, error.message)
    item = _item(grounding, shape, record_id)
    key = request_key(item, document["facts"], shape)
    return InputLine(number, key, record_id, item, None, grounding.characters)


class _Unreadable:
    """Stands in for a value the lenient reading could not read: no id may hold one."""


def _lenient_int(digits: str) -> object:
    try:
        return int(digits)
    except ValueError:  # more digits than Python reads
        return _Unreadable()


def readable_id(raw: bytes) -> Any:
    r"""The `"id"` of a line that is no request, when the id itself can be read; else None.

    The line is read leniently: bytes that are not UTF-8 and integers too long to read stand
    in as unreadable values. An id is readable when it can be written back out as UTF-8 JSON:
    one holding an unreadable value or a lone surrogate is not, and no id is guessed from a
    line that is not JSON.

    >>> readable_id(b'{"id": "b", "answer": "bad \\ud800 text"}')
    'b'
    >>> readable_id(b'{"id": "\\ud800", "answer": "Hi."}') is None
    True
    """
    try:
        text = raw.decode("utf-8-sig", "surrogateescape")
        document = json.loads(text, parse_int=_lenient_int)
        if not isinstance(document, dict):
            return None
        record_id = document.get("id")
        json.dumps(record_id, ensure_ascii=False).encode()
    except (TypeError, ValueError, RecursionError):  # not JSON, or an id that cannot be read
        return None
    return record_id


def _item(grounding: GroundingInput, shape: RequestShape, record_id: Any) -> dict[str, Any]:
    threshold = grounding.citation_threshold
    item: dict[str, Any] = {
        shape.batch.text_keys[0]: grounding.text,
        "facts": grounding.facts,
        "citation_threshold": shape.citation_threshold if threshold is None else threshold,
    }
    if shape.claim_scores:
        item.update(shape.batch.claim_score_options)
    if record_id is not None:
        item["id"] = record_id
    return item


def request_key(item: Mapping[str, Any], facts: Any, shape: RequestShape) -> str:
    """The key of a line's request: a hash of what it sends, with the method and its id.

    `facts` is the line's facts as JSON, as given.

    >>> shape = RequestShape("check")
    >>> a = request_key({"answer_candidate": "Hi.", "id": 1}, ["Hi."], shape)
    >>> a == request_key({"answer_candidate": "Hi.", "id": 2}, ["Hi."], shape)
    False
    """
    sent = {key: value for key, value in item.items() if key != "facts"}
    canonical = json.dumps(
        [shape.method, sent, facts], sort_keys=True, separators=(",", ":"), ensure_ascii=False
    )
    return hashlib.blake2b(canonical.encode(), digest_size=_KEY_BYTES).hexdigest()


def _raw_key(raw: bytes, shape: RequestShape) -> str:
    """The key of a line that is no request: a hash of its bytes (and the method)."""
    digest = hashlib.blake2b(digest_size=_KEY_BYTES)
    digest.update(b"unreadable\0" + shape.method.encode() + b"\0" + raw.strip())
    return digest.hexdigest()


def input_lines(
    path: str, shape: RequestShape, skip: Callable[[int], bool] | None = None
) -> Iterator[InputLine]:
    """The non-blank lines of the input file at `path`, read, in order.

    Lines whose number `skip` accepts are passed over unread. A line longer than
    `MAX_LINE_BYTES` is never held: it is read in chunks up to its newline and becomes a line
    with its problem (and a key of its bytes), so the others run.
    """
    with open(path, "rb") as file:
        number = 0
        while raw := file.readline(MAX_LINE_BYTES + 1):
            number += 1
            if len(raw) > MAX_LINE_BYTES and not raw.endswith(b"\n"):
                line = _overlong_line(number, raw, file, shape)
                if skip is None or not skip(number):
                    yield line
            elif raw.strip() and (skip is None or not skip(number)):
                yield read_line(number, raw, shape)


def _overlong_line(number: int, start: bytes, file: BinaryIO, shape: RequestShape) -> InputLine:
    """A line over `MAX_LINE_BYTES`, its rest read past in chunks: its problem and its key.

    The key hashes the line's first `MAX_LINE_BYTES` and its length (hashing a GiB would
    cost seconds on every run): two such lines alike in both get one key, and each its own
    record all the same, as identical lines do.
    """
    size = len(start)
    chunk = start
    while not chunk.endswith(b"\n") and (chunk := file.readline(_CHUNK_BYTES)):
        size += len(chunk)
    size -= len(chunk) - len(chunk.rstrip(b"\r\n"))  # the line's end is not its bytes
    digest = hashlib.blake2b(digest_size=_KEY_BYTES)
    digest.update(b"overlong\0" + shape.method.encode() + b"\0%d\0" % size + start)
    problem = (
        f"line {number}: {size} bytes, longer than the {MAX_LINE_BYTES >> 20} MiB any request "
        "can be; not read"
    )
    return InputLine(number, digest.hexdigest(), None, None, problem)
