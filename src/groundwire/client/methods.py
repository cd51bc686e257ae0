"""The public calls, written once: their arguments read into what both clients then drive."""

from __future__ import annotations

import dataclasses
import functools
import inspect
import types
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
from typing import (
    TYPE_CHECKING,
    Any,
    Concatenate,
    Generic,
    ParamSpec,
    Protocol,
    TypeVar,
    cast,
    overload,
)

from google.protobuf import message

from groundwire.client.base import ClientBase
from groundwire.client.interceptors import first_request
from groundwire.client.settings import CLIENT_RETRY, RetryArgument
from groundwire.contract import calls
from groundwire.contract.attempts import NO_ONE, Attempts
from groundwire.contract.errors import bad_request
from groundwire.contract.metadata import MetadataLike, with_metadata
from groundwire.contract.requests import FactLike, TurnLike
from groundwire.contract.results import CheckGroundingResult, CorroborationResult, GenerateResult
from groundwire.features.batch import (
    DEFAULT_CONCURRENCY,
    DEFAULT_MAX_CONNECTION_FAILURES,
    BatchSettings,
    Many,
    Planned,
)
from groundwire.features.split import (
    DEFAULT_MAX_CALLS,
    SplitPlan,
    fact_arguments,
    merge_checks,
    merge_corroborations,
    plan_split,
)

if TYPE_CHECKING:
    from groundwire.features.batch_tasks import AsyncBatch
    from groundwire.features.batch_threads import Batch

P = ParamSpec("P")
ResultT = TypeVar("ResultT")
SyncT = TypeVar("SyncT")
AsyncT = TypeVar("AsyncT")


class Unary(Generic[ResultT]):
    """What a unary method's driver gives: the result (sync), or an awaitable of it (asyncio)."""


class Streamed:
    """What a streaming method's driver gives: the pieces' iterator, or async iterator."""


class Batched(Generic[ResultT]):
    """What a `*_many` method's driver gives: a `Batch`, or an `AsyncBatch`."""


BatchItems = Iterable[message.Message | Mapping[str, Any]]


