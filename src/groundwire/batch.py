"""The threads behind `GroundingClient.check_grounding_many`: bounded, ordered, adaptive.

Every decision (reading items, the window, the rate, when the endpoint is dead) is
`groundwire.core.batch`'s; this module only waits. The batch does the retries itself: each
attempt is one call made with `retry=None`, so it sees every attempt's outcome and adapts
its concurrency to them. Interceptors therefore see each attempt as a call of its own.
"""

from __future__ import annotations

import collections
import os
import random
import threading
import time
import urllib.parse
from collections.abc import Callable, Iterable, Mapping
from concurrent import futures
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from groundwire._base import CLIENT_RETRY, ClientBase, RetryArgument
from groundwire.core import calls
from groundwire.core.batch import (
    BatchOutcome,
    BatchSettings,
    BatchState,
    Planned,
    Rpc,
    item_id,
    plan_item,
)
from groundwire.core.endpoints import is_loopback, is_loopback_target
from groundwire.core.errors import GroundwireError, Unavailable
from groundwire.core.metadata import MetadataLike
from groundwire.core.retry import Retrying

if TYPE_CHECKING:
    from groundwire.client import GroundingClient

__all__ = ["Batch", "BatchOutcome", "cannot_reach", "dead_endpoint", "run_many", "settings_for"]

ResultT = TypeVar("ResultT")

SendAttempt = Callable[[calls.Call[Any], float, "MetadataLike | None"], Any]
"""Sends one attempt of a planned call with a timeout and metadata; returns its result."""


def dead_endpoint(where: str, failures: int, last: GroundwireError) -> Unavailable:
    """The error a batch raises when its endpoint made no connection `failures` times in a row.

    Example:
        >>> from groundwire.core.errors import Unavailable
        >>> str(dead_endpoint("127.0.0.1:1", 8, Unavailable("refused")))[:45]
        'UNAVAILABLE: cannot reach 127.0.0.1:1; is `gr'
    """
    return cannot_reach(
        where, f"{failures} attempts in a row made no connection; the last: {last.message}"
    )


def cannot_reach(where: str, detail: str) -> Unavailable:
    """The error for an endpoint that takes no connection: it names it and what to check.

    On loopback the hint is to start the emulator (or, for an https:// URL, to speak plain
    HTTP to it, as the emulator does); elsewhere, to check the endpoint and the network.
    The command line shows the same error when a single call cannot connect.

    Example:
        >>> str(cannot_reach("http://127.0.0.1:8080", "refused"))
        'UNAVAILABLE: cannot reach http://127.0.0.1:8080; is `groundwire serve` running? (refused)'
        >>> str(cannot_reach("https://127.0.0.1:8080", "wrong version number")).split("; ")[1]
        '`groundwire serve` speaks plain HTTP: for the emulator use http://127.0.0.1:8080 (...)'
    """
    if _on_loopback(where) and where.lower().startswith("https://"):
        plain = "http://" + where[len("https://") :]
        hint = f"`groundwire serve` speaks plain HTTP: for the emulator use {plain}"
    elif _on_loopback(where):
        hint = "is `groundwire serve` running?"
    else:
        hint = "check the endpoint and the network"
    return Unavailable(f"cannot reach {where}; {hint} ({detail})")


def _on_loopback(where: str) -> bool:
    if "://" in where:
        return is_loopback(urllib.parse.urlsplit(where).hostname or "")
    return is_loopback_target(where)


def endpoint_of(endpoint: str | None, rest_endpoint: str | None, transport: str = "auto") -> str:
    """The endpoint a batch names when it cannot reach it: the one it uses, else the service.

    Example:
        >>> endpoint_of("127.0.0.1:50051", "http://127.0.0.1:8080", "rest")
        'http://127.0.0.1:8080'
    """
    grpc_target = endpoint or os.environ.get("GROUNDWIRE_EMULATOR_HOST")
    rest_url = rest_endpoint or os.environ.get("GROUNDWIRE_EMULATOR_REST")
    first, second = (rest_url, grpc_target) if transport == "rest" else (grpc_target, rest_url)
    return first or second or "the service"


class _Stopped(Exception):
    """Raised inside a worker when the batch has ended (closed, or its endpoint dead)."""


