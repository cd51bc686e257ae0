"""Stubs: a test's own answers for calls that match, ahead of the engine, from any language.

A stub is JSON (the admin API's `POST /groundwire/v1/stubs`, or `Emulator.stub`):

    {"method": "CheckGrounding", "match": {"answerCandidate": "Paris is in France."},
     "response": {"supportScore": 0.25}, "times": 1, "priority": 0}

* `method`: an RPC's name (every version), or a full gRPC name
  (`google.cloud.discoveryengine.v1.GroundedGenerationService/CheckGrounding`).
* `match`: Google's JSON field names. Text matches equal text, `{"regex": "..."}` text it
  finds a match in (RE2, below); a map matches when the request's holds every given key, a
  list when the request's holds an item matching each given one. Empty (or absent), it
  matches every call.
* One outcome (`outcomes.outcome_from_json`: `response`, `error` or `stream`, and `delayMs`),
  or a `sequence` of them: each matching call gets the next, the last one repeats.
* `times`: answer the first N matching calls, then let calls fall through.
* `priority`: higher first; among equals, the newest stub first.

A `regex` is RE2's syntax (google-re2), matched in time linear in the text: no pattern can
make a call, or the calls behind it, wait. A pattern RE2 does not take (a backreference, a
lookaround) is refused at registration with a 400 naming it.

`parse_stub` validates a stub against every method it names (a 400 naming the bad field);
`StubBook` holds the stubs and their counts, safe across threads, and is pure JSON inside, so
`serve --workers N` shares one book through a manager process. It holds at most
`DEFAULT_MAX_STUBS` stubs (more: 429) taking at most `DEFAULT_MAX_STUB_BYTES` in memory
(more: 413), counted by `stub_size`. `StubAnswerer` is the stubs' seat at
`answering.Switchboard`.
"""

from __future__ import annotations

import functools
import itertools
import re
import sys
import threading
import uuid
from collections.abc import Mapping
from typing import Any

import re2

from groundwire.contract.apis import Method, all_methods
from groundwire.contract.errors import (
    GroundwireError,
    InvalidArgument,
    ResourceExhausted,
    bad_request,
)
from groundwire.emulator.answering import Call
from groundwire.emulator.outcomes import Outcome, outcome_from_json

_FIELDS = frozenset(
    {"id", "method", "match", "response", "error", "stream", "delayMs", "sequence", "times"}
    | {"priority"}
)
_OUTCOME_FIELDS = ("response", "error", "stream", "delayMs")
DEFAULT_MAX_STUBS = 1000
"""Stubs one emulator holds at once; registering one more is refused with 429."""
DEFAULT_MAX_STUB_BYTES = 64 * 1024 * 1024
"""Bytes (`stub_size`) the stubs held at once take; a stub past it is refused with 413."""


def methods_named(name: str) -> list[Method]:
    """The methods a stub's `method` names: by RPC name every version, or one full gRPC name.

    Example:
        >>> [m.version for m in methods_named("CheckGrounding")]
        ['v1', 'v1beta', 'v1alpha']
    """
    full = name.lstrip("/")
    return [m for m in all_methods() if m.name == name or m.grpc_path.lstrip("/") == full]


