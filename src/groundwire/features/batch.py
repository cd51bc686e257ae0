"""What a batch decides without I/O: its items read as calls, its outcomes, its pacing state.

The sync and async engines (`groundwire.features.batch_threads`,
`groundwire.features.batch_tasks`) only wait.
"""

from __future__ import annotations

import collections
import math
import random
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from google.protobuf import message

from groundwire.contract import calls
from groundwire.contract.attempts import NO_ONE, Attempts, unlogged
from groundwire.contract.errors import (
    ConfigurationError,
    GroundwireError,
    StatusCode,
    bad_request,
    error_type_for,
)
from groundwire.contract.metadata import MetadataLike
from groundwire.contract.retry import Jitter, RetryPolicy
from groundwire.contract.spec import SPECS
from groundwire.features.batch_spec import BATCHABLE
from groundwire.features.pacing import (
    ReachabilityWatch,
    Throttle,
    TokenBucket,
    cannot_reach,
    check_concurrency,
)

ResultT = TypeVar("ResultT")
Rpc = str
"""The name of a batchable RPC: one with a batch spec (`batch_spec.BATCHABLE`)."""

DEFAULT_CONCURRENCY = 16
DEFAULT_MAX_CONNECTION_FAILURES = 8


@dataclass(frozen=True, slots=True)
class BatchOutcome(Generic[ResultT]):
    """What became of one input of a batch.

    `index` is the input's 0-based position; exactly one of `result` and `error` is set.
    `attempts` counts the calls sent for it (0 when the input was refused before sending);
    `id` is the item's `"id"`, when it gave one.

    Example:
        >>> BatchOutcome(0, "a result", None, 1).ok
        True
    """

    index: int
    result: ResultT | None
    error: GroundwireError | None
    attempts: int
    id: object = None

    @property
    def ok(self) -> bool:
        """Whether the input got a result."""
        return self.error is None


def batch_failure(outcomes: Sequence[BatchOutcome[Any]]) -> GroundwireError | None:
    """The error to raise for a whole batch, when it failed as a whole and may succeed later.

    That is when no element got a result and every element that was sent (`attempts > 0`)
    ended in a retryable error (UNAVAILABLE, DEADLINE_EXCEEDED, RESOURCE_EXHAUSTED) once the
    library's own retries ran out: the service is down or overloaded, so Beam retries the
    batch with back-off. Otherwise None: each element keeps its own outcome, and a permanent
    error (an invalid element) never fails its batch-mates.

    Example:
        >>> from groundwire.contract.errors import InvalidArgument, Unavailable
        >>> down = [BatchOutcome(0, None, Unavailable("down"), 3),
        ...         BatchOutcome(1, None, InvalidArgument("bad"), 0)]
        >>> str(batch_failure(down))
        'UNAVAILABLE: all 1 sent elements of a batch of 2 failed; the last: down'
        >>> batch_failure(down + [BatchOutcome(2, "a result", None, 1)]) is None
        True
    """
    sent = [outcome for outcome in outcomes if outcome.attempts > 0]
    errors = [outcome.error for outcome in sent if outcome.error is not None]
    if not sent or len(errors) < len(sent) or not all(error.retryable for error in errors):
        return None
    last = errors[-1]
    return error_type_for(last.code)(
        f"all {len(sent)} sent elements of a batch of {len(outcomes)} failed; "
        f"the last: {last.message}",
        retry_delay=last.retry_delay,
    )


@dataclass(frozen=True, slots=True)
class BatchSettings:
    """How a batch runs: its bounds, its retries and the call options every item shares.

    `retry` None means one attempt per item; `timeout` is each item's deadline, retries included.

    Example:
        >>> BatchSettings(concurrency=4, rate=None, retry=None, timeout=60.0).read_ahead
        8
    """

    concurrency: int
    rate: float | None
    retry: RetryPolicy | None
    timeout: float
    metadata: MetadataLike | None = None
    max_connection_failures: int | None = DEFAULT_MAX_CONNECTION_FAILURES

    def __post_init__(self) -> None:
        check_concurrency(self.concurrency)
        if self.rate is not None and not 0 < self.rate < math.inf:
            raise ConfigurationError(
                f"rate must be a positive number per second or None, not {self.rate!r}"
            )
        if not self.timeout > 0:
            raise ConfigurationError(f"timeout must be positive (seconds), not {self.timeout!r}")

    @property
    def read_ahead(self) -> int:
        """How many inputs (and their outcomes) a batch holds at most: twice its concurrency."""
        return 2 * self.concurrency


@dataclass(frozen=True, slots=True)
class Planned:
    """One item read as a call ready to send, with its id."""

    call: calls.Call[Any]
    id: object