class Methods(Protocol):
    """The clients' public methods, each written once for both clients (`Api` binds them)."""

    _config: calls.ClientConfig
    _asynchronous: bool

    def _batch(
        self, rpc: str, defaults: Mapping[str, Any], **options: Any
    ) -> tuple[Callable[[object], Planned], BatchSettings, str]: ...

    def _run(self, call: calls.Call[ResultT], *options: Any) -> Unary[ResultT]: ...

    def _stream(self, call: calls.StreamCall, *options: Any) -> Streamed: ...

    def _many(self, many: Many[ResultT]) -> Batched[ResultT]: ...

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
        split: bool = False,
        max_calls: int = DEFAULT_MAX_CALLS,
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
            split: input past the API's limits is split into calls sent as a batch and merged
                into one `SplitCheckResult` (docs: "Long answers and large evidence"), with
                claim-level scores on (v1, v1beta); without it, it is an `InvalidArgument`.
            max_calls: with `split`, a split needing more calls is refused before sending.

        Returns the claims with `start`/`end` that slice `answer_candidate` as a Python
        string, the UTF-8 offsets the API sent, UTF-16 offsets, and resolved citations.
        """
        if split:
            options = {
                "citation_threshold": citation_threshold,
                "user_labels": user_labels,
                "grounding_config": grounding_config,
            }
            if self._config.api_version != "v1alpha":
                options["enable_claim_level_score"] = True
            plan = plan_split(
                _split_text(answer_candidate), facts, self._config.api_version, max_calls
            )
            send = (timeout, metadata, retry)
            return _split(self, "CheckGrounding", plan, "answer_candidate", options, *send)
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
        /,
        content: str | message.Message,
        facts: Iterable[FactLike] = (),
        *,
        citation_threshold: float | None = None,
        timeout: float | None = None,
        metadata: MetadataLike | None = None,
        retry: RetryArgument = CLIENT_RETRY,
        split: bool = False,
        max_calls: int = DEFAULT_MAX_CALLS,
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
            split: input past the API's limits (4,096 tokens of content, 10,000 characters
                a fact, 200 facts) is split and merged into one `SplitCorroborationResult`.
            max_calls: with `split`, a split needing more calls is refused before sending.
        """
        if split:
            plan = plan_split(_split_text(content), facts, "v1", max_calls)
            options = {"citation_threshold": citation_threshold}
            send = (timeout, metadata, retry)
            return _split(self, "CorroborateContent", plan, "content", options, *send)
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
        return self._run(call, timeout, metadata, retry)

    def stream_generate_grounded_content(
        self,
        /,
        prompt: str | Sequence[TurnLike] | message.Message | Iterable[message.Message] | Any,
        *,
        timeout: float | None = None,
        metadata: MetadataLike | None = None,
        retry: RetryArgument = CLIENT_RETRY,
        **options: Any,
    ) -> Streamed:
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
        return self._stream(call, timeout, metadata, retry)

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
    ) -> Batched[CheckGroundingResult]:
        """Checks many answers concurrently; yields one outcome per input, in input order.

        >>> with GroundingClient("my-project") as client:               # doctest: +SKIP
        ...     for outcome in client.check_grounding_many(records, rate=50):
        ...         print(outcome.index, outcome.error or outcome.result.support_score)

        Args:
            requests: an iterable read lazily (an async one too in the asyncio client) of
                `CheckGroundingRequest`s or mappings of `check_grounding`'s arguments
                (`answer_candidate` or `answer`, `facts`, ...) with an optional `id`. A bad
                item's outcome has an `InvalidArgument` error; the others go on.
            concurrency: the most items in progress at once; halved while the server
                throttles (RESOURCE_EXHAUSTED, 429), raised by one per window of successes.
            rate: at most this many attempts per second (a token bucket); None: no limit.
            citation_threshold: for mapping items that give none.
            enable_claim_level_score: for mapping items that give none.
            timeout: each item's overall deadline, retries included (default: the client's).
            metadata: extra metadata sent with every call.
            retry: each item's retry policy (default: the client's; None: one attempt). The
                batch retries itself, so interceptors see each attempt as a call of its own.
            max_connection_failures: after this many attempts in a row made no connection,
                iterating raises `Unavailable` rather than wait out every deadline; None: never.

        Returns a `groundwire.batch.Batch` (`groundwire.aio_batch.AsyncBatch`: `async for`)
        of `BatchOutcome`s; close it (or use `with`) to stop early.
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
    ) -> Batched[CorroborationResult]:
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
    client: Methods, rpc: str, requests: Any, defaults: Mapping[str, Any], *options: Any
) -> Batched[Any]:
    """A batch of `rpc` calls to run; `options` in the order of `_BATCH_OPTIONS`."""
    named = dict(zip(_BATCH_OPTIONS, options, strict=True))
    return client._many(Many(requests, *client._batch(rpc, defaults, **named)))


def _split_text(answer_candidate: object) -> str:
    if not isinstance(answer_candidate, str):
        raise bad_request(
            [("answer_candidate", "split=True needs the answer as a string, not a ready request")],
            "split=True needs the answer as a string",
        )
    return answer_candidate


def _split(
    client: Methods,
    rpc: str,
    plan: SplitPlan,
    text_key: str,
    options: Mapping[str, Any],
    *send: Any,
) -> Any:
    """The planned calls run as one batch and merged; the first failure fails the whole check."""
    items = [
        {text_key: part.text, "facts": fact_arguments(group), **options}
        for part, group in plan.requests()
    ]
    batch_options = (DEFAULT_CONCURRENCY, None, *send, DEFAULT_MAX_CONNECTION_FAILURES)
    batch: Any = _many(client, rpc, items, {}, *batch_options)
    merge = merge_checks if rpc == "CheckGrounding" else merge_corroborations
    if client._asynchronous:
        return _merged_async(plan, batch, merge)
    with batch:
        return merge(plan, [_result_of(outcome) for outcome in batch])


async def _merged_async(plan: SplitPlan, batch: Any, merge: Callable[..., Any]) -> Any:
    async with batch:
        return merge(plan, [_result_of(outcome) async for outcome in batch])


def _result_of(outcome: Any) -> Any:
    if outcome.error is not None:
        raise outcome.error
    return outcome.result


_BATCH_OPTIONS = ("concurrency", "rate", "timeout", "metadata", "retry", "max_connection_failures")


class Method(Generic[P, SyncT, AsyncT]):
    """A method of both clients, declared in `Api` and replaced in each by `__init_subclass__`."""

    def __init__(self, build: Callable[..., Any], kind: str) -> None:
        self.build = build
        self.kind = kind

    @overload
    def __get__(self, client: None, owner: type) -> Method[P, SyncT, AsyncT]: ...
    @overload
    def __get__(self, client: AsyncApi, owner: type) -> Callable[P, AsyncT]: ...
    @overload
    def __get__(self, client: Api, owner: type) -> Callable[P, SyncT]: ...
    def __get__(self, client: Api | None, owner: type) -> Any:
        return self  # each client class has its own function in place of it


def unary(
    build: Callable[Concatenate[Any, P], Unary[ResultT]],
) -> Method[P, ResultT, Coroutine[Any, Any, ResultT]]:
    """A unary method: the sync client returns its result, the asyncio one awaits it."""
    return Method(build, "unary")


def streaming(
    build: Callable[Concatenate[Any, P], Streamed],
) -> Method[P, Iterator[GenerateResult], AsyncIterator[GenerateResult]]:
    """A streaming method: a generator of the pieces (an async one in the asyncio client)."""
    return Method(build, "stream")


def batch(
    build: Callable[Concatenate[Any, P], Batched[ResultT]],
) -> Method[P, Batch[ResultT], AsyncBatch[ResultT]]:
    """A `*_many` method: a `Batch` of outcomes (an `AsyncBatch` in the asyncio client)."""
    return Method(build, "many")


def _awaitable(build: Callable[..., Any]) -> Callable[..., Any]:

    async def method(self: Any, /, *args: Any, **kwargs: Any) -> Any:
        return await build(self, *args, **kwargs)

    return functools.wraps(build)(method)


def _iterating(build: Callable[..., Any]) -> Callable[..., Any]:

    def method(self: Any, /, *args: Any, **kwargs: Any) -> Iterator[Any]:
        yield from build(self, *args, **kwargs)

    return functools.wraps(build)(method)


def _async_iterating(build: Callable[..., Any]) -> Callable[..., Any]:

    async def method(self: Any, /, *args: Any, **kwargs: Any) -> AsyncIterator[Any]:
        async for piece in build(self, *args, **kwargs):
            yield piece

    return functools.wraps(build)(method)


def _itself(build: Callable[..., Any]) -> Callable[..., Any]:
    return build


_BINDERS = {
    ("unary", False): _itself,
    ("unary", True): _awaitable,
    ("stream", False): _iterating,
    ("stream", True): _async_iterating,
    ("many", False): _itself,
    ("many", True): _itself,
}
"""What each kind of method becomes in the sync (False) and the asyncio (True) client."""


class Api(ClientBase):
    """Both clients' public methods; a subclass sets `_asynchronous` and defines the drivers."""

    _asynchronous = False

    check_grounding = unary(Methods.check_grounding)
    corroborate_content = unary(Methods.corroborate_content)
    generate_grounded_content = unary(Methods.generate_grounded_content)
    stream_generate_grounded_content = streaming(Methods.stream_generate_grounded_content)
    check_grounding_many = batch(Methods.check_grounding_many)
    corroborate_content_many = batch(Methods.corroborate_content_many)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """Puts each method's function on the client class, so that a call finds it at once."""
        super().__init_subclass__(**kwargs)
        if cls.__module__ == __name__:  # `AsyncApi` is no client: each client gets its own
            return
        for name, method in vars(Api).items():
            if isinstance(method, Method) and getattr(cls, name) is method:
                binder = _BINDERS[method.kind, cls._asynchronous]
                setattr(cls, name, _method_of(cls, name, binder(method.build), method))


