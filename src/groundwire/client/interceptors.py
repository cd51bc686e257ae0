"""The one extension point of both clients: interceptors that see every call and each attempt.

`Interceptor.start(call)` returns a `CallObserver` (or None); its `metadata()` is sent with
every attempt, `on_attempt` runs after each attempt and `on_finish` once, in reverse order of
start. Every hook has a default (guide: docs/operators.md):

>>> class Tenant(Interceptor):
...     def start(self, call: CallInfo) -> CallObserver:
...         return StaticMetadata((("x-tenant", "blue"),))
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, Protocol

from google.protobuf.message import Message

from groundwire.contract.apis import Method
from groundwire.contract.attempts import NO_ONE, Events
from groundwire.contract.errors import Cancelled, GroundwireError, Unknown
from groundwire.transports.base import over_rest

if TYPE_CHECKING:
    from groundwire.contract.calls import StreamCall

TransportKind = Literal["grpc", "rest"]
Metadata = tuple[tuple[str, str], ...]


@dataclass(frozen=True, slots=True)
class CallInfo:
    """One call as interceptors see it: the RPC, the request and the metadata to send.

    `request` is the unary request, or the first request of a stream given as a list (None
    for a live stream, whose requests are produced while it runs).
    """

    method: Method
    request: Message | None
    metadata: Metadata
    streaming: bool

    @property
    def procedure(self) -> str:
        """The full RPC name, `package.Service/Method`, as gRPC and OpenTelemetry spell it."""
        return self.method.grpc_path[1:]

    @property
    def service(self) -> str:
        """The full service name: the part of `procedure` before the slash."""
        return self.procedure.rpartition("/")[0]


@dataclass(frozen=True, slots=True)
class Attempt:
    """One attempt of a call, once it has ended.

    `server` is where it went: the gRPC target (`host:port`) or the REST base URL. `error` is
    None when the attempt succeeded; `responses` counts the responses it delivered.
    """

    call: CallInfo
    number: int
    transport: TransportKind
    fell_back: bool
    server: str
    duration: float
    error: GroundwireError | None
    responses: int


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a call ended: its response (a stream's last one) or the error the caller gets.

    `attempts` is 0 when the call failed before sending; `fell_back` says whether any attempt
    went over REST; `duration` is the whole call's, retries included.
    """

    call: CallInfo
    response: Message | None
    error: GroundwireError | None
    attempts: int
    last_attempt: Attempt | None
    fell_back: bool
    duration: float
    responses: int


class CallObserver(Protocol):
    """What an interceptor keeps for one call; every hook has a default that does nothing."""

    def metadata(self) -> Metadata:
        """Extra metadata (lowercase names) to send with every attempt of the call."""
        return ()

    def on_attempt(self, attempt: Attempt) -> None:
        """Called after each attempt, successful or not."""
        return None

    def on_finish(self, outcome: Outcome) -> None:
        """Called once when the call ends, with its response or its error."""
        return None


class Interceptor(Protocol):
    """An extension of both clients: sees each call start and returns its `CallObserver`."""

    def start(self, call: CallInfo) -> CallObserver | None:
        """Called as a call starts; returns the call's observer, or None to leave it alone."""
        return None


class StaticMetadata(CallObserver):
    """An observer that only adds the same metadata to every call.

    Example:
        >>> StaticMetadata((("x-tenant", "blue"),)).metadata()
        (('x-tenant', 'blue'),)
    """

    __slots__ = ("_metadata",)

    def __init__(self, metadata: Metadata) -> None:
        self._metadata = metadata

    def metadata(self) -> Metadata:
        """The metadata given at construction."""
        return self._metadata


class Chain:
    """The interceptors of one client, composed once; `start` runs one call through them."""

    __slots__ = ("_interceptors",)

    def __init__(self, interceptors: Sequence[Interceptor]) -> None:
        self._interceptors = tuple(interceptors)

    def start(
        self, method: Method, request: Message | None, metadata: Metadata, *, streaming: bool
    ) -> Events:
        """Starts a call: each interceptor sees it, with what the previous ones added."""
        if not self._interceptors:
            return NO_ONE
        call = CallInfo(method, request, metadata, streaming)
        observers: list[CallObserver] = []
        try:
            for interceptor in self._interceptors:
                observer = interceptor.start(call)
                if observer is None:
                    continue
                observers.append(observer)
                extra = observer.metadata()
                if extra:
                    call = CallInfo(method, request, call.metadata + tuple(extra), streaming)
        except BaseException as failure:
            # Those already started see the call end (their spans close).
            RunningCall(call, tuple(observers)).finish(None, failure)
            raise
        return RunningCall(call, tuple(observers))


