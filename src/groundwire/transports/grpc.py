"""The blocking gRPC transport: raw protobuf over one channel, as close to a bare stub as can be.

Also what the asyncio one shares: channel options, credentials, connecting, failure translation.
"""

from __future__ import annotations

import abc
import re
import time
from collections.abc import Callable, Generator, Iterable, Iterator, Sequence
from typing import Any, Generic, Protocol, TypeAlias, TypeVar

import grpc
from google.auth.credentials import Credentials
from google.auth.transport.grpc import AuthMetadataPlugin
from google.protobuf.message import Message

from groundwire.contract.addresses import is_loopback
from groundwire.contract.apis import Method
from groundwire.contract.errors import GroundwireError, MessageTooLarge
from groundwire.transports import lifetime
from groundwire.transports.auth import TokenRequest
from groundwire.transports.base import (
    ConnectionFailure,
    Metadata,
    Requests,
    client_closed,
    refuse_plaintext,
)
from groundwire.wire.bodies import MAX_MESSAGE_BYTES
from groundwire.wire.error_codecs import error_from_status

DEFAULT_OPTIONS: tuple[tuple[str, int], ...] = (
    ("grpc.keepalive_time_ms", 30_000),
    ("grpc.keepalive_timeout_ms", 10_000),
    ("grpc.keepalive_permit_without_calls", 0),
    ("grpc.max_send_message_length", MAX_MESSAGE_BYTES),
    ("grpc.max_receive_message_length", MAX_MESSAGE_BYTES),
)

ChannelOptions = Sequence[tuple[str, Any]]

CONNECT_SHARE = 0.25
"""The share of an attempt's timeout a channel may spend connecting before the call starts."""
MAX_CONNECT_SECONDS = 20.0
"""The longest wait for a connection (gRPC core's own connect timeout), with no timeout too."""
SETTLED = frozenset(
    {
        grpc.ChannelConnectivity.READY,
        grpc.ChannelConnectivity.TRANSIENT_FAILURE,
        grpc.ChannelConnectivity.SHUTDOWN,
    }
)
"""The states where a call no longer waits for a connection: it runs, or fails at once."""

_WATCH_SLICE_SECONDS = 0.05
_DETAILS_TRAILER = "grpc-status-details-bin"
# What gRPC core says when it made no connection: refused, DNS, TLS/ALPN, a peer without HTTP/2.
_NOT_CONNECTED = re.compile(
    r"failed to connect|handshake|connection refused|http/2|dns resolution|name resolution|alpn",
    re.IGNORECASE,
)
_TOO_LARGE = re.compile(r"(received|sent) message larger than max", re.IGNORECASE)
_CONNECTIVITY_BY_NUMBER = {state.value[0]: state for state in grpc.ChannelConnectivity}


class FailedCall(Protocol):
    """What a failed call tells, sync (grpc.Call) or asyncio (AioRpcError) alike."""

    def code(self) -> grpc.StatusCode:
        """The call's status code."""

    def details(self) -> str | None:
        """The status message the server sent, if any."""

    def trailing_metadata(self) -> Any:
        """The trailers, where rich error details travel as `grpc-status-details-bin`."""


def channel_options(
    options: ChannelOptions, user_agent: str | None, target: str = ""
) -> list[tuple[str, Any]]:
    """The defaults above, overridden by `options`; gRPC core sends `user_agent` first.

    A loopback `target` bypasses the environment's proxies, which would see plaintext.

    Example:
        >>> dict(channel_options([("grpc.keepalive_time_ms", 60_000)], None))[
        ...     "grpc.keepalive_time_ms"]
        60000
        >>> dict(channel_options((), None, "127.0.0.1:50051"))["grpc.enable_http_proxy"]
        0
    """
    merged: dict[str, Any] = dict(DEFAULT_OPTIONS)
    if user_agent:
        merged["grpc.primary_user_agent"] = user_agent
    if target and is_loopback(target_host(target)):
        merged["grpc.enable_http_proxy"] = 0
    merged.update(options)
    return list(merged.items())