class Batch(Generic[ResultT]):
    """The outcomes of a batch, one per input, in input order; iterate over it once.

    It reads its input lazily, holding at most twice `concurrency` inputs and outcomes at
    once. `concurrency` is the current window (lowered while the server throttles, raised
    again while calls succeed); `throttled_seconds` is the time items waited before retries
    the server asked for by throttling. Iterating raises `Unavailable` when the endpoint
    made no connection `max_connection_failures` times in a row. `close()` (or leaving a
    `with` block) stops the batch: no item starts after it.
    """

    def __init__(
        self,
        items: Iterable[object],
        plan: Callable[[object], Planned],
        send: SendAttempt,
        settings: BatchSettings,
        where: str,
    ) -> None:
        self._stopped = threading.Event()
        self._items = iter(items)
        self._plan = plan
        self._send = send
        self._settings = settings
        self._where = where
        self._state = BatchState(settings)
        self._changed = threading.Condition()
        self._pool = futures.ThreadPoolExecutor(
            settings.concurrency, thread_name_prefix="groundwire-batch"
        )
        self._pending: collections.deque[futures.Future[BatchOutcome[ResultT]]] = (
            collections.deque()
        )
        self._next_index = 0
        self._exhausted = False
        self._random = random.Random()  # its uniform() is safe to share between threads

    @property
    def concurrency(self) -> int:
        """How many items may be in progress at once right now (the adaptive window)."""
        with self._changed:
            return self._state.throttle.concurrency

    @property
    def throttled_seconds(self) -> float:
        """Seconds items waited, summed, before retrying a RESOURCE_EXHAUSTED (429)."""
        with self._changed:
            return self._state.throttled_seconds

    def __iter__(self) -> Batch[ResultT]:
        return self

    def __next__(self) -> BatchOutcome[ResultT]:
        self._read_ahead()
        if not self._pending:
            self.close()
            raise StopIteration
        head = self._pending.popleft()
        try:
            return head.result()
        except _Stopped:
            self.close()
            if self._state.dead is not None:
                raise self._state.dead from None
            raise StopIteration from None

    def _read_ahead(self) -> None:
        """Submits inputs until `read_ahead` are pending or the input ends."""
        while not self._exhausted and len(self._pending) < self._settings.read_ahead:
            if self._stopped.is_set():
                return
            try:
                item = next(self._items)
            except StopIteration:
                self._exhausted = True
                return
            self._pending.append(self._pool.submit(self._do, self._next_index, item))
            self._next_index += 1

    def close(self) -> None:
        """Stops the batch: items not started are dropped, waits end; in-flight attempts end."""
        self._stopped.set()
        with self._changed:
            self._changed.notify_all()
        self._pool.shutdown(wait=True, cancel_futures=True)
        self._pending.clear()

    def __enter__(self) -> Batch[ResultT]:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def __del__(self) -> None:
        self._stopped.set()

    # -- one item, in a worker thread ------------------------------------------------------

    def _do(self, index: int, item: object) -> BatchOutcome[ResultT]:
        try:
            planned = self._plan(item)
        except GroundwireError as error:
            return BatchOutcome(index, None, error, 0, item_id(item))
        with self._changed:
            while not self._state.may_start():
                self._check_running()
                self._changed.wait()
            self._check_running()
            wait = self._state.start(time.monotonic())
        try:
            self._sleep(wait)
            return self._attempts(index, planned)
        finally:
            with self._changed:
                self._state.finish()
                self._changed.notify_all()

    def _attempts(self, index: int, planned: Planned) -> BatchOutcome[ResultT]:
        settings = self._settings
        retrying = Retrying(settings.retry, settings.timeout, self._random)
        while True:
            started = time.monotonic()
            try:
                result = self._send(planned.call, retrying.attempt_timeout(), settings.metadata)
            except GroundwireError as error:
                self._attempted(error, started)
                delay = retrying.after_failure(error)
                if delay is None:
                    return BatchOutcome(index, None, error, retrying.attempts, planned.id)
                with self._changed:
                    self._state.waited(error, delay)
                self._sleep(delay)
                with self._changed:
                    pace = self._state.pace(time.monotonic())
                self._sleep(pace)
            else:
                self._attempted(None, started)
                return BatchOutcome(index, result, None, retrying.attempts, planned.id)

    def _attempted(self, error: GroundwireError | None, started: float) -> None:
        connected = error is None or error.connected
        with self._changed:
            dead = self._state.attempted(
                error, connected=connected, started_at=started, now=time.monotonic()
            )
            if dead and self._state.dead is None and error is not None:
                self._state.dead = dead_endpoint(
                    self._where, self._state.watch.consecutive_failures, error
                )
                self._stopped.set()
            self._changed.notify_all()
        self._check_running()

    def _check_running(self) -> None:
        if self._stopped.is_set():
            raise _Stopped

    def _sleep(self, seconds: float) -> None:
        if seconds > 0 and self._stopped.wait(seconds):
            raise _Stopped


def settings_for(
    client: ClientBase,
    *,
    concurrency: int,
    rate: float | None,
    timeout: float | None,
    metadata: MetadataLike | None,
    retry: RetryArgument,
    max_connection_failures: int | None,
) -> BatchSettings:
    """The settings of a batch on `client`: its arguments, the client's where they are left out."""
    return BatchSettings(
        concurrency=concurrency,
        rate=rate,
        retry=client._settings.retry if retry is CLIENT_RETRY else retry,
        timeout=client._settings.timeout if timeout is None else timeout,
        metadata=metadata,
        max_connection_failures=max_connection_failures,
    )


def where_of(client: ClientBase) -> str:
    """The endpoint a batch on `client` names when it cannot reach it."""
    settings = client._settings
    return endpoint_of(settings.endpoint, settings.rest_endpoint, settings.transport)


def run_many(
    client: GroundingClient,
    rpc: Rpc,
    requests: Iterable[object],
    settings: BatchSettings,
    defaults: Mapping[str, Any],
) -> Batch[Any]:
    """A `Batch` of `rpc` calls on a `GroundingClient`: what its `*_many` methods return."""
    config = client._config

    def plan(item: object) -> Planned:
        return plan_item(config, rpc, item, defaults)

    def send(call: calls.Call[Any], timeout: float, metadata: MetadataLike | None) -> Any:
        return client._run(call, timeout, metadata, None)

    return Batch(requests, plan, send, settings, where_of(client))
