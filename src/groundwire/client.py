"""GroundingClient: the synchronous client — gRPC first, REST when gRPC cannot connect."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from google.protobuf import message

from groundwire._base import CLIENT_RETRY, ClientBase, RetryArgument, with_call_metadata
from groundwire.batch import Batch
from groundwire.core import calls
from groundwire.core.batch import DEFAULT_CONCURRENCY, DEFAULT_MAX_CONNECTION_FAILURES, Rpc
from groundwire.core.errors import ClientClosed, GroundwireError
from groundwire.core.metadata import MetadataLike
from groundwire.core.requests import FactLike, TurnLike
from groundwire.core.results import CheckGroundingResult, CorroborationResult, GenerateResult
from groundwire.grounding_stream import GroundingStream
from groundwire.interceptors import first_request
from groundwire.transports import lifetime

ResultT = TypeVar("ResultT")

if TYPE_CHECKING:
    from groundwire.transports.base import Transport


class GroundingClient(ClientBase):
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

    # -- the API ---------------------------------------------------------------------------

    def check_grounding(
        self,
        answer_candidate: str | message.Message,
        facts: Iterable[FactLike] = (),
        *,
        citation_threshold: float | None = None,
        enable_claim_level_score: bool | None = None,
        user_labels: Mapping[str, str] | None = None,
        grounding_config: str = "default_grounding_config",
        timeout: float | None = None,
        metadata: MetadataLike | None = None,
        retry: RetryArgument = CLIENT_RETRY,
    ) -> CheckGroundingResult:
        """Checks how well `facts` support `answer_candidate`, claim by claim.

        Args:
            answer_candidate: the answer to check (or a ready `CheckGroundingRequest`).
            facts: strings, `(text, attributes)` pairs, dicts (`{"text", "attributes"}`) or
                `GroundingFact` messages; attributes such as `author` count as evidence.
            citation_threshold: 0–1; higher gives fewer, stronger citations (service: 0.6).
            enable_claim_level_score: also score each claim (v1 and v1beta).
            user_labels: billing labels.
            grounding_config: the config id or full resource name.
            timeout: this call's overall deadline, instead of the client's.
            metadata: extra gRPC metadata (HTTP headers over REST) for this call.
            retry: this call's retry policy instead of the client's (None: no retries).

        Returns the claims with `start`/`end` that slice `answer_candidate` as a Python
        string, the UTF-8 offsets the API sent, UTF-16 offsets, and resolved citations.
        """
        call = calls.unary(
            self._config,
            "CheckGrounding",
            answer_candidate,
            facts=facts,
            citation_threshold=citation_threshold,
            enable_claim_level_score=enable_claim_level_score,
            user_labels=user_labels,
            grounding_config=grounding_config,
        )
        return self._run(call, timeout, metadata, retry)

    def corroborate_content(
        self,
        content: str | message.Message,
        facts: Iterable[FactLike] = (),
        *,
        citation_threshold: float | None = None,
        timeout: float | None = None,
        metadata: MetadataLike | None = None,
        retry: RetryArgument = CLIENT_RETRY,
    ) -> CorroborationResult:
        """Scores how well `facts` corroborate `content` (Vertex AI, aiplatform v1).

        Args:
            content: the text to corroborate (or a `Content`, or a ready request).
            facts: strings (a fact's summary), `(text, {"title", "uri"})` pairs, dicts of
                `Fact` fields, or `Fact` messages.
            citation_threshold: claims scoring below it are left out (service: 0.6).
            timeout: this call's overall deadline, instead of the client's.
            metadata: extra gRPC metadata (HTTP headers over REST) for this call.
            retry: this call's retry policy instead of the client's (None: no retries).
        """
        call = calls.unary(
            self._config,
            "CorroborateContent",
            content,
            facts=facts,
            citation_threshold=citation_threshold,
        )
        return self._run(call, timeout, metadata, retry)

    def generate_grounded_content(
        self,
        prompt: str | Sequence[TurnLike] | message.Message,
        *,
        timeout: float | None = None,
        metadata: MetadataLike | None = None,
        retry: RetryArgument = CLIENT_RETRY,
        **options: Any,
    ) -> GenerateResult:
        """Generates an answer grounded in the given sources.

        Args:
            prompt: the user's question, a list of turns (`"text"`, `(role, text)`, dicts,
                or `GroundedGenerationContent`), or a ready request.
            timeout: this call's overall deadline, instead of the client's.
            metadata: extra gRPC metadata (HTTP headers over REST) for this call.
            retry: this call's retry policy instead of the client's (None: no retries).
            **options: `system_instruction`; sources: `facts` (inline), `serving_config`
                with `max_result_count`, `search_filter`, `safe_search` (Vertex AI Search),
                `google_search=True` with `dynamic_retrieval_threshold`; generation:
                `model_id`, `temperature`, `top_p`, `top_k`, `seed`, `max_output_tokens`,
                `frequency_penalty`, `presence_penalty`, `language_code`; `user_labels`.
        """
        call = calls.unary(self._config, "GenerateGroundedContent", prompt, **options)
        return self._run(call, timeout, metadata, retry)

    def stream_generate_grounded_content(
        self,
        prompt: str | Sequence[TurnLike] | message.Message | Iterable[message.Message],
        *,
        timeout: float | None = None,
        metadata: MetadataLike | None = None,
        retry: RetryArgument = CLIENT_RETRY,
        **options: Any,
    ) -> Iterator[GenerateResult]:
        """Streams an answer as it is generated: yields one `GenerateResult` per piece.

        `prompt` and `options` are those of `generate_grounded_content`; or pass requests
        for the bidirectional form: a list (works over gRPC and REST) or an iterator that
        produces requests while responses are read (gRPC only).
        """
        plan = calls.stream_generate_grounded_content(self._config, prompt, **options)
        plan = with_call_metadata(plan, metadata)
        attempts = self._attempts(
            plan.method,
            first_request(plan),
            plan.metadata,
            timeout,
            retry,
            streaming=True,
            interactive=plan.interactive,
        )
        try:
            with attempts:
                transport = self._transport(plan.method.api)
                while True:
                    try:
                        for response in transport.stream(
                            plan.method,
                            plan.requests,
                            timeout=attempts.start(transport),
                            metadata=attempts.metadata,
                        ):
                            yield plan.finish(attempts.got(response))
                        break
                    except GroundwireError as error:
                        time.sleep(attempts.wait_after(error))
        except GroundwireError as error:
            raise self._explained(error, None) from error.__cause__

    def check_grounding_many(
        self,
        requests: Iterable[message.Message | Mapping[str, Any]],
        *,
        concurrency: int = DEFAULT_CONCURRENCY,
        rate: float | None = None,
        citation_threshold: float | None = None,
        enable_claim_level_score: bool | None = None,
        timeout: float | None = None,
        metadata: MetadataLike | None = None,
        retry: RetryArgument = CLIENT_RETRY,
        max_connection_failures: int | None = DEFAULT_MAX_CONNECTION_FAILURES,
    ) -> Batch[CheckGroundingResult]:
        """Checks many answers concurrently; yields one outcome per input, in input order.

        >>> with GroundingClient("my-project") as client:               # doctest: +SKIP
        ...     for outcome in client.check_grounding_many(records, rate=50):
        ...         print(outcome.index, outcome.error or outcome.result.support_score)

        Args:
            requests: any iterable, read lazily (at most `2 * concurrency` items are held):
                `CheckGroundingRequest`s, or mappings of `check_grounding`'s arguments
                (`answer_candidate` or its synonym `answer`, `facts`, `citation_threshold`,
                ...) with an optional `id`. A bad item gets an outcome with an
                `InvalidArgument` error; the others go on.
            concurrency: the most items in progress at once. The batch lowers it (halves)
                when the server throttles (RESOURCE_EXHAUSTED, 429) and raises it again
                by one per window of successes.
            rate: at most this many attempts per second (a token bucket); None: no limit.
            citation_threshold: for mapping items that give none.
            enable_claim_level_score: for mapping items that give none.
            timeout: each item's overall deadline, retries included (default: the client's).
            metadata: extra metadata sent with every call.
            retry: the retry policy of each item (default: the client's; None: one attempt).
                The batch retries itself, honouring RetryInfo / Retry-After, so it sees
                every attempt: interceptors see each attempt as a call of its own.
            max_connection_failures: after this many attempts in a row that could make no
                connection, iterating raises `Unavailable` ("cannot reach ...") instead of
                every item waiting out its deadline; None never gives up early.

        Returns a `groundwire.batch.Batch`: iterate it for `BatchOutcome`s (`index`,
        `result`, `error`, `attempts`, `id`); its `concurrency` and `throttled_seconds`
        say how the server's throttling slowed it. Close it (or use `with`) to stop early.
        """
        return self._many(
            "CheckGrounding",
            requests,
            {
                "citation_threshold": citation_threshold,
                "enable_claim_level_score": enable_claim_level_score,
            },
            concurrency=concurrency,
            rate=rate,
            timeout=timeout,
            metadata=metadata,
            retry=retry,
            max_connection_failures=max_connection_failures,
        )

    def corroborate_content_many(
        self,
        requests: Iterable[message.Message | Mapping[str, Any]],
        *,
        concurrency: int = DEFAULT_CONCURRENCY,
        rate: float | None = None,
        citation_threshold: float | None = None,
        timeout: float | None = None,
        metadata: MetadataLike | None = None,
        retry: RetryArgument = CLIENT_RETRY,
        max_connection_failures: int | None = DEFAULT_MAX_CONNECTION_FAILURES,
    ) -> Batch[CorroborationResult]:
        """Corroborates many contents concurrently; one outcome per input, in input order.

        Items are `CorroborateContentRequest`s or mappings of `corroborate_content`'s
        arguments (`content`, or `answer_candidate` / `answer`, `facts`,
        `citation_threshold`) with an optional `id`; everything else is as in
        `check_grounding_many`.
        """
        return self._many(
            "CorroborateContent",
            requests,
            {"citation_threshold": citation_threshold},
            concurrency=concurrency,
            rate=rate,
            timeout=timeout,
            metadata=metadata,
            retry=retry,
            max_connection_failures=max_connection_failures,
        )

    # -- plumbing ----------------------------------------------------------------------------

    def _many(
        self, rpc: Rpc, requests: Iterable[object], defaults: Mapping[str, Any], **options: Any
    ) -> Batch[Any]:
        """A `Batch` of `rpc` calls, each attempt one call without retries: the `*_many` body."""

        def send(call: calls.Call[Any], timeout: float, metadata: MetadataLike | None) -> Any:
            return self._run(call, timeout, metadata, None)

        plan, settings, where = self._batch(rpc, defaults, **options)
        return Batch(requests, plan, send, settings, where)

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

    def _run(
        self,
        call: calls.Call[ResultT],
        timeout: float | None,
        metadata: MetadataLike | None,
        retry: RetryArgument,
    ) -> ResultT:
        """One unary call with the user's per-call options; the result read from its answer."""
        if metadata:
            call = with_call_metadata(call, metadata)
        attempts = self._attempts(call.method, call.request, call.metadata, timeout, retry)
        try:
            with attempts:
                transport = self._transport(call.method.api)
                while True:
                    try:
                        response = transport.unary(
                            call.method,
                            call.request,
                            timeout=attempts.start(transport),
                            metadata=attempts.metadata,
                        )
                        break
                    except GroundwireError as error:
                        time.sleep(attempts.wait_after(error))
                attempts.got(response)
        except GroundwireError as error:
            raise self._explained(error, call.request) from error.__cause__
        return call.finish(response)

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
