"""Recording: the emulator forwards each call upstream and writes the exchange to a cassette.

The upstream is Google (`Upstream()`: its endpoints for the request's location, with
Application Default Credentials) or any server (`Upstream("HOST:PORT")`: another emulator,
in clear text on loopback and without credentials). Both are reached by groundwire's own
client code (`groundwire.client.factory.make_transport`), so the client's safety rules hold:
credentials travel only over TLS, to Google's endpoints or to an endpoint given together
with credentials. The serving process holds them; its own clients send none, and their
metadata (authorization, cookies, ...) is neither forwarded nor recorded.

Responses are passed on as they arrive (a stream piece by piece), and the exchange is
written once the upstream has answered: the request, then the response, the error or the
stream's pieces, each with the time it came after the previous one. A call whose client
went away before the upstream finished is not written.
"""

from __future__ import annotations

import os
import re
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from groundwire.client.endpoints import EMULATOR_GRPC_ENV, EMULATOR_REST_ENV
from groundwire.contract.addresses import check_location, is_loopback
from groundwire.contract.apis import Method
from groundwire.contract.errors import ConfigurationError, GroundwireError
from groundwire.contract.spec import route, spec_for
from groundwire.emulator.answering import Call
from groundwire.emulator.cassette import CassetteWriter, Exchange
from groundwire.emulator.outcomes import Ending, Outcome, Piece, Step

if TYPE_CHECKING:
    from google.auth.credentials import Credentials

GOOGLE = "google"
"""The `--upstream` that names Google's own endpoints."""
LOOPBACK_ONLY = (
    "a recorder calls the upstream with this machine's credentials for whoever reaches it, "
    "so it listens on loopback only"
)


@dataclass(frozen=True)
class Upstream:
    """Where a recorder forwards calls: Google (no endpoint), or the server at `endpoint`.

    `credentials` and `root_certificates` are the client's: with credentials, an endpoint
    is reached over TLS (a loopback one too), as the client would reach it.

    Example:
        >>> Upstream.parse("google"), Upstream.parse("127.0.0.1:50051").endpoint
        (Upstream(endpoint=None, credentials=None, root_certificates=None, timeout=300.0), \
'127.0.0.1:50051')
    """

    endpoint: str | None = None
    credentials: Credentials | None = None
    root_certificates: bytes | None = None
    timeout: float = 300.0
    """Seconds an upstream call may take."""

    @classmethod
    def parse(cls, text: str) -> Upstream:
        """The upstream `--upstream` names: `google`, or `HOST:PORT`."""
        return cls() if text == GOOGLE else cls(endpoint=text)

    def describe(self) -> str:
        """The upstream in a cassette's header: `google`, or its endpoint."""
        return self.endpoint or GOOGLE

    def transport(self, api: str, location: str) -> Any:
        """A blocking gRPC transport to `api` at `location`, made by the client's rules.

        Raises `EndpointError` for an endpoint the rules refuse (clear text to another host,
        credentials over clear text), and `Unauthenticated` when Google is the upstream and
        no Application Default Credentials are found.
        """
        from groundwire.client.factory import make_transport
        from groundwire.client.settings import Settings

        if self.endpoint is None:
            set_here = [
                name for name in (EMULATOR_GRPC_ENV, EMULATOR_REST_ENV) if name in os.environ
            ]
            if set_here:
                raise ConfigurationError(
                    f"{set_here[0]} is set, so the upstream 'google' would be that emulator; "
                    "unset it to record from Google, or name the server as the upstream"
                )
        settings = Settings(
            transport="grpc",
            endpoint=self.endpoint,
            rest_endpoint=None,
            credentials=self.credentials,
            timeout=self.timeout,
            retry=None,
            fallback_cooldown=0.0,
            root_certificates=self.root_certificates,
        )
        return make_transport(settings, api, location, None, asynchronous=False)


