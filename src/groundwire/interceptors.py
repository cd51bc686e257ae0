"""The one extension point of both clients: interceptors that see every call and each attempt.

An interceptor is registered at construction (`GroundingClient(..., interceptors=[...])`, the
same for `AsyncGroundingClient`) and serves both clients, unary and streaming calls, gRPC and
REST: its hooks are plain functions, called by the client's own call loop.

* `Interceptor.start(call)` runs as a call starts. It sees the method, the request and the
  metadata, and returns a `CallObserver` for this call (or None to leave it alone).
* The observer's `metadata()` is sent with every attempt (W3C `traceparent`, a tenant id…);
  interceptors later in the list see what earlier ones added.
* `on_attempt(attempt)` runs after each attempt: its number, the transport that carried it
  (`"grpc"` or `"rest"`: the auto transport says which), whether it fell back to REST, its
  outcome and its duration. Retries and the fallback stay in the client: they are observed.
* `on_finish(outcome)` runs once, when the call ends: the response, or the `GroundwireError`
  the caller gets. Observers finish in the reverse order of `start`, as wrappers unwind.

Both protocols give every hook a default, so a subclass writes only the hooks it needs:

>>> class Tenant(Interceptor):
...     def start(self, call: CallInfo) -> CallObserver:
...         return StaticMetadata((("x-tenant", "blue"),))

Like connect-go's interceptors, the chain is built once, when the client is. Every call goes
through it; an empty chain tells no one (`groundwire.core.attempts.NO_ONE`).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, Protocol

from google.protobuf.message import Message

from groundwire.core.apis import Method
from groundwire.core.attempts import NO_ONE, Events
from groundwire.core.errors import Cancelled, GroundwireError, Unknown
from groundwire.transports.base import over_rest

if TYPE_CHECKING:
    from groundwire.core.calls import StreamCall

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
        """The full RPC name: `package.Service/Method`, as gRPC and OpenTelemetry spell it.

        E.g. `google.cloud.discoveryengine.v1.GroundedGenerationService/CheckGrounding`.
        """
        return self.method.grpc_path[1:]

    @property
    def service(self) -> str:
        """The full service name, e.g. `google.cloud.discoveryengine.v1.GroundedGenerationService`.

        The part of `procedure` before the slash.
        """
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

    `attempts` counts the attempts made (0 when the call failed before sending, e.g. on a
    closed client); `last_attempt` is the last of them; `fell_back` says whether any went over
    REST because gRPC could not connect; `duration` is the whole call's, retries included.
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
            # The call fails before it is sent: those already started see it end (their
            # spans close), and the caller gets the interceptor's exception.
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
        """Reports the attempt that just ended to every observer.

        `responses` counts what it delivered (default: a unary call's one, or none if failed).
        """
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
        """Ends the call: observers finish in reverse order of start.

        An attempt still open (a stream the caller stopped reading, after `received`
        responses) ends with the call.
        """
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

    The auto transport holds both a `grpc` and a `rest` transport and notes in `over_rest`
    when it sent an attempt over REST; the others are what they are.
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