class AsyncApi(Api):
    """The asyncio client's side of `Api`: `AsyncGroundingClient` extends it.

    Its own class so that the methods' types can name the asyncio client without importing it.
    """

    _asynchronous = True


def _method_of(cls: type[Api], name: str, function: Any, method: Method[Any, Any, Any]) -> Any:
    """A copy of `function` (no frame added) named and typed as `cls`'s own, for `help()`."""
    copy = types.FunctionType(
        function.__code__, function.__globals__, name, function.__defaults__, function.__closure__
    )
    copy.__kwdefaults__ = function.__kwdefaults__
    copy.__doc__ = method.build.__doc__
    copy.__qualname__ = f"{cls.__qualname__}.{name}"
    copy.__module__ = cls.__module__
    builds = method.build.__annotations__["return"]  # e.g. "Unary[CheckGroundingResult]"
    returns = _RETURNS[method.kind][cls._asynchronous].format(builds.partition("[")[2][:-1])
    signature = inspect.signature(method.build).replace(return_annotation=returns)
    setattr(copy, "__signature__", signature)  # noqa: B010 (FunctionType declares none)
    return copy


_RETURNS = {
    "unary": ("{}", "{}"),
    "stream": ("Iterator[GenerateResult]", "AsyncIterator[GenerateResult]"),
    "many": ("Batch[{}]", "AsyncBatch[{}]"),
}
"""What a method of each kind returns in the sync and the asyncio client."""


_CallT = TypeVar("_CallT", calls.Call[Any], calls.StreamCall)


def with_call_metadata(call: _CallT, metadata: MetadataLike | None) -> _CallT:
    """`call`, carrying the user's extra `metadata` after (or instead of) the client's."""
    if not metadata:
        return call
    return dataclasses.replace(call, metadata=with_metadata(call.metadata, metadata))


def prepare(
    client: ClientBase,
    call: Any,
    timeout: float | None,
    metadata: MetadataLike | None,
    retry: RetryArgument,
) -> Attempts:
    """The plan of one call with the user's per-call options, its interceptors started."""
    if metadata:
        call = with_call_metadata(call, metadata)
    chain = client._chain
    if chain is None:
        return client._settings.retrying(timeout, retry, NO_ONE, call, client._explained)
    streaming = type(call) is calls.StreamCall
    request = first_request(call) if streaming else call.request
    events = chain.start(call.method, request, call.metadata, streaming=streaming)
    try:
        return client._settings.retrying(timeout, retry, events, call, client._explained)
    except BaseException as failure:  # the interceptors hear that the call could not start
        events.finish(None, failure)
        raise