def target_host(target: str) -> str:
    """The host of a gRPC target: `dns:///h:443`, `ipv4:127.0.0.1:80`, `[::1]:80`, `h:80`.

    Example:
        >>> target_host("dns:///localhost:8080"), target_host("[::1]:50051")
        ('localhost', '::1')
        >>> target_host("dns://8.8.8.8/example.com:443")
        'example.com'
    """
    address = target
    for scheme in ("dns:", "ipv4:", "ipv6:"):
        if address.startswith(scheme):
            address = address[len(scheme) :]
            if address.startswith("//"):  # dns://authority/host: the DNS server is no host
                address = address[2:].partition("/")[2]
            address = address.split(",")[0]
            break
    if address.startswith("unix:") or address.startswith("unix-abstract:"):
        return "localhost"
    if address.startswith("["):
        return address[1 : address.find("]")]
    host, colon, _ = address.rpartition(":")
    if not colon or ":" in host:  # no port, or a bare IPv6 address
        return address
    return host


def channel_credentials(
    target: str,
    credentials: Credentials | None,
    secure: bool,
    root_certificates: bytes | None,
    *,
    allow_remote_plaintext: bool = False,
    client_certificate: tuple[bytes, bytes] | None = None,
) -> tuple[grpc.ChannelCredentials | None, TokenRequest | None]:
    """TLS with google-auth call credentials, and the token adapter to close with the channel.

    Plaintext (None) raises ValueError with credentials or to a host that is not loopback.
    """
    if not secure:
        refuse_plaintext(
            f"gRPC target {target}",
            target_host(target),
            credentials is not None,
            allow_remote=allow_remote_plaintext,
        )
        return None, None
    chain, key = client_certificate or (None, None)
    tls = grpc.ssl_channel_credentials(
        root_certificates=root_certificates, private_key=key, certificate_chain=chain
    )
    if credentials is None:
        return tls, None
    token_request = TokenRequest()
    plugin = AuthMetadataPlugin(credentials, token_request)  # type: ignore[no-untyped-call]
    call_credentials = grpc.metadata_call_credentials(plugin, name="google-auth")
    return grpc.composite_channel_credentials(tls, call_credentials), token_request


def connect_budget(timeout: float | None) -> float:
    """How long a call may wait for its channel to connect: a share of its `timeout`.

    Past it the call fails, so that `auto` falls back to REST in time from a blackhole.

    Example:
        >>> connect_budget(8.0), connect_budget(None), connect_budget(600.0)
        (2.0, 20.0, 20.0)
    """
    if timeout is None:
        return MAX_CONNECT_SECONDS
    return min(timeout * CONNECT_SHARE, MAX_CONNECT_SECONDS)


def not_connected(target: str, budget: float) -> ConnectionFailure:
    """The error for a channel that did not connect within its budget."""
    return ConnectionFailure(
        f"no gRPC connection to {target} within {budget:.3g} s "
        "(the port may accept TCP, but nothing answers gRPC)"
    )


def codecs(
    method: Method,
) -> tuple[Callable[[Message], bytes], Callable[[bytes], Message]]:
    """How a channel turns `method`'s request into bytes, and bytes into its response."""
    return method.request_class.SerializeToString, method.response_class.FromString


def is_connection_failure(
    code: grpc.StatusCode, details: str, state: grpc.ChannelConnectivity | None
) -> bool:
    """Whether an UNAVAILABLE call failed because no connection could be made.

    A READY channel means a server sent the status; else TRANSIENT_FAILURE or gRPC core's
    own words (failed to connect, handshake, DNS, HTTP/2) tell.

    Example:
        >>> is_connection_failure(grpc.StatusCode.UNAVAILABLE, "failed to connect to all "
        ...     "addresses", grpc.ChannelConnectivity.TRANSIENT_FAILURE)
        True
        >>> is_connection_failure(grpc.StatusCode.UNAVAILABLE, "failed to connect to backend",
        ...     grpc.ChannelConnectivity.READY)
        False
    """
    if code != grpc.StatusCode.UNAVAILABLE or state == grpc.ChannelConnectivity.READY:
        return False
    return (
        state == grpc.ChannelConnectivity.TRANSIENT_FAILURE
        or _NOT_CONNECTED.search(details) is not None
    )


def error_from_call(call: FailedCall, state: grpc.ChannelConnectivity | None) -> GroundwireError:
    """The GroundwireError for a failed call, rich details from grpc-status-details-bin."""
    code = call.code()
    details = call.details() or ""
    if is_connection_failure(code, details, state):
        return ConnectionFailure(details or "could not connect")
    if code == grpc.StatusCode.RESOURCE_EXHAUSTED and _TOO_LARGE.search(details):
        return MessageTooLarge(details)
    details_bin = None
    for key, value in call.trailing_metadata() or ():
        if key == _DETAILS_TRAILER:
            details_bin = value
            break
    number = code.value[0] if isinstance(code, grpc.StatusCode) else 2
    return error_from_status(number, details, details_bin)