def parse_stub(data: Any) -> dict[str, Any]:
    """The stub `data` spells, checked and completed (an `id`, `priority`, `match`).

    Raises a 400 `InvalidArgument` naming the bad field, also when a response does not
    parse as the response message of a method the stub names.

    Example:
        >>> stub = parse_stub({"method": "CheckGrounding", "response": {"supportScore": 0.5}})
        >>> stub["priority"], stub["match"], len(stub["id"]) > 0
        (0, {}, True)
    """
    if not isinstance(data, Mapping):
        raise _invalid("stub", "must be a JSON object")
    unknown = sorted(set(data) - _FIELDS)
    if unknown:
        raise _invalid(unknown[0], "is not a field of a stub")
    name = data.get("method")
    if not isinstance(name, str) or not name:
        raise _invalid("method", "must name an RPC, e.g. CheckGrounding")
    methods = methods_named(name)
    if not methods:
        known = sorted({m.name for m in all_methods()})
        raise _invalid("method", f"{name!r} is no RPC the emulator serves ({', '.join(known)})")
    stub: dict[str, Any] = {
        "id": _id(data.get("id")),
        "method": name,
        "match": _match(data.get("match", {}), methods),
        "priority": _integer(data, "priority", 0, minimum=None),
    }
    if "times" in data:
        stub["times"] = _integer(data, "times", 0, minimum=1)
    if "sequence" in data:
        if any(key in data for key in _OUTCOME_FIELDS):
            raise _invalid("sequence", "replaces response, error, stream and delayMs; give one")
        sequence = data["sequence"]
        if not isinstance(sequence, list) or not sequence:
            raise _invalid("sequence", "must be a non-empty list of outcomes")
        for index, outcome in enumerate(sequence):
            _check_outcome(outcome, methods, f"sequence[{index}]")
        stub["sequence"] = list(sequence)
    else:
        outcome = {key: data[key] for key in _OUTCOME_FIELDS if key in data}
        _check_outcome(outcome, methods, "")
        stub.update(outcome)
    return stub


def matches(pattern: Any, value: Any) -> bool:
    """Whether a request's JSON `value` matches a stub's `pattern` (see the module's text).

    Example:
        >>> matches({"facts": [{"factText": {"regex": "Paris"}}]},
        ...         {"facts": [{"factText": "Rome."}, {"factText": "Paris is in France."}]})
        True
    """
    if isinstance(pattern, Mapping):
        if set(pattern) == {"regex"} and isinstance(pattern["regex"], str):
            return isinstance(value, str) and _compiled(pattern["regex"]).search(value) is not None
        return isinstance(value, Mapping) and all(
            key in value and matches(wanted, value[key]) for key, wanted in pattern.items()
        )
    if isinstance(pattern, list):
        return isinstance(value, list) and all(
            any(matches(wanted, item) for item in value) for wanted in pattern
        )
    if isinstance(pattern, int | float) and not isinstance(pattern, bool):
        return pattern == value or str(pattern) == value  # int64s are JSON strings
    return bool(pattern == value)