@dataclass(frozen=True, slots=True)
class Many(Generic[ResultT]):
    """A batch ready to run: its items, how each is read as a call, its settings, its endpoint."""

    items: Any
    plan: Callable[[object], Planned]
    settings: BatchSettings
    where: str


def plan_item(
    config: calls.ClientConfig, rpc: Rpc, item: object, defaults: Mapping[str, Any]
) -> Planned:
    """Reads one batch item as a call; an `InvalidArgument` when it is not one.

    An item is a request message, or a mapping of the method's arguments: the text (under one
    of `batch.text_keys`), `facts`, the builder's options and an optional `id`. `defaults` are
    options for items that give none.

    Example:
        >>> planned = plan_item(calls.ClientConfig("p"), "CheckGrounding",
        ...                     {"answer": "Hi.", "facts": ["Hello."], "id": 7}, {})
        >>> planned.id, planned.call.request.answer_candidate
        (7, 'Hi.')
    """
    try:
        if isinstance(item, message.Message):
            return Planned(calls.unary(config, rpc, item), None)
        if not isinstance(item, Mapping):
            kind = type(item).__name__
            raise bad_request(
                [("item", f"expected a request message or a mapping, got {kind}")],
                f"a batch item must be a request or a mapping of arguments, not {kind}",
            )
        text, facts, options, item_id = _arguments(rpc, item)
        for name, value in defaults.items():
            if value is not None and options.get(name) is None:
                options[name] = value
        return Planned(calls.unary(config, rpc, text, facts=facts, **options), item_id)
    except GroundwireError:
        raise
    except (TypeError, ValueError, OverflowError) as error:  # no request could be built of it
        raise bad_request([("item", str(error))], f"invalid batch item: {error}") from None


def _arguments(
    rpc: Rpc, item: Mapping[Any, Any]
) -> tuple[object, Iterable[Any], dict[str, Any], object]:
    """The text, facts, options and id of a mapping item; InvalidArgument naming a bad key."""
    spec = SPECS[rpc]
    text_keys = BATCHABLE[rpc].text_keys
    option_keys = spec.option_defaults.keys() - {"facts"}  # the builder's options
    allowed = {*text_keys, "facts", "id", *option_keys}
    unknown = sorted(str(key) for key in item if key not in allowed)
    if unknown:
        raise bad_request(
            [(key, "not an argument of this method") for key in unknown],
            f"unknown batch item keys {', '.join(unknown)}; expected some of "
            f"{', '.join(sorted(allowed))}",
        )
    given = [key for key in text_keys if item.get(key) is not None]
    if not given:
        raise bad_request(
            [(text_keys[0], "required")], f"a batch item needs {' or '.join(text_keys)}"
        )
    if len(given) > 1 and len({repr(item[key]) for key in given}) > 1:
        raise bad_request(
            [(key, "given twice under synonyms, with different values") for key in given],
            f"{' and '.join(given)} are synonyms; give one of them",
        )
    text = item[given[0]]
    if not isinstance(text, str):
        raise bad_request(
            [(given[0], f"expected text, got {type(text).__name__}")],
            f"{given[0]} must be text, not {type(text).__name__}",
        )
    facts = item.get("facts", ())
    if isinstance(facts, str) or not isinstance(facts, Iterable):
        raise bad_request(
            [("facts", "expected a list of facts")], "facts must be a list, not a single text"
        )
    options = {key: item[key] for key in option_keys if key in item}
    return text, list(facts), options, item.get("id")


