"""The public calls, written once: their arguments read into what both clients then drive.

`GroundingClient` and `AsyncGroundingClient` have the same methods with the same arguments;
each is written here once, as a builder that reads the arguments into a call ready to send
(no I/O). A client's method is its builder bound to one of that client's drivers (`sync`,
`sync_stream`, `awaitable`, ...), which hold the few lines that wait.
"""

from __future__ import annotations

import functools
from collections.abc import (
    AsyncIterable,
    AsyncIterator,
    Callable,
    Coroutine,
    Iterable,
    Iterator,
    Mapping,
    Sequence,
)
from typing import Any, Concatenate, ParamSpec, Protocol, TypeVar, cast

from google.protobuf import message

from groundwire._base import CLIENT_RETRY, ClientBase, RetryArgument, with_call_metadata
from groundwire.aio_batch import AsyncBatch
from groundwire.batch import Batch
from groundwire.core import calls
from groundwire.core.attempts import Attempts
from groundwire.core.batch import (
    DEFAULT_CONCURRENCY,
    DEFAULT_MAX_CONNECTION_FAILURES,
    BatchSettings,
    Many,
    Planned,
)
from groundwire.core.metadata import MetadataLike
from groundwire.core.requests import FactLike, TurnLike
from groundwire.core.results import CheckGroundingResult, CorroborationResult, GenerateResult
from groundwire.interceptors import first_request

P = ParamSpec("P")
ResultT = TypeVar("ResultT")
Unary = tuple[calls.Call[ResultT], float | None, MetadataLike | None, RetryArgument]
"""A unary call ready to drive, with the user's per-call `timeout`, `metadata` and `retry`."""
Stream = tuple[calls.StreamCall, float | None, MetadataLike | None, RetryArgument]
"""A streaming call ready to drive, with the user's per-call options."""
BatchItems = Iterable[message.Message | Mapping[str, Any]]


class Methods(Protocol):
    """The clients' public methods, each written once: its arguments read into a call to drive.

    Neither client inherits them: each binds them to its own drivers (`blocking`, ...), so
    that one signature and one docstring serve both.
    """

    _config: calls.ClientConfig
    _asynchronous: bool

    def _batch(
        self, rpc: str, defaults: Mapping[str, Any], **options: Any
    ) -> tuple[Callable[[object], Planned], BatchSettings, str]: ...

    def check_grounding(
        self,
        /,
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
    ) -> Unary[CheckGroundingResult]:
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
        return call, timeout, metadata, retry

    def corroborate_content(
        self,
        /,
        content: str | message.Message,
        facts: Iterable[FactLike] = (),
        *,
        citation_threshold: float | None = None,
        timeout: float | None = None,
        metadata: MetadataLike | None = None,
        retry: RetryArgument = CLIENT_RETRY,
    ) -> Unary[CorroborationResult]:
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
        return call, timeout, metadata, retry

    def generate_grounded_content(
        self,
        /,
        prompt: str | Sequence[TurnLike] | message.Message,
        *,
        timeout: float | None = None,
        metadata: MetadataLike | None = None,
        retry: RetryArgument = CLIENT_RETRY,
        **options: Any,
    ) -> Unary[GenerateResult]:
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
        return call, timeout, metadata, retry

    def stream_generate_grounded_content(
        self,
        /,
        prompt: str | Sequence[TurnLike] | message.Message | Iterable[message.Message] | Any,
        *,
        timeout: float | None = None,
        metadata: MetadataLike | None = None,
        retry: RetryArgument = CLIENT_RETRY,
        **options: Any,
    ) -> Stream:
        """Streams an answer as it is generated: yields one `GenerateResult` per piece.

        `prompt` and `options` are those of `generate_grounded_content`; or pass requests
        for the bidirectional form: a list (works over gRPC and REST) or an iterator that
        produces requests while responses are read (gRPC only); the asyncio client also
        takes an async iterator of requests.
        """
        if self._asynchronous and hasattr(prompt, "__aiter__"):
            call = calls.live_stream(self._config, cast("AsyncIterable[Any]", prompt))
        else:
            call = calls.stream_generate_grounded_content(self._config, prompt, **options)
        return call, timeout, metadata, retry

    def check_grounding_many(
        self,
        /,
        requests: BatchItems | AsyncIterable[message.Message | Mapping[str, Any]],
        *,
        concurrency: int = DEFAULT_CONCURRENCY,
        rate: float | None = None,
        citation_threshold: float | None = None,
        enable_claim_level_score: bool | None = None,
        timeout: float | None = None,
        metadata: MetadataLike | None = None,
        retry: RetryArgument = CLIENT_RETRY,
        max_connection_failures: int | None = DEFAULT_MAX_CONNECTION_FAILURES,
    ) -> Many[CheckGroundingResult]:
        """Checks many answers concurrently; yields one outcome per input, in input order.

        >>> with GroundingClient("my-project") as client:               # doctest: +SKIP
        ...     for outcome in client.check_grounding_many(records, rate=50):
        ...         print(outcome.index, outcome.error or outcome.result.support_score)

        Args:
            requests: any iterable, read lazily (at most `2 * concurrency` items are held):
                `CheckGroundingRequest`s, or mappings of `check_grounding`'s arguments
                (`answer_candidate` or its synonym `answer`, `facts`, `citation_threshold`,
                ...) with an optional `id`. A bad item gets an outcome with an
                `InvalidArgument` error; the others go on. The asyncio client also takes an
                async iterable, and runs the items as tasks.
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

        Returns a `groundwire.batch.Batch` (`groundwire.aio_batch.AsyncBatch`: `async for`):
        iterate it for `BatchOutcome`s (`index`, `result`, `error`, `attempts`, `id`); its
        `concurrency` and `throttled_seconds` say how the server's throttling slowed it.
        Close it (or use `with`) to stop early.
        """
        defaults = {
            "citation_threshold": citation_threshold,
            "enable_claim_level_score": enable_claim_level_score,
        }
        batch = (concurrency, rate, timeout, metadata, retry, max_connection_failures)
        return _many(self, "CheckGrounding", requests, defaults, *batch)

    def corroborate_content_many(
        self,
        /,
        requests: BatchItems | AsyncIterable[message.Message | Mapping[str, Any]],
        *,
        concurrency: int = DEFAULT_CONCURRENCY,
        rate: float | None = None,
        citation_threshold: float | None = None,
        timeout: float | None = None,
        metadata: MetadataLike | None = None,
        retry: RetryArgument = CLIENT_RETRY,
        max_connection_failures: int | None = DEFAULT_MAX_CONNECTION_FAILURES,
    ) -> Many[CorroborationResult]:
        """Corroborates many contents concurrently; one outcome per input, in input order.

        Items are `CorroborateContentRequest`s or mappings of `corroborate_content`'s
        arguments (`content`, or `answer_candidate` / `answer`, `facts`,
        `citation_threshold`) with an optional `id`; everything else is as in
        `check_grounding_many`.
        """
        batch = (concurrency, rate, timeout, metadata, retry, max_connection_failures)
        defaults = {"citation_threshold": citation_threshold}
        return _many(self, "CorroborateContent", requests, defaults, *batch)


