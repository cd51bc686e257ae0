"""The attempts of one call, decided once: every client and batch only drives this plan.

`Attempts` decides timeouts, retries, waits and what interceptors are told; a driver holds
only the waiting, in the shape of this example:

>>> import random
>>> from groundwire.wire.error_codecs import error_from_status
>>> from groundwire.contract.retry import RetryPolicy
>>> attempts = Attempts(RetryPolicy(initial=0.5, maximum=0.5), 30.0, random.Random(1),
...                     NO_ONE, lambda *logged: None, clock=lambda: 0.0)
>>> answers = iter([error_from_status(14, "busy"), "the answer"])
>>> with attempts:
...     while True:
...         timeout = attempts.start("a transport")
...         try:
...             answer = next(answers)
...             if isinstance(answer, Exception):
...                 raise answer
...             response = attempts.got(answer)
...             break
...         except GroundwireError as error:
...             waited = attempts.wait_after(error)  # a driver sleeps this long
>>> response, attempts.attempts, timeout, 0.0 <= waited <= 0.5
('the answer', 2, 30.0, True)
"""

from __future__ import annotations

import time
from collections.abc import Callable
from types import TracebackType
from typing import Any, Protocol, TypeVar

from groundwire.contract.errors import GroundwireError
from groundwire.contract.retry import Deadline, Jitter, RetryPolicy, next_delay

ResponseT = TypeVar("ResponseT")
Metadata = tuple[tuple[str, str], ...]
Explain = Callable[[GroundwireError, Any], GroundwireError]
RetryLog = Callable[[Any, int, GroundwireError, float], None]
"""Told of each retry: (the method, the attempt that failed, its error, the wait)."""


class Events(Protocol):
    """What is told of a call's attempts (`RunningCall`, or no one); the hooks do nothing here."""

    @property
    def metadata(self) -> Metadata:
        """The metadata every attempt sends (the call's, and what interceptors added)."""
        ...

    def attempt_started(self, transport: Any) -> None:
        """An attempt starts over `transport`."""
        return None

    def attempt_ended(self, error: GroundwireError | None, responses: int | None = None) -> None:
        """The attempt ended with `error` (None: success), having delivered `responses`."""
        return None

    def finish(
        self, response: Any, failure: BaseException | None = None, received: int = 0
    ) -> None:
        """The call ended, with its (last) response or the failure the caller gets."""
        return None


class Unobserved(Events):
    """The events of a call no interceptor sees: no metadata of their own, hooks that do nothing."""

    metadata: Metadata = ()


NO_ONE = Unobserved()
"""The events of every call no interceptor sees: it sends the call's own metadata."""