class BatchState:
    """The shared state of a running batch: its window, rate, reachability and throttled time.

    An engine waits for `may_start`, then `start`s an item; its own lock lets threads and an
    event loop alike share it.
    """

    def __init__(
        self,
        settings: BatchSettings,
        where: str = "the endpoint",
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.settings = settings
        self.where = where
        self.clock = clock
        self.throttle = Throttle(settings.concurrency)
        self.watch = ReachabilityWatch(settings.max_connection_failures)
        self.bucket = None if settings.rate is None else TokenBucket(settings.rate)
        self.active = 0
        self.throttled_seconds = 0.0
        self.dead: GroundwireError | None = None
        """The batch's end when its endpoint made no connection too many times in a row."""
        self.lock = threading.Lock()

    def may_start(self) -> bool:
        """Whether an item may take a slot now: fewer in progress than the window allows."""
        return self.active < self.throttle.concurrency

    def start(self, now: float) -> float:
        """Takes a slot for an item; returns the seconds its first attempt waits for the rate."""
        with self.lock:
            self.active += 1
        return self.pace(now)

    def pace(self, now: float) -> float:
        """The seconds the next attempt waits for the token bucket (0 without a rate)."""
        if self.bucket is None:
            return 0.0
        with self.lock:
            return self.bucket.reserve(now)

    def finish(self) -> None:
        """Gives an item's slot back."""
        with self.lock:
            self.active -= 1

    def attempted(
        self, error: GroundwireError | None, *, connected: bool, started_at: float, now: float
    ) -> bool:
        """Records one attempt's end; True (and `dead` set) when it showed the endpoint dead."""
        with self.lock:
            if self.watch.attempted(connected=connected):
                if self.dead is None and error is not None:
                    failures = self.watch.consecutive_failures
                    detail = f"{failures} attempts in a row made no connection"
                    self.dead = cannot_reach(self.where, f"{detail}; the last: {error.message}")
                return True
            if error is None:
                self.throttle.succeeded()
            elif error.code == StatusCode.RESOURCE_EXHAUSTED and not error.permanent:
                self.throttle.throttled(started_at, now)
            return False

    def waited(self, error: GroundwireError, seconds: float) -> None:
        """Records a back-off wait after `error`; a throttled one counts as throttled time."""
        if error.code == StatusCode.RESOURCE_EXHAUSTED:
            with self.lock:
                self.throttled_seconds += seconds


class ItemAttempts(Attempts):
    """One batch item's attempts: a call's plan, paced by the batch and watched for a dead end.

    `begin` gives an attempt's timeout; then `succeeded` gives the outcome, `failed` the
    outcome or the back-off wait, after which `pace` is the wait the rate asks for.
    """

    __slots__ = ("index", "planned", "started", "state")

    def __init__(self, state: BatchState, index: int, planned: Planned, rng: Jitter) -> None:
        settings = state.settings
        Attempts.__init__(
            self, settings.retry, settings.timeout, rng, NO_ONE, unlogged, clock=state.clock
        )
        self.state = state
        self.index = index
        self.planned = planned
        self.started = 0.0

    def begin(self) -> float:
        """Starts an attempt; returns its timeout, cut from the item's deadline."""
        self.started = self._clock()
        return self.start(None)

    def succeeded(self, result: Any) -> BatchOutcome[Any]:
        """The item's outcome after an attempt that gave `result`."""
        self.state.attempted(None, connected=True, started_at=self.started, now=self._clock())
        return BatchOutcome(self.index, result, None, self.attempts, self.planned.id)

    def failed(self, error: GroundwireError) -> float | BatchOutcome[Any]:
        """After an attempt failed with `error`: the wait before the next, or the outcome."""
        now = self._clock()
        self.state.attempted(error, connected=error.connected, started_at=self.started, now=now)
        delay = self.retry_after(error)
        if delay is None:
            return BatchOutcome(self.index, None, error, self.attempts, self.planned.id)
        self.state.waited(error, delay)
        return delay

    def pace(self) -> float:
        """After the back-off wait: the wait the batch's rate asks for before the next attempt."""
        return self.state.pace(self._clock())


class Stopped(Exception):
    """Raised inside an item's worker or task when its batch has ended (closed, or dead)."""


class Engine(Generic[ResultT]):
    """What the sync and async batch engines share: the state of one running batch.

    `send` sends one attempt of an item's call; `_pending` holds the items' futures or tasks.
    """

    def __init__(self, many: Many[ResultT], send: Callable[..., Any]) -> None:
        self._many = many
        self._send = send
        self._state = BatchState(many.settings, many.where)
        self._pending: collections.deque[Any] = collections.deque()
        self._next_index = 0
        self._exhausted = False
        self._random = random.Random()  # its uniform() is safe to share between threads

    @property
    def concurrency(self) -> int:
        """How many items may be in progress at once right now (the adaptive window)."""
        return self._state.throttle.concurrency

    @property
    def throttled_seconds(self) -> float:
        """Seconds items waited, summed, before retrying a RESOURCE_EXHAUSTED (429)."""
        return self._state.throttled_seconds

    def _reading(self) -> bool:
        """Whether to read another input now: fewer than `read_ahead` pending, input left."""
        return not self._exhausted and len(self._pending) < self._many.settings.read_ahead

    def _item(self, index: int, item: object) -> ItemAttempts | BatchOutcome[Any]:
        """Input `index`'s attempts, or its outcome when it is not a call (InvalidArgument)."""
        try:
            planned = self._many.plan(item)
        except GroundwireError as error:
            item_id = item.get("id") if isinstance(item, Mapping) else None
            return BatchOutcome(index, None, error, 0, item_id)
        return ItemAttempts(self._state, index, planned, self._random)