class KeptFailure:
    """The exception the caller's requests raised while gRPC read them, kept for later."""

    failure: Exception | None = None

    def raise_failure(self, failed: GroundwireError | None = None) -> None:
        """Raises the requests' own exception, unchained, if any; else `failed`, if given."""
        if self.failure is not None:
            raise self.failure
        if failed is not None:
            raise failed


class RequestReader(KeptFailure, Iterator[Message]):
    """The caller's requests as gRPC reads them, keeping an exception they raise for later.

    gRPC would turn it into a bare "Exception iterating requests!"; instead the requests end
    there and `raise_failure` raises it unchanged once the call has ended.

    Example:
        >>> def requests():
        ...     yield "first"
        ...     raise ValueError("no second")
        >>> reader = RequestReader(requests())
        >>> list(reader)
        ['first']
        >>> reader.raise_failure()
        Traceback (most recent call last):
        ...
        ValueError: no second
    """

    def __init__(self, requests: Iterable[Message]) -> None:
        self._source = iter(requests)

    def __next__(self) -> Message:
        if self.failure is not None:
            raise StopIteration
        try:
            return next(self._source)
        except StopIteration:
            raise
        except Exception as error:  # the caller's own error, raised again after the call
            self.failure = error
            raise StopIteration from None


ChannelT = TypeVar("ChannelT")
UnaryT = TypeVar("UnaryT")


class GrpcCalls(Generic[ChannelT, UnaryT]):
    """All that the blocking and the asyncio gRPC transport share: all but the waiting."""

    def __init__(
        self,
        target: str,
        *,
        credentials: Credentials | None,
        secure: bool,
        options: ChannelOptions = (),
        root_certificates: bytes | None = None,
        user_agent: str | None = None,
        allow_remote_plaintext: bool = False,
        client_certificate: tuple[bytes, bytes] | None = None,
    ) -> None:
        self.target = target
        self._tls, self._token_request = channel_credentials(
            target,
            credentials,
            secure,
            root_certificates,
            allow_remote_plaintext=allow_remote_plaintext,
            client_certificate=client_certificate,
        )
        self._options = channel_options(options, user_agent, target)
        self._closed = False
        self._ready = False  # seen READY since the last failure: calls skip the state check
        self._unary_calls: dict[str, UnaryT] = {}
        self._channel = self._new_channel()

    @abc.abstractmethod
    def _new_channel(self) -> ChannelT:
        """The channel as the transport holds it when built."""

    @abc.abstractmethod
    def _connectivity(self) -> grpc.ChannelConnectivity | None:
        """The channel's state without triggering a connection (None if it cannot be read)."""

    def _error(self, error: FailedCall) -> GroundwireError:
        """The GroundwireError for a failed call: `ClientClosed` once `close` was called."""
        if self._closed:
            return client_closed()
        return error_from_call(error, self._connectivity())


UnaryCall: TypeAlias = "grpc.UnaryUnaryMultiCallable[Message, Message]"


