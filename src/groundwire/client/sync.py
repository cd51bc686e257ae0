"""GroundingClient: the synchronous client — gRPC first, REST when gRPC cannot connect."""

from __future__ import annotations

import functools
import threading
import time
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any, TypeVar

from groundwire.client import methods
from groundwire.contract.errors import ClientClosed, GroundwireError
from groundwire.contract.requests import FactLike
from groundwire.contract.results import GenerateResult
from groundwire.features.batch import Many
from groundwire.features.batch_threads import Batch
from groundwire.features.grounding_stream import GroundingStream
from groundwire.transports import lifetime

ResultT = TypeVar("ResultT")

if TYPE_CHECKING:
    from groundwire.transports.base import Transport


class GroundingClient(methods.Api):
    """A client for Google's grounding APIs, fast on raw protobuf, with a REST fallback.

    Use it as a context manager (or call `close()`); docs/client.md tells the rest.

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
        transport: `"auto"` (gRPC, and REST for `fallback_cooldown` seconds when gRPC
            cannot connect), `"grpc"` or `"rest"`.
        api_version: Discovery Engine's `"v1"`, `"v1beta"` or `"v1alpha"` (CorroborateContent
            is always Vertex AI v1).
        endpoint: a gRPC `host[:port]` (or `dns:///`, `ipv4:`, `ipv6:`, `unix:` target);
            loopback means an emulator unless given with `credentials` or certificates.
            Default: `$GROUNDWIRE_EMULATOR_HOST`, else Google's host.
        rest_endpoint: a REST base URL. Default: `$GROUNDWIRE_EMULATOR_REST`, else derived
            from a Google gRPC host.
        credentials: google-auth credentials; default Application Default Credentials,
            sent only to the universe's hosts (never over plaintext or to an emulator).
        root_certificates: PEM certificates to trust instead of the system's.
        client_certificate: a `(certificate chain, private key)` PEM pair for mutual TLS.
        allow_remote_emulator: let an emulator be on a host that is not loopback.
        quota_project: a project to bill quota to (`x-goog-user-project`).
        timeout: the overall deadline of one call in seconds, retries included.
        retry: a `RetryPolicy` (`None`: no retries).
        validate: check the documented limits before sending (default True).
        fallback_cooldown: seconds to stay on REST after gRPC could not connect.
        corroborate_offset_unit: what CorroborateContent's offsets count: `"utf8"`
            (default), `"codepoint"` or `"utf16"`.
        max_response_bytes: the largest response accepted, decompressed (default 64 MiB).
        interceptors: `groundwire.client.interceptors.Interceptor`s that see every call, the first
            the outermost (see docs/operators.md).
        log_bodies: log each call at DEBUG with its bodies, scrubbed (see `groundwire.client.logs`).
        client_options: a `google.api_core.client_options.ClientOptions` or a dict of its
            fields; one that contradicts an argument is a `ConfigurationError`.
        universe_domain: the Google Cloud universe (default `$GOOGLE_CLOUD_UNIVERSE_DOMAIN`,
            else `googleapis.com`).
        grpc_options: gRPC channel options, e.g. `[("grpc.keepalive_time_ms", 60000)]`.
        ssl_context: the TLS settings of REST calls, used as given.
        pool_limits: a `groundwire.PoolLimits` for the REST connection pools.

    Every call also takes `timeout=` (its overall deadline), `metadata=` (extra gRPC
    metadata / HTTP headers) and `retry=` (a `RetryPolicy` for this call, or None).
    """

    _forks = 0  # `lifetime.forks` when the transports were made: another count means a fork

    @staticmethod
    def _new_lock() -> threading.Lock:
        return threading.Lock()

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
                found = self._transports[api] = self._make_transport(api, asynchronous=False)
            return found

    def _leave_parent(self) -> None:
        """In a forked child: leaves the parent's transports alone and builds its own.

        The lock is new (a parent's thread may have held it) and the jitter reseeded, so
        that children do not retry in step.
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
        with methods.prepare(self, call, timeout, metadata, retry) as plan:
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
        with methods.prepare(self, call, timeout, metadata, retry) as plan:
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
        tokens. Options: `concurrency` (default 4), `sentences_per_check` (1), `min_chars`
        (0) and `check_grounding`'s own; see docs/streaming.md.
        """
        return GroundingStream(self.check_grounding, text_chunks, facts, **options)
