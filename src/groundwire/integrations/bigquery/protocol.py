"""BigQuery's remote-function protocol without I/O: the request read, rows as batch items, replies.

BigQuery sends `{"requestId", "caller", "sessionUser", "userDefinedContext", "calls"}`, each
call a list of the function's arguments, and takes `{"replies": [...]}` (one per call, in
order) or `{"errorMessage": ...}` with an HTTP status. It resends a call answered 408, 429,
500, 503 or 504; any other error status fails the query. Everything here is pure, so the
ASGI app (`groundwire.integrations.bigquery.app`) only reads bytes, awaits the batch and
writes bytes.
"""

from __future__ import annotations

import hashlib
import json
from collections import OrderedDict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from groundwire.contract.errors import GroundwireError, StatusCode, bad_request
from groundwire.contract.facts import fact_parts
from groundwire.contract.validation import (
    MAX_ANSWER_CHARACTERS_V1ALPHA,
    MAX_FACT_CHARACTERS,
    MAX_FACTS,
)
from groundwire.contract.version import DISCOVERY_VERSIONS
from groundwire.features.batch import BatchOutcome
from groundwire.features.batch_spec import BY_COMMAND, BatchSpec
from groundwire.features.records import error_record
from groundwire.features.split import plan_split

RETRYABLE_STATUSES = frozenset({408, 429, 500, 503, 504})
"""The HTTP statuses after which BigQuery sends a call again; any other error is final."""

MAX_JSON_DEPTH = 512
"""The deepest nesting of JSON read, in a request body or a facts string: BigQuery nests a
JSON value at most 500 levels deep, and the request adds three."""

CONTEXT_KEYS = ("method", "citation_threshold", "claim_scores", "api_version")
"""The `user_defined_context` keys the endpoint reads (BigQuery sends every value as text)."""