class RunningCall:
    """One intercepted call in flight: the clients' call loops report each attempt to it."""

    __slots__ = (
        "_attempt_started",
        "_last_attempt",
        "_observers",
        "_open",
        "_started",
        "_transport",
        "attempts",
        "call",
        "fell_back",
        "responses",
    )

    def __init__(self, call: CallInfo, observers: tuple[CallObserver, ...]) -> None:
        self.call = call
        self._observers = observers
        self._started = self._attempt_started = time.monotonic()
        self._transport: Any = None
        self._open = False
        self._last_attempt: Attempt | None = None
        self.attempts = 0
        self.fell_back = False
        self.responses = 0

    @property
    def metadata(self) -> Metadata:
        """The metadata every attempt sends: the call's, plus what interceptors added."""
        return self.call.metadata

    def attempt_started(self, transport: Any) -> None:
        """Notes that an attempt starts over `transport` (gRPC, REST or auto)."""
        over_rest.set(False)
        self._transport = transport
        self.attempts += 1
        self._open = True
        self._attempt_started = time.monotonic()

    def attempt_ended(self, error: GroundwireError | None, responses: int | None = None) -> None:
        """Reports the attempt that just ended (default `responses`: 1, or 0 if failed)."""
        if not self._open:
            return
        if responses is None:
            responses = 0 if error is not None else 1
        self._open = False
        self.responses += responses
        kind, fell_back, server = carrier(self._transport)
        self.fell_back = self.fell_back or fell_back
        attempt = Attempt(
            self.call,
            self.attempts,
            kind,
            fell_back,
            server,
            time.monotonic() - self._attempt_started,
            error,
            responses,
        )
        self._last_attempt = attempt
        for observer in self._observers:
            observer.on_attempt(attempt)

    def finish(
        self, response: Message | None, failure: BaseException | None = None, received: int = 0
    ) -> None:
        """Ends the call, and an attempt still open after `received` responses; reverse order."""
        error = None if failure is None else as_error(failure)
        if self._open:
            self.attempt_ended(error, received)
        outcome = Outcome(
            self.call,
            response,
            error,
            self.attempts,
            self._last_attempt,
            self.fell_back,
            time.monotonic() - self._started,
            self.responses,
        )
        for observer in reversed(self._observers):
            observer.on_finish(outcome)


def as_error(failure: BaseException) -> GroundwireError:
    """The `GroundwireError` an observer is told of for any way a call can end early.

    Example:
        >>> as_error(GeneratorExit()).code.name
        'CANCELLED'
    """
    if isinstance(failure, GroundwireError):
        return failure
    if not isinstance(failure, Exception):  # GeneratorExit, asyncio's CancelledError, Ctrl-C
        return Cancelled("the caller stopped the call")
    return Unknown(f"the call failed in the client: {type(failure).__name__}: {failure}")


def carrier(transport: Any) -> tuple[TransportKind, bool, str]:
    """Which transport carried the attempt just made: (kind, fell back to REST, server).

    The auto transport notes in `over_rest` when it sent an attempt over REST.
    """
    if hasattr(transport, "rest") and hasattr(transport, "grpc"):
        if over_rest.get():
            return "rest", True, str(transport.rest.base_url)
        return "grpc", False, str(transport.grpc.target)
    target = getattr(transport, "target", None)
    if target is not None:
        return "grpc", False, str(target)
    return "rest", False, str(getattr(transport, "base_url", ""))


def first_request(plan: StreamCall) -> Message | None:
    """The request a stream's interceptors see: its first, when its requests are a list."""
    requests = plan.requests
    if isinstance(requests, Sequence) and requests:
        first: Message = requests[0]
        return first
    return None