@dataclass(frozen=True)
class RecordOptions:
    """Record to a new cassette at `path` what `upstream` answers.

    Example:
        >>> RecordOptions("calls.jsonl", Upstream.parse("127.0.0.1:50051")).upstream.endpoint
        '127.0.0.1:50051'
    """

    path: str | os.PathLike[str]
    upstream: Upstream = Upstream()

    def answerer(self) -> Recorder:
        """The recorder's seat at the switchboard; `ConfigurationError` if the file exists."""
        return Recorder(self)

    def check_host(self, host: str) -> None:
        """Raises `ConfigurationError` unless the recorder is to listen on loopback (`host`)."""
        if not is_loopback(host):
            raise ConfigurationError(f"a recorder cannot listen on {host}: {LOOPBACK_ONLY}")


class Recorder:
    """Forwards every call it is asked to answer, and writes each exchange down."""

    def __init__(self, options: RecordOptions) -> None:
        self.options = options
        self.writer = CassetteWriter(options.path, options.upstream.describe())
        self._transports: dict[tuple[str, str], Any] = {}
        self._lock = threading.Lock()

    def __call__(self, call: Call) -> Forwarding:
        """The upstream's answer to `call`, played as it arrives."""
        return Forwarding(self, call)

    def transport_for(self, method: Method, location: str) -> Any:
        """The upstream transport for `method`'s API at `location`, made on first use."""
        key = (method.api, location)
        with self._lock:
            if key not in self._transports:
                self._transports[key] = self.options.upstream.transport(method.api, location)
            return self._transports[key]


@dataclass(frozen=True)
class Forwarding:
    """One call forwarded upstream: its steps are the upstream's answer, written when done."""

    recorder: Recorder
    call: Call

    def steps(self) -> Iterator[Step]:
        """The upstream's responses as they come, then its error if it failed.

        A request the spec refuses, or whose resource names no location of the API's shape,
        is answered with that error here: nothing is forwarded or written.
        """
        method, request = self.call.method, self.call.request
        try:
            spec_for(method).check(method, request)
            location = _location(method, request)
        except GroundwireError as error:
            yield Ending(error)
            return
        started = last = time.monotonic()
        pieces: list[Piece] = []
        try:
            transport = self.recorder.transport_for(method, location)
            timeout = self.recorder.options.upstream.timeout
            metadata = route(method, request, None)
            if not method.server_streaming:
                response = transport.unary(method, request, timeout=timeout, metadata=metadata)
                self._write(Outcome((Piece(response),), None, time.monotonic() - started))
                yield Piece(response)
                return
            responses = transport.stream(method, [request], timeout=timeout, metadata=metadata)
            try:
                for response in responses:
                    now = time.monotonic()
                    pieces.append(Piece(response, now - last))
                    last = now
                    yield Piece(response)
            finally:
                responses.close()
        except GroundwireError as error:
            ending = Ending(error, delay_seconds=0.0 if not pieces else time.monotonic() - last)
            delay = 0.0 if pieces else time.monotonic() - started
            self._write(Outcome(tuple(pieces), ending, delay))
            yield Ending(error)
            return
        self._write(Outcome(tuple(pieces)))

    def _write(self, outcome: Outcome) -> None:
        exchange = Exchange(self.call.method, self.call.request_json(), outcome)
        self.recorder.writer.write(exchange, self.call.transport)


def _location(method: Method, request: Any) -> str:
    """The location the request's resource names (`projects/p/locations/eu/...`), else global.

    An `InvalidArgument` names a location that is not shaped like one, before any host is built.

    Example:
        >>> from groundwire.contract.apis import method
        >>> corroborate = method("aiplatform", "v1", "CorroborateContent")
        >>> _location(corroborate, corroborate.request_class(parent="projects/p/locations/eu"))
        'eu'
    """
    field = method.routing_field
    found = re.search(r"(?:^|/)locations/([^/]+)", getattr(request, field))
    return check_location(found.group(1), f"the location in {field}") if found else "global"