class StubBook:
    """The registered stubs and how many calls each answered; safe across threads.

    Example:
        >>> book = StubBook()
        >>> _ = book.add(parse_stub({"method": "CheckGrounding", "times": 1,
        ...                          "response": {"supportScore": 0.5}}))
        >>> path = "/google.cloud.discoveryengine.v1.GroundedGenerationService/CheckGrounding"
        >>> book.pick(path, {}), book.pick(path, {})
        ({'response': {'supportScore': 0.5}}, None)
    """

    def __init__(
        self, max_stubs: int = DEFAULT_MAX_STUBS, max_bytes: int = DEFAULT_MAX_STUB_BYTES
    ) -> None:
        self.max_stubs = max_stubs
        self.max_bytes = max_bytes
        self._stubs: list[dict[str, Any]] = []
        self._answered: dict[str, int] = {}
        self._paths: dict[str, frozenset[str]] = {}
        self._sizes: dict[str, int] = {}
        self._age = itertools.count()
        self._ages: dict[str, int] = {}
        self._lock = threading.Lock()

    def add(self, stub: dict[str, Any], size: int | None = None) -> dict[str, Any]:
        """Registers a stub from `parse_stub` (replacing one with its id); returns it.

        `size` is its `stub_size` if known. Past `max_stubs` raises `ResourceExhausted`
        (429), past `max_bytes` an `InvalidArgument` (413), each naming the cap; the stubs
        held are kept as they were.
        """
        paths = frozenset(m.grpc_path for m in methods_named(stub["method"]))
        size = stub_size(stub) if size is None else size
        with self._lock:
            replaced = self._sizes.get(stub["id"], 0)
            count = len(self._stubs) + (0 if stub["id"] in self._sizes else 1)
            if count > self.max_stubs:
                raise ResourceExhausted(
                    f"the emulator holds {self.max_stubs:,} stubs, its limit: remove some "
                    "(DELETE /groundwire/v1/stubs) before adding more"
                )
            held = self._held() - replaced + size
            if held > self.max_bytes:
                raise InvalidArgument(
                    f"this stub takes {size:,} bytes, and the stubs held would take {held:,}: "
                    f"over the limit of {self.max_bytes:,} bytes for all stubs",
                    http_status=413,
                )
            self._stubs = [kept for kept in self._stubs if kept["id"] != stub["id"]]
            self._stubs.append(stub)
            self._paths[stub["id"]] = paths
            self._sizes[stub["id"]] = size
            self._ages[stub["id"]] = next(self._age)
            self._answered[stub["id"]] = 0
            self._stubs.sort(key=lambda kept: (-kept["priority"], -self._ages[kept["id"]]))
        return stub

    def held_bytes(self) -> int:
        """The bytes (`stub_size`) the stubs held take; at most `max_bytes`."""
        with self._lock:
            return self._held()

    def _held(self) -> int:
        return sum(self._sizes[stub["id"]] for stub in self._stubs)

    def stubs(self) -> list[dict[str, Any]]:
        """The stubs in the order they are tried, each with `answered`: the calls it took."""
        with self._lock:
            return [{**stub, "answered": self._answered[stub["id"]]} for stub in self._stubs]

    def remove(self, stub_id: str) -> bool:
        """Removes the stub with `stub_id`; False when there is none."""
        with self._lock:
            kept = [stub for stub in self._stubs if stub["id"] != stub_id]
            found = len(kept) != len(self._stubs)
            self._stubs = kept
            self._forget_removed()
            return found

    def clear(self) -> None:
        """Removes every stub."""
        with self._lock:
            self._stubs = []
            self._forget_removed()

    def _forget_removed(self) -> None:
        """Drops the counts and sizes of stubs no longer held."""
        held = {stub["id"] for stub in self._stubs}
        for book in (self._answered, self._paths, self._sizes, self._ages):
            for stub_id in [stub_id for stub_id in book if stub_id not in held]:
                del book[stub_id]

    def wanted(self, grpc_path: str) -> bool:
        """Whether any stub names this method (else the request need not become JSON)."""
        with self._lock:
            return any(grpc_path in self._paths[stub["id"]] for stub in self._stubs)

    def pick(self, grpc_path: str, request: dict[str, Any]) -> dict[str, Any] | None:
        """The outcome JSON of the first stub that takes this call, counted; None if none does."""
        with self._lock:
            for stub in self._stubs:
                answered = self._answered[stub["id"]]
                if grpc_path not in self._paths[stub["id"]] or answered >= stub.get(
                    "times", answered + 1
                ):
                    continue
                if not matches(stub["match"], request):
                    continue
                self._answered[stub["id"]] = answered + 1
                if "sequence" in stub:
                    sequence = stub["sequence"]
                    return dict(sequence[min(answered, len(sequence) - 1)])
                return {key: stub[key] for key in _OUTCOME_FIELDS if key in stub}
        return None


class StubAnswerer:
    """The stubs' seat at the switchboard: the outcome of the first stub that takes a call."""

    def __init__(self, book: StubBook) -> None:
        self.book = book

    def __call__(self, call: Call) -> Outcome | None:
        """The matching stub's outcome for `call`, or None to let the engine answer."""
        path = call.method.grpc_path
        if not self.book.wanted(path):
            return None
        outcome = self.book.pick(path, call.request_json())
        return None if outcome is None else outcome_from_json(call.method, outcome)