class RequestError(Exception):
    """A request the endpoint refuses as a whole: final for BigQuery (its `status` is 4xx)."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


@dataclass(frozen=True)
class CallOptions:
    """What `userDefinedContext` asks of every row of a call.

    Example:
        >>> read_options({"method": "corroborate"}).batch.rpc
        'CorroborateContent'
    """

    batch: BatchSpec
    citation_threshold: float | None = None
    claim_scores: bool = False
    api_version: str | None = None

    def batch_options(self) -> dict[str, Any]:
        """The options the batch method takes for every row (`citation_threshold`, ...)."""
        options: dict[str, Any] = {"citation_threshold": self.citation_threshold}
        if self.claim_scores:
            options.update(self.batch.claim_score_options)
        return options


def read_options(context: object) -> CallOptions:
    """The call's options from `userDefinedContext`; `RequestError` naming a bad one.

    Example:
        >>> read_options({"citation_threshold": "0.8", "claim_scores": "true"}).claim_scores
        True
        >>> read_options({"method": "summarize"})  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        groundwire.integrations.bigquery.protocol.RequestError: ...must be one of check, ...
    """
    if context is None:
        context = {}
    if not isinstance(context, Mapping):
        raise RequestError("userDefinedContext must be an object of strings")
    unknown = sorted(str(key) for key in context if key not in CONTEXT_KEYS)
    if unknown:
        raise RequestError(
            f"unknown userDefinedContext keys {', '.join(unknown)}; "
            f"the endpoint reads {', '.join(CONTEXT_KEYS)}"
        )
    method = str(context.get("method", "check"))
    batch = BY_COMMAND.get(method)
    if batch is None:
        known = ", ".join(sorted(BY_COMMAND))
        raise RequestError(f"userDefinedContext method must be one of {known}, not {method!r}")
    claim_scores = _flag(context.get("claim_scores"))
    if claim_scores and not batch.claim_score_options:
        raise RequestError(f"claim_scores is not an option of method {method!r}")
    api_version = context.get("api_version")
    if api_version is not None and api_version not in DISCOVERY_VERSIONS:
        raise RequestError(
            f"userDefinedContext api_version must be one of {', '.join(DISCOVERY_VERSIONS)}, "
            f"not {api_version!r}"
        )
    return CallOptions(
        batch, _threshold(context.get("citation_threshold")), claim_scores, api_version
    )


def _flag(text: object) -> bool:
    if text is None:
        return False
    value = str(text).strip().lower()
    if value in ("true", "1", "yes"):
        return True
    if value in ("false", "0", "no", ""):
        return False
    raise RequestError(f"userDefinedContext claim_scores must be true or false, not {text!r}")


def _threshold(text: object) -> float | None:
    if text is None or text == "":
        return None
    try:
        value = float(str(text))
    except ValueError:
        value = -1.0
    if not 0.0 <= value <= 1.0:
        raise RequestError(
            f"userDefinedContext citation_threshold must be a number from 0 to 1, not {text!r}"
        )
    return value


@dataclass(frozen=True)
class RemoteCall:
    """One HTTP request of BigQuery's: its id (for logs), its options and its rows' arguments."""

    request_id: str
    options: CallOptions
    calls: Sequence[Any]


def read_request(body: bytes) -> RemoteCall:
    """The request's JSON read; `RequestError` when it is not BigQuery's shape.

    Example:
        >>> call = read_request(b'{"requestId": "r1", "calls": [["Hi.", ["Hello."]]]}')
        >>> call.request_id, len(call.calls), call.options.batch.command
        ('r1', 1, 'check')
    """
    try:
        request = read_json(body)
    except ValueError as error:
        raise RequestError(f"the request body is not JSON: {error}") from None
    if not isinstance(request, dict):
        raise RequestError("the request body must be a JSON object with calls")
    calls = request.get("calls")
    if not isinstance(calls, list):
        raise RequestError("the request needs calls: a list of argument lists")
    options = read_options(request.get("userDefinedContext"))
    return RemoteCall(str(request.get("requestId", "")), options, calls)


def read_json(text: str | bytes) -> Any:
    """`text` parsed as JSON; ValueError when it is not, or nests deeper than MAX_JSON_DEPTH.

    Example:
        >>> read_json('[["a"]]')
        [['a']]
        >>> read_json("[" * 600 + "]" * 600)
        Traceback (most recent call last):
        ...
        ValueError: nested deeper than 512 levels
    """
    too_deep = ValueError(f"nested deeper than {MAX_JSON_DEPTH} levels")
    try:
        value = json.loads(text)
    except RecursionError:  # far deeper than the bound: the parser ran out of stack first
        raise too_deep from None
    # Breadth first, one level of containers at a time: no recursion, stops past the bound.
    level = [value]
    for _ in range(MAX_JSON_DEPTH):
        level = [
            inner
            for outer in level
            if isinstance(outer, (list, dict))
            for inner in (outer.values() if isinstance(outer, dict) else outer)
        ]
        if not level:
            return value
    if any(isinstance(item, (list, dict)) for item in level):
        raise too_deep
    return value


@dataclass(frozen=True)
class Row:
    """One call's arguments read as a batch item (the text under its RPC's first key)."""

    index: int
    text: str
    facts: list[Any]

    def item(self, batch: BatchSpec) -> dict[str, Any]:
        """The row as an item of the batch API, its index as its id."""
        return {batch.text_keys[0]: self.text, "facts": self.facts, "id": self.index}


def read_row(index: int, arguments: object) -> Row:
    """A call's `[answer, facts]` as a row; InvalidArgument for a row that is not one.

    `facts` is a JSON array (of texts, or of `{"text", "attributes"}` objects), a string
    holding one (how BigQuery sends a STRING argument), or null for none. An empty answer is
    refused when the batch plans its call, as in every surface (`groundwire.contract.validation`).

    Example:
        >>> read_row(0, ["Hi.", '["Hello.", {"text": "Hey.", "attributes": {"a": "b"}}]']).facts
        ['Hello.', {'text': 'Hey.', 'attributes': {'a': 'b'}}]
        >>> read_row(1, [None, []])
        Traceback (most recent call last):
        ...
        groundwire.contract.errors.InvalidArgument: INVALID_ARGUMENT: the answer is null
    """
    if not isinstance(arguments, list) or len(arguments) != 2:
        raise bad_request(
            [("arguments", "expected two arguments: the answer and the facts")],
            "a row needs two arguments: the answer and the facts",
        )
    text, facts = arguments
    if not isinstance(text, str):
        kind = "null" if text is None else type(text).__name__
        raise bad_request([("answer", f"expected text, got {kind}")], f"the answer is {kind}")
    if isinstance(facts, str):
        try:
            facts = read_json(facts)
        except ValueError as error:
            raise bad_request(
                [("facts", f"not a JSON array: {error}")], "the facts are not a JSON array"
            ) from None
    if facts is None:
        facts = []
    if not isinstance(facts, list):
        kind = type(facts).__name__
        raise bad_request([("facts", f"expected a JSON array, got {kind}")], "facts is no array")
    return Row(index, text, facts)


def needs_split(row: Row, api_version: str) -> bool:
    """Whether the row is past the API's limits, so that it is split and merged.

    A cheap look first (most rows are short); only a long one is planned.

    Example:
        >>> needs_split(Row(0, "Hi.", ["Hello."]), "v1")
        False
        >>> needs_split(Row(0, "Hi.", ["x" * 10_001]), "v1")
        True
    """
    if len(row.facts) > MAX_FACTS:
        return True
    for position, fact in enumerate(row.facts):
        try:
            if len(fact_parts(fact, position, "facts")[0]) > MAX_FACT_CHARACTERS:
                return True
        except GroundwireError:
            return False  # the batch reports the bad fact as the row's error
    if len(row.text) <= MAX_ANSWER_CHARACTERS_V1ALPHA:
        return False
    return plan_split(row.text, row.facts, api_version).calls > 1


def reply(batch: BatchSpec, outcome: BatchOutcome[Any]) -> dict[str, Any]:
    """A row's reply: its result's record (without the row's own text), or `{"error"}`.

    Example:
        >>> from groundwire.contract.errors import InvalidArgument
        >>> reply(BY_COMMAND["check"], BatchOutcome(0, None, InvalidArgument("no facts"), 0))
        {'error': {'code': 'INVALID_ARGUMENT', 'message': 'no facts'}}
    """
    if outcome.error is not None:
        return {"error": error_record(outcome.error)}
    record = batch.record(outcome.result)
    record.pop(batch.text_keys[0], None)  # the caller's table holds it already
    calls = getattr(outcome.result, "calls", None)
    if isinstance(calls, int):
        record["calls"] = calls
    return record


def still_transient(
    outcomes: Sequence[BatchOutcome[Any] | None], *, throttled: bool = False
) -> tuple[int, str] | None:
    """The retryable status and message when some row is still transient, else None.

    A row with no outcome (the time budget ran out first) or a retryable error (throttled,
    unavailable, out of time) must not be stored as an error: BigQuery sends the call again.
    429 when the service throttled (a row's error says so, or `throttled`: the batch waited
    because it did) and nothing else went wrong (rows left unfinished, or whose last attempt
    ran out of the call's time, included), 503 otherwise.

    Example:
        >>> from groundwire.contract.errors import ResourceExhausted
        >>> status, message = still_transient(
        ...     [BatchOutcome(0, None, ResourceExhausted("slow down"), 3), None]
        ... )
        >>> status, message.split(";")[0]
        (429, '2 of 2 rows still transient (NOT_DONE_IN_TIME: 1, RESOURCE_EXHAUSTED: 1)')
        >>> from groundwire.contract.errors import DeadlineExceeded
        >>> still_transient([BatchOutcome(0, None, ResourceExhausted("slow down"), 3),
        ...                  BatchOutcome(1, None, DeadlineExceeded("out of time"), 2)])[0]
        429
        >>> still_transient([None, BatchOutcome(1, "a result", None, 1)])[0]
        503
        >>> still_transient([None, BatchOutcome(1, "a result", None, 1)], throttled=True)[0]
        429
    """
    codes: dict[str, int] = {}
    for outcome in outcomes:
        if outcome is None:
            code = NOT_DONE
        elif outcome.error is not None and outcome.error.retryable:
            code = outcome.error.code.name
        else:
            continue
        codes[code] = codes.get(code, 0) + 1
    if not codes:
        return None
    throttled = (throttled or THROTTLED in codes) and set(codes) <= {
        THROTTLED,
        NOT_DONE,
        OUT_OF_TIME,
    }
    counted = ", ".join(f"{code}: {count}" for code, count in sorted(codes.items()))
    message = (
        f"{sum(codes.values())} of {len(outcomes)} rows still transient ({counted}); "
        "send the call again"
    )
    return (429 if throttled else 503), message


NOT_DONE = "NOT_DONE_IN_TIME"
THROTTLED = StatusCode.RESOURCE_EXHAUSTED.name
OUT_OF_TIME = StatusCode.DEADLINE_EXCEEDED.name


KEPT_ROWS = 10_000
"""The most rows' replies an endpoint process keeps for calls that BigQuery will send again."""


def row_key(options: CallOptions, api_version: str, arguments: object) -> bytes:
    """What identifies a row's reply: its arguments and every option that shapes the reply.

    Example:
        >>> options = read_options({})
        >>> row = ["Hi.", ["Hello."]]
        >>> row_key(options, "v1", row) == row_key(options, "v1", list(row))
        True
        >>> row_key(options, "v1", ["Hi.", []]) == row_key(options, "v1beta", ["Hi.", []])
        False
    """
    shape = [options.batch.rpc, options.citation_threshold, options.claim_scores, api_version]
    text = json.dumps([shape, arguments], sort_keys=True, separators=(",", ":"))
    return hashlib.blake2b(text.encode(), digest_size=16).digest()


class KeptReplies:
    """Replies of rows already done in a call answered 429/503, for when BigQuery sends it again.

    BigQuery resends the whole call; without these, every row would be checked (and billed)
    again, and a call that always has a throttled row left would never get through. Each
    resend now only runs the rows still missing. The replies stay in this process's memory,
    the oldest dropped past `limit`; a reply delivered in a 200 is forgotten.

    Example:
        >>> kept = KeptReplies(limit=1)
        >>> kept.keep(b"a", {"support_score": 1.0}); kept.keep(b"b", {"support_score": 0.5})
        >>> kept.get(b"a"), kept.get(b"b")
        (None, {'support_score': 0.5})
    """

    def __init__(self, limit: int = KEPT_ROWS) -> None:
        self.limit = limit
        self._replies: OrderedDict[bytes, dict[str, Any]] = OrderedDict()

    def get(self, key: bytes) -> dict[str, Any] | None:
        """The reply kept for a row, if any."""
        return self._replies.get(key)

    def keep(self, key: bytes, reply: dict[str, Any]) -> None:
        """Keeps a row's reply, dropping the oldest past the limit."""
        self._replies[key] = reply
        self._replies.move_to_end(key)
        while len(self._replies) > self.limit:
            self._replies.popitem(last=False)

    def forget(self, keys: Iterable[bytes]) -> None:
        """Drops the replies of rows that were delivered."""
        for key in keys:
            self._replies.pop(key, None)

    def __len__(self) -> int:
        return len(self._replies)


__all__ = [
    "CONTEXT_KEYS",
    "KEPT_ROWS",
    "MAX_JSON_DEPTH",
    "RETRYABLE_STATUSES",
    "CallOptions",
    "KeptReplies",
    "RemoteCall",
    "RequestError",
    "Row",
    "needs_split",
    "read_json",
    "read_options",
    "read_request",
    "read_row",
    "reply",
    "row_key",
    "still_transient",
]