def _many(
    client: Methods,
    rpc: str,
    requests: Any,
    defaults: Mapping[str, Any],
    concurrency: int,
    rate: float | None,
    timeout: float | None,
    metadata: MetadataLike | None,
    retry: RetryArgument,
    max_connection_failures: int | None,
) -> Many[Any]:
    """A batch of `rpc` calls to run: what each `*_many` method reads its arguments into."""
    plan, settings, where = client._batch(
        rpc,
        defaults,
        concurrency=concurrency,
        rate=rate,
        timeout=timeout,
        metadata=metadata,
        retry=retry,
        max_connection_failures=max_connection_failures,
    )
    return Many(requests, plan, settings, where)


# -- the clients' methods: a builder bound to a driver --------------------------------------


def blocking(
    build: Callable[Concatenate[Any, P], Unary[ResultT]],
) -> Callable[Concatenate[Any, P], ResultT]:
    """The sync client's method of `build`: runs the call it reads (`_run`), returns the result."""

    @functools.wraps(build)
    def method(self: Any, /, *args: P.args, **kwargs: P.kwargs) -> ResultT:
        result: ResultT = self._run(*build(self, *args, **kwargs))
        return result

    return method


def awaitable(
    build: Callable[Concatenate[Any, P], Unary[ResultT]],
) -> Callable[Concatenate[Any, P], Coroutine[Any, Any, ResultT]]:
    """The asyncio client's method of `build`: a coroutine that awaits the call it reads."""

    @functools.wraps(build)
    async def method(self: Any, /, *args: P.args, **kwargs: P.kwargs) -> ResultT:
        result: ResultT = await self._run(*build(self, *args, **kwargs))
        return result

    return method


def iterating(
    build: Callable[Concatenate[Any, P], Stream],
) -> Callable[Concatenate[Any, P], Iterator[GenerateResult]]:
    """The sync client's streaming method: a generator, reading its arguments when first read."""

    @functools.wraps(build)
    def method(self: Any, /, *args: P.args, **kwargs: P.kwargs) -> Iterator[GenerateResult]:
        yield from self._stream(*build(self, *args, **kwargs))

    return method


def async_iterating(
    build: Callable[Concatenate[Any, P], Stream],
) -> Callable[Concatenate[Any, P], AsyncIterator[GenerateResult]]:
    """The asyncio client's streaming method: an async generator of the pieces."""

    @functools.wraps(build)
    async def method(
        self: Any, /, *args: P.args, **kwargs: P.kwargs
    ) -> AsyncIterator[GenerateResult]:
        async for result in self._stream(*build(self, *args, **kwargs)):
            yield result

    return method


def batched(
    build: Callable[Concatenate[Any, P], Many[ResultT]],
) -> Callable[Concatenate[Any, P], Batch[ResultT]]:
    """The sync client's `*_many` method: a `Batch` whose attempts the client sends."""

    @functools.wraps(build)
    def method(self: Any, /, *args: P.args, **kwargs: P.kwargs) -> Batch[ResultT]:
        return Batch(build(self, *args, **kwargs), self._send)

    return method


def async_batched(
    build: Callable[Concatenate[Any, P], Many[ResultT]],
) -> Callable[Concatenate[Any, P], AsyncBatch[ResultT]]:
    """The asyncio client's `*_many` method: an `AsyncBatch` whose attempts run as tasks."""

    @functools.wraps(build)
    def method(self: Any, /, *args: P.args, **kwargs: P.kwargs) -> AsyncBatch[ResultT]:
        return AsyncBatch(build(self, *args, **kwargs), self._send)

    return method


def prepare(
    client: ClientBase,
    call: Any,
    timeout: float | None,
    metadata: MetadataLike | None,
    retry: RetryArgument,
) -> Attempts:
    """The plan of one call with the user's per-call options, its interceptors started.

    The plan holds the call (`Attempts.call`), which carries the user's extra `metadata`.
    """
    if metadata:
        call = with_call_metadata(call, metadata)
    if type(call) is calls.StreamCall:
        attempts = client._attempts(
            call.method,
            first_request(call),
            call.metadata,
            timeout,
            retry,
            streaming=True,
            interactive=call.interactive,
        )
    else:
        attempts = client._attempts(call.method, call.request, call.metadata, timeout, retry)
    attempts.call = call
    return attempts