class GrpcTransport(GrpcCalls[grpc.Channel, UnaryCall]):
    """Calls over one gRPC channel (HTTP/2, TLS); thread-safe, one instance per client.

    `secure=False` is plaintext for a local emulator: no credentials, loopback only (unless
    `allow_remote_plaintext`). `client_certificate` is a (chain, key) PEM pair for mutual
    TLS; `user_agent` leads the user-agent header, which gRPC core sets itself.

    Example:
        >>> transport = GrpcTransport("127.0.0.1:50051", credentials=None, secure=False)
        >>> transport.close()
    """

    def _new_channel(self) -> grpc.Channel:
        if self._tls is None:
            return grpc.insecure_channel(self.target, options=self._options)
        return grpc.secure_channel(self.target, self._tls, options=self._options)

    def unary(
        self, method: Method, request: Message, *, timeout: float | None, metadata: Metadata
    ) -> Message:
        """Sends one request, returns the response; failures as GroundwireError."""
        call = self._unary_calls.get(method.grpc_path)
        if call is None:
            call = self._channel.unary_unary(method.grpc_path, *codecs(method))
            self._unary_calls[method.grpc_path] = call
        in_flight = object()  # a fork now leaves gRPC unsafe in the child: lifetime knows
        lifetime.grpc_calls.add(in_flight)
        try:
            if not self._ready:
                timeout = self._connect(timeout)
            return call(request, timeout=timeout, metadata=metadata)  # type: ignore[arg-type]
        except grpc.RpcError as error:
            self._ready = False  # the next call looks at the channel again
            raise self._rpc_error(error) from None
        except ValueError:  # "Cannot invoke RPC on closed channel!"
            if self._closed:
                raise client_closed() from None
            raise
        finally:
            lifetime.grpc_calls.discard(in_flight)

    def stream(
        self, method: Method, requests: Requests, *, timeout: float | None, metadata: Metadata
    ) -> Generator[Message, None, None]:
        """Starts a bidi stream on first `next`; yields responses as they arrive.

        gRPC reads `requests` on its own thread, so a request generator may wait for
        responses. Closing the iterator cancels the call.
        """
        call = self._channel.stream_stream(method.grpc_path, *codecs(method))
        reader = RequestReader(requests)
        in_flight = object()  # until the stream ends, a fork leaves gRPC unsafe in the child
        lifetime.grpc_calls.add(in_flight)
        try:
            timeout = self._connect(timeout)
            responses = call(reader, timeout=timeout, metadata=metadata)  # type: ignore[arg-type]
        except BaseException as error:
            lifetime.grpc_calls.discard(in_flight)
            if isinstance(error, ValueError) and self._closed:  # "RPC on closed channel!"
                raise client_closed() from None
            raise
        failed: GroundwireError | None = None
        try:
            yield from responses
        except grpc.RpcError as error:
            failed = self._rpc_error(error)
        finally:
            responses.cancel()  # type: ignore[no-untyped-call]
            lifetime.grpc_calls.discard(in_flight)
        reader.raise_failure(failed)

    def close(self) -> None:
        """Closes the channel and the token adapter; calls in flight fail with `ClientClosed`."""
        self._ready = False
        self._closed = True
        self._channel.close()
        if self._token_request is not None:
            self._token_request.close()

    def abandon(self) -> None:
        """Lets go of a channel inherited across `os.fork()` without touching it.

        gRPC core may hang or crash if a child uses, closes or even releases its parent's
        channel: it stays referenced until the child ends.
        """
        self._ready = False
        self._closed = True
        lifetime.leave_behind(self._channel)
        if self._token_request is not None:
            self._token_request.abandon()

    def _connect(self, timeout: float | None) -> float | None:
        """Waits, within `connect_budget`, until the channel can carry a call; returns the rest.

        Once READY, later calls skip the check until one fails: it takes the channel's lock.
        """
        if self._closed:
            raise client_closed()
        if self._connectivity() == grpc.ChannelConnectivity.READY:
            self._ready = not self._closed
            return timeout
        started = time.monotonic()
        budget = connect_budget(timeout)
        try:
            settled = self._settles_within(budget)
        except ValueError:  # the channel was closed while we waited
            raise client_closed() from None
        if not settled:
            raise not_connected(self.target, budget)
        return None if timeout is None else max(timeout - (time.monotonic() - started), 0.001)

    def _settles_within(self, budget: float) -> bool:
        """Whether the channel settles within `budget` (on gRPC core: `subscribe` leaks threads)."""
        core = getattr(self._channel, "_channel", None)
        if core is None:
            return True  # no way to watch: the call itself waits, as gRPC makes it
        until = time.time() + budget  # gRPC core's deadlines are on the wall clock
        state = core.check_connectivity_state(True)
        while _CONNECTIVITY_BY_NUMBER.get(state) not in SETTLED:
            now = time.time()
            if now >= until:
                return False
            # A watch holds up `close` until it returns: watch in short slices, so a close
            # while connecting waits a slice, not the rest of the budget.
            core.watch_connectivity_state(state, min(until, now + _WATCH_SLICE_SECONDS))
            if self._closed:
                raise client_closed()
            state = core.check_connectivity_state(True)
        return True

    def _rpc_error(self, error: grpc.RpcError) -> GroundwireError:
        if isinstance(error, grpc.Call) or self._closed:
            return self._error(error)
        return error_from_status(2, f"gRPC failed: {error!r}")

    def _connectivity(self) -> grpc.ChannelConnectivity | None:
        try:
            number = self._channel._channel.check_connectivity_state(False)  # type: ignore[attr-defined]
        except AttributeError:
            return None
        return _CONNECTIVITY_BY_NUMBER.get(number)