class Attempts:
    """The plan of one call: its deadline, its attempts' timeouts, the waits, what is told.

    Wrap the whole call in it (`with`), so the events hear how it ended. Per attempt: `send`
    or `stream`, then `got` per response, or `wait_after` the error (raises it if no retry).
    A stream is not retried once it delivered a response, nor if its requests are live.

    Example:
        >>> import random
        >>> from groundwire.wire.error_codecs import error_from_status
        >>> plan = Attempts(RetryPolicy(), 30.0, random.Random(1), NO_ONE, unlogged,
        ...                 clock=lambda: 0.0)
        >>> 0.0 <= plan.after_failure(error_from_status(14, "busy")) <= 0.1
        True
        >>> plan.after_failure(error_from_status(14, "busy"), response_received=True)
    """

    __slots__ = (
        "_clock",
        "_expires_at",
        "attempts",
        "call",
        "events",
        "explain",
        "last",
        "log",
        "policy",
        "received",
        "rng",
    )

    def __init__(
        self,
        policy: RetryPolicy | None,
        timeout: float,
        rng: Jitter,
        events: Events,
        log: RetryLog,
        call: Any = None,
        explain: Explain | None = None,
        *,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        """A call's plan: its deadline `timeout` from now (or the policy's, when smaller).

        `events` are told of each attempt; `call` is what the attempts send
        (`groundwire.contract.calls.Call` or `StreamCall`); `explain` rewrites the error the
        caller gets, given it and the unary request (None: keeps it).
        """
        # A float, not a Deadline: most calls succeed at once and never weigh a retry.
        if policy is not None and policy.timeout < timeout:
            timeout = policy.timeout
        self._expires_at = clock() + timeout
        self._clock = clock
        self.policy = policy
        self.rng = rng
        self.events = events
        self.log = log
        self.call = call
        self.explain = explain
        self.attempts = self.received = 0
        self.last: Any = None

    @property
    def deadline(self) -> Deadline:
        """The call's overall deadline."""
        return Deadline(self._expires_at, self._clock)

    @property
    def method(self) -> Any:
        """The method the call sends (None: no call given)."""
        return getattr(self.call, "method", None)

    @property
    def interactive(self) -> bool:
        """Whether the call streams live requests, which cannot be produced again."""
        return getattr(self.call, "interactive", False)

    def start(self, transport: Any) -> float:
        """Starts an attempt over `transport`; returns its timeout, cut from the deadline."""
        self.received = 0
        if self.events is not NO_ONE:
            self.events.attempt_started(transport)
        self.attempts += 1
        remaining = self._expires_at - self._clock()
        return remaining if remaining > 0.0 else 0.0

    def send(self, transport: Any) -> Any:
        """Starts an attempt of the unary `call` over `transport`: its response (or awaitable)."""
        call = self.call
        timeout = self.start(transport)
        # What interceptors add extends the call's metadata: none added, none there.
        metadata = self.events.metadata or call.metadata
        return transport.unary(call.method, call.request, timeout=timeout, metadata=metadata)

    def stream(self, transport: Any) -> Any:
        """Starts an attempt of the streaming `call`: its responses' (async) iterator."""
        call = self.call
        timeout = self.start(transport)
        metadata = self.events.metadata or call.metadata
        return transport.stream(call.method, call.requests, timeout=timeout, metadata=metadata)

    def got(self, response: ResponseT) -> ResponseT:
        """Notes a response of the current attempt; returns it."""
        self.received += 1
        self.last = response
        return response

    def after_failure(
        self,
        error: GroundwireError,
        *,
        response_received: bool = False,
        requests_consumed: bool = False,
    ) -> float | None:
        """Seconds to wait before the next attempt, or None to raise `error`.

        A stream is not retried once a response has arrived, nor once it consumed requests
        that cannot be produced again (a live iterator).
        """
        if self.policy is None or response_received or requests_consumed:
            return None
        return next_delay(self.policy, self.attempts, error, self.deadline, self.rng)

    def retry_after(self, error: GroundwireError) -> float | None:
        """The seconds to wait after an attempt failed with `error`; None: no retry."""
        self.events.attempt_ended(error, self.received)
        delay = self.after_failure(
            error, response_received=self.received > 0, requests_consumed=self.interactive
        )
        if delay is not None:
            self.log(self.method, self.attempts, error, delay)
        return delay

    def wait_after(self, error: GroundwireError) -> float:
        """`retry_after`, raising `error` when there is no retry."""
        delay = self.retry_after(error)
        if delay is None:
            raise error
        return delay

    def __enter__(self) -> Attempts:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        failure: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        events = self.events
        if failure is None:
            if events is not NO_ONE:
                events.attempt_ended(None, self.received)
                events.finish(self.last)
            return
        events.finish(self.last, failure, self.received)
        if self.explain is not None and isinstance(failure, GroundwireError):
            request = getattr(self.call, "request", None)
            raise self.explain(failure, request) from failure.__cause__


def unlogged(method: Any, attempt: int, error: GroundwireError, delay: float) -> None:
    """Logs nothing: the retry log of a plan no one is told of (a batch item's own retries)."""
