"""GroundingClient: the synchronous client — gRPC first, REST when gRPC cannot connect."""

from __future__ import annotations

import functools
import threading
import time
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any, TypeVar

from groundwire import _api
from groundwire.batch import Batch
from groundwire.core.batch import Many
from groundwire.core.errors import ClientClosed, GroundwireError
from groundwire.core.requests import FactLike
from groundwire.core.results import GenerateResult
from groundwire.grounding_stream import GroundingStream
from groundwire.transports import lifetime

ResultT = TypeVar("ResultT")

if TYPE_CHECKING:
    from groundwire.transports.base import Transport


class GroundingClient(_api.Api):
    """A client for Google's grounding APIs, fast on raw protobuf, with a REST fallback.

    Use it as a context manager (or call `close()`):

    >>> from groundwire import GroundingClient                      # doctest: +SKIP
    >>> with GroundingClient("my-project") as client:               # doctest: +SKIP
    ...     result = client.check_grounding(
    ...         "Tokyo is the capital of Japan.", ["Tokyo is Japan's capital."])
    ...     result.support_score
    0.97

    Args:
        project: the Google Cloud project id (or number) that owns the calls.
        location: `global` (default), `us` or `eu` for Discovery Engine; a Vertex AI
            region (e.g. `us-central1`) for `corroborate_content`.
        transport: `"auto"` (gRPC first; REST at once when no gRPC connection can be made,
            staying on REST for `fallback_cooldown` seconds), `"grpc"` or `"rest"`.
        api_version: Discovery Engine version, `"v1"`, `"v1beta"` or `"v1alpha"`
            (CorroborateContent is always aiplatform v1).
        endpoint: gRPC `host[:port]` (or `dns:///`, `ipv4:`, `ipv6:`, `unix:` targets)
            instead of Google's. A loopback address means an emulator (plaintext, no
            credentials) unless `credentials` or `root_certificates` are given with it.
            Default: `$GROUNDWIRE_EMULATOR_HOST` or Google's regional host.
        rest_endpoint: REST base URL, e.g. `http://127.0.0.1:8080` for an emulator.
            Default: `$GROUNDWIRE_EMULATOR_REST`, or derived from a Google gRPC host
            (never from a custom or emulator one).
        credentials: google-auth credentials; by default Application Default Credentials
            (cloud-platform scope), which go only to Google's hosts of the universe
            (`$GOOGLE_CLOUD_UNIVERSE_DOMAIN`, else `googleapis.com`). Credentials passed
            here also go to a custom `endpoint`; none go over plaintext or to an emulator.
        root_certificates: PEM certificates to trust instead of the system's (a local
            TLS test server, a corporate CA); they make a loopback `endpoint` TLS.
        client_certificate: a `(certificate chain, private key)` PEM pair for mutual TLS;
            it too makes a loopback `endpoint` TLS.
        allow_remote_emulator: let the emulator variables (or an `http://` endpoint) name
            a host that is not loopback, as `GROUNDWIRE_EMULATOR_ALLOW_REMOTE=1` does. Its
            traffic is clear text and carries no credentials.
        quota_project: a project to bill quota to (`x-goog-user-project`).
        timeout: the overall deadline of one call in seconds, retries included.
        retry: the retry policy (`None` disables retries); UNAVAILABLE, RESOURCE_EXHAUSTED
            and an attempt's DEADLINE_EXCEEDED are retried with jittered back-off. A policy
            `timeout`, when set, caps the deadline too.
        validate: check the documented limits before sending (default True).
        fallback_cooldown: seconds to stay on REST after gRPC could not connect.
        corroborate_offset_unit: what CorroborateContent's `start_index`/`end_index` count:
            `"utf8"` bytes (default, as Vertex AI documents its other grounding offsets),
            `"codepoint"` or `"utf16"`.
        max_response_bytes: the largest response accepted, decompressed (default 64 MiB);
            a larger one fails with `MessageTooLarge` and is not retried.
        interceptors: `groundwire.interceptors.Interceptor`s that see every call, may add
            metadata, and observe each attempt and the outcome (e.g.
            `groundwire.otel.OpenTelemetryInterceptor`); the first listed is the outermost.
        log_bodies: also log request and response bodies (scrubbed of credentials) in the
            DEBUG log of each call, which this turns on (see `groundwire.logs`).
        client_options: a `google.api_core.client_options.ClientOptions` or a dict of its
            fields, as the official clients take (api-core itself is not needed):
            `api_endpoint` (the gRPC endpoint, or the REST one when it is a URL or
            `transport="rest"`), `quota_project_id`, `universe_domain`, `scopes`,
            `api_audience`, `client_cert_source` (used when google-auth says a client
            certificate is to be, e.g. `GOOGLE_API_USE_CLIENT_CERTIFICATE=true`) and the
            deprecated `credentials_file` (a DeprecationWarning). A field that repeats an
            argument with another value is a `ConfigurationError`.
        universe_domain: the Google Cloud universe (default `$GOOGLE_CLOUD_UNIVERSE_DOMAIN`,
            else `googleapis.com`); the hosts become `discoveryengine.{universe}` and
            `{location}-aiplatform.{universe}`, and credentials must be of that universe.
        grpc_options: gRPC channel options, `(name, value)` pairs that override the
            defaults, e.g. `[("grpc.keepalive_time_ms", 60000)]`.
        ssl_context: the TLS settings of REST calls, used as given (`root_certificates`
            and `client_certificate` then apply to gRPC alone).
        pool_limits: a `groundwire.PoolLimits`: REST connections open at once per host
            (`max_connections`, default 100; more calls wait, within their timeout) and
            kept idle (`max_idle`, default 100).

    Mutual TLS follows Google's variables: with a client certificate (the argument, or one
    google-auth finds when `GOOGLE_API_USE_CLIENT_CERTIFICATE=true`) Google's hosts
    become `*.mtls.googleapis.com`; `GOOGLE_API_USE_MTLS_ENDPOINT=always` or `never`
    overrides that (default `auto`).

    Every call also takes `timeout=` (its overall deadline), `metadata=` (extra gRPC
    metadata / HTTP headers: lower-case ASCII keys; the routing header
    `x-goog-request-params`, `authorization` and framing headers are reserved) and
    `retry=` (a `RetryPolicy` for this call, or None for no retries).
    """

    _forks = 0
    """`lifetime.forks` when this client's transports were made: another count means a fork."""

    @staticmethod
    def _new_lock() -> threading.Lock:
        return threading.Lock()

    # -- plumbing: the lines that wait -------------------------------------------------------

    def _transport(self, api: str) -> Transport:
        if self._forks != lifetime.forks:  # a forked child: the transports are the parent's
            self._leave_parent()
        found = self._transports.get(api)
        if found is not None and not self._closed:
            return found
        with self._lock:
            if self._closed:
                raise ClientClosed("this client is closed; create a new one")
            found = self._transports.get(api)
            if found is None:
                found = self._transports[api] = self._settings.make_transport(
                    api, self._config.location, self._config.quota_project, asynchronous=False
                )
            return found

    def _leave_parent(self) -> None:
        """In a forked child: lets go of the parent's transports, to build this process's own.

        Nothing is sent on, shut down or released of what the parent still uses (see
        `transports.lifetime`); the lock, which a parent's thread may have held, is new, and
        the retry jitter is reseeded, so that children do not retry in step.
        """
        with lifetime.lock:
            if self._forks == lifetime.forks:
                return
            inherited, self._transports = list(self._transports.values()), {}
            self._lock = threading.Lock()
            self._settings.random.seed()
            for transport in inherited:
                transport.abandon()
            self._forks = lifetime.forks

    def _run(self, call: Any, timeout: Any, metadata: Any, retry: Any) -> Any:
        """One unary call: its attempts, then the result read from its answer."""
        with _api.prepare(self, call, timeout, metadata, retry) as plan:
            transport = self._transport(call.method.api)
            while True:
                try:
                    response = plan.got(plan.send(transport))
                    break
                except GroundwireError as error:
                    time.sleep(plan.wait_after(error))
        return call.finish(response)

    def _many(self, many: Many[ResultT]) -> Batch[ResultT]:
        """A batch whose items' attempts this client sends (each one call, no retries)."""
        return Batch(many, functools.partial(self._run, retry=None))

    def _stream(
        self, call: Any, timeout: Any, metadata: Any, retry: Any
    ) -> Iterator[GenerateResult]:
        """One streaming call: its pieces as they arrive."""
        with _api.prepare(self, call, timeout, metadata, retry) as plan:
            transport = self._transport(call.method.api)
            while True:
                try:
                    for response in plan.stream(transport):
                        yield call.finish(plan.got(response))
                    break
                except GroundwireError as error:
                    time.sleep(plan.wait_after(error))

    def close(self) -> None:
        """Closes the connections; the client cannot be used afterwards."""
        with self._lock:
            self._closed = True
            transports, self._transports = list(self._transports.values()), {}
        for transport in transports:
            transport.close()

    def __enter__(self) -> GroundingClient:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def check_grounding_stream(
        self, text_chunks: Iterable[str | bytes], facts: Iterable[FactLike] = (), **options: Any
    ) -> GroundingStream:
        """Checks a text as it streams in: yields each sentence's check as soon as it is complete.

        `text_chunks` is any iterable of `str` (or UTF-8 `bytes`) chunks, such as an LLM's
        tokens. Options: `concurrency` (checks in flight, default 4; the text is read no
        further ahead), `sentences_per_check` (1), `min_chars` (0), and `check_grounding`'s
        own. See `groundwire.grounding_stream` and the docs' "Streaming" page.
        """
        return GroundingStream(self.check_grounding, text_chunks, facts, **options)