def _check_outcome(data: Any, methods: list[Method], field: str) -> None:
    if not isinstance(data, Mapping):
        raise _invalid(field, "must be an object with response, error or stream")
    for method in methods:
        try:
            outcome_from_json(method, data, field)
        except GroundwireError as error:
            if len(methods) == 1:
                raise
            raise type(error)(
                f"{error.message} (for {method.grpc_path.lstrip('/')}; a field of one version "
                "needs a stub whose method is that version's full gRPC name)",
                details=error.details,
            ) from None


def _match(pattern: Any, methods: list[Method]) -> dict[str, Any]:
    if not isinstance(pattern, Mapping):
        raise _invalid("match", "must be an object of Google's JSON field names")
    for key, value in pattern.items():
        if not all(_has_field(method, key) for method in methods):
            raise _invalid(f"match.{key}", f"is not a field of {methods[0].name}'s request")
        _check_patterns(value, f"match.{key}")
    return dict(pattern)


def _has_field(method: Method, name: str) -> bool:
    fields = method.request_class.DESCRIPTOR.fields
    return any(name in (field.json_name, field.name) for field in fields)


def _check_patterns(pattern: Any, field: str) -> None:
    if isinstance(pattern, Mapping):
        if set(pattern) == {"regex"}:
            if not isinstance(pattern["regex"], str):
                raise _invalid(f"{field}.regex", "must be a regular expression's text")
            try:
                _compiled(pattern["regex"])
            except re2.error as error:
                reason = error.args[0] if error.args else error
                if isinstance(reason, bytes):
                    reason = reason.decode("utf-8", "replace")
                raise _invalid(
                    f"{field}.regex",
                    f"{pattern['regex'][:100]!r} is no regular expression RE2 takes "
                    f"(no backreferences or lookarounds): {reason}",
                ) from None
            return
        for key, value in pattern.items():
            _check_patterns(value, f"{field}.{key}")
    elif isinstance(pattern, list):
        for index, value in enumerate(pattern):
            _check_patterns(value, f"{field}[{index}]")


def stub_size(stub: Any) -> int:
    """The bytes a stub's JSON takes in memory, for the stubs' bound.

    `sys.getsizeof` of every dict, list, string and number in it (an object it holds twice
    is counted twice, so the sum errs high).

    Example:
        >>> stub_size({"response": {"supportScore": 0.5}}) > 0
        True
    """
    held = 0
    waiting = [stub]
    while waiting:
        value = waiting.pop()
        held += sys.getsizeof(value)
        if isinstance(value, Mapping):
            waiting.extend(value.keys())
            waiting.extend(value.values())
        elif isinstance(value, list):
            waiting.extend(value)
    return held


_RE2_OPTIONS = re2.Options()
_RE2_OPTIONS.log_errors = False  # a refused pattern is the caller's 400, not a log line
_RE2_OPTIONS.max_mem = 1 << 20  # per pattern; past it RE2 refuses the pattern, or runs slower
_COMPILED_PATTERNS = 64
"""Compiled patterns kept for reuse, so at most 64 MiB (`max_mem` each) in all."""


@functools.lru_cache(maxsize=_COMPILED_PATTERNS)
def _compiled(pattern: str) -> Any:
    """`pattern` compiled by RE2: its matching time is linear in the text."""
    return re2.compile(pattern, _RE2_OPTIONS)


def _integer(data: Mapping[str, Any], name: str, default: int, *, minimum: int | None) -> int:
    value = data.get(name, default)
    if isinstance(value, bool) or not isinstance(value, int):
        raise _invalid(name, "must be a whole number")
    if minimum is not None and value < minimum:
        raise _invalid(name, f"must be at least {minimum}")
    return value


def _id(value: Any) -> str:
    if value is None:
        return uuid.uuid4().hex
    if not isinstance(value, str) or not re.fullmatch(r"[A-Za-z0-9_.-]{1,64}", value):
        raise _invalid("id", "must be 1 to 64 letters, digits, '_', '.' or '-'")
    return value


def _invalid(field: str, description: str) -> GroundwireError:
    return bad_request([(field, description)], f"{field}: {description}")
