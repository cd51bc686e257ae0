"""AsyncGroundingClient: the asyncio client, on grpc.aio and an async HTTP client."""

from __future__ import annotations

import asyncio
from collections.abc import (
    AsyncIterable,
    AsyncIterator,
    Iterable,
    Mapping,
    Sequence,
)
from typing import TYPE_CHECKING, Any, TypeVar

from google.protobuf import message

from groundwire._base import CLIENT_RETRY, ClientBase, RetryArgument, with_call_metadata
from groundwire.aio_batch import AsyncBatch
from groundwire.core import calls
from groundwire.core.batch import DEFAULT_CONCURRENCY, DEFAULT_MAX_CONNECTION_FAILURES, Rpc
from groundwire.core.errors import ClientClosed, GroundwireError, WrongEventLoop
from groundwire.core.metadata import MetadataLike
from groundwire.core.requests import FactLike, TurnLike
from groundwire.core.results import CheckGroundingResult, CorroborationResult, GenerateResult
from groundwire.grounding_stream import AsyncGroundingStream
from groundwire.interceptors import first_request
from groundwire.transports import lifetime

ResultT = TypeVar("ResultT")

if TYPE_CHECKING:
    from groundwire.transports.base import AsyncTransport


class AsyncGroundingClient(ClientBase):
    """The asyncio twin of `GroundingClient`: same arguments, same results, awaitable.

    >>> async with AsyncGroundingClient("my-project") as client:    # doctest: +SKIP
    ...     result = await client.check_grounding("Tokyo is in Japan.", ["Tokyo, Japan."])

    See `groundwire.GroundingClient` for what each argument does.
    """

    _forks = 0
    """`lifetime.forks` when this client's transports were made: another count means a fork."""
    _loop: asyncio.AbstractEventLoop | None = None
    """The event loop the transports belong to (None: none made yet)."""

    @staticmethod
    def _new_lock() -> asyncio.Lock:
        return asyncio.Lock()

    async def check_grounding(
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
        """Checks how well `facts` support `answer_candidate` (see the sync client)."""
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
        return await self._run(call, timeout, metadata, retry)

    async def corroborate_content(
        self,
        content: str | message.Message,
        facts: Iterable[FactLike] = (),
        *,
        citation_threshold: float | None = None,
        timeout: float | None = None,
        metadata: MetadataLike | None = None,
        retry: RetryArgument = CLIENT_RETRY,
    ) -> CorroborationResult:
        """Scores how well `facts` corroborate `content` (see the sync client)."""
        call = calls.unary(
            self._config,
            "CorroborateContent",
            content,
            facts=facts,
            citation_threshold=citation_threshold,
        )
        return await self._run(call, timeout, metadata, retry)

    async def generate_grounded_content(
        self,
        prompt: str | Sequence[TurnLike] | message.Message,
        *,
        timeout: float | None = None,
        metadata: MetadataLike | None = None,
        retry: RetryArgument = CLIENT_RETRY,
        **options: Any,
    ) -> GenerateResult:
        """Generates an answer grounded in the given sources (see the sync client)."""
        call = calls.unary(self._config, "GenerateGroundedContent", prompt, **options)
        return await self._run(call, timeout, metadata, retry)

    async def stream_generate_grounded_content(
        self,
        prompt: Any,
        *,
        timeout: float | None = None,
        metadata: MetadataLike | None = None,
        retry: RetryArgument = CLIENT_RETRY,
        **options: Any,
    ) -> AsyncIterator[GenerateResult]:
        """Streams an answer as it is generated (see the sync client).

        For the live bidirectional form, `prompt` may also be an async iterator of requests.
        """
        if hasattr(prompt, "__aiter__"):
            plan = calls.live_stream(self._config, prompt)
        else:
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
                transport = await self._transport(plan.method.api)
                while True:
                    try:
                        async for response in transport.stream(
                            plan.method,
                            plan.requests,
                            timeout=attempts.start(transport),
                            metadata=attempts.metadata,
                        ):
                            yield plan.finish(attempts.got(response))
                        break
                    except GroundwireError as error:
                        await asyncio.sleep(attempts.wait_after(error))
        except GroundwireError as error:
            raise self._explained(error, None) from error.__cause__

    def check_grounding_many(
        self,
        requests: Iterable[message.Message | Mapping[str, Any]]
        | AsyncIterable[message.Message | Mapping[str, Any]],
        *,
        concurrency: int = DEFAULT_CONCURRENCY,
        rate: float | None = None,
        citation_threshold: float | None = None,
        enable_claim_level_score: bool | None = None,
        timeout: float | None = None,
        metadata: MetadataLike | None = None,
        retry: RetryArgument = CLIENT_RETRY,
        max_connection_failures: int | None = DEFAULT_MAX_CONNECTION_FAILURES,
    ) -> AsyncBatch[CheckGroundingResult]:
        """Checks many answers concurrently: `async for` one outcome per input, in order.

        >>> async for outcome in client.check_grounding_many(records):  # doctest: +SKIP
        ...     print(outcome.index, outcome.error or outcome.result.support_score)

        `requests` may also be an async iterable; the rest is as in the sync client's
        `check_grounding_many`. The items run as tasks, at most `concurrency` at once.
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
        requests: Iterable[message.Message | Mapping[str, Any]]
        | AsyncIterable[message.Message | Mapping[str, Any]],
        *,
        concurrency: int = DEFAULT_CONCURRENCY,
        rate: float | None = None,
        citation_threshold: float | None = None,
        timeout: float | None = None,
        metadata: MetadataLike | None = None,
        retry: RetryArgument = CLIENT_RETRY,
        max_connection_failures: int | None = DEFAULT_MAX_CONNECTION_FAILURES,
    ) -> AsyncBatch[CorroborationResult]:
        """Corroborates many contents concurrently (see the sync client's method)."""
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

    def _many(
        self,
        rpc: Rpc,
        requests: Iterable[object] | AsyncIterable[object],
        defaults: Mapping[str, Any],
        **options: Any,
    ) -> AsyncBatch[Any]:
        """An `AsyncBatch` of `rpc` calls, each attempt one call without retries."""

        async def send(call: calls.Call[Any], timeout: float, metadata: MetadataLike | None) -> Any:
            return await self._run(call, timeout, metadata, None)

        plan, settings, where = self._batch(rpc, defaults, **options)
        return AsyncBatch(requests, plan, send, settings, where)

    def _bound_transport(self, api: str) -> AsyncTransport | None:
        """The transport for `api` made in this loop and process, when there is one (no wait)."""
        if (
            asyncio.get_running_loop() is self._loop
            and self._forks == lifetime.forks
            and not self._closed
        ):
            return self._transports.get(api)
        return None

    async def _transport(self, api: str) -> AsyncTransport:
        loop = asyncio.get_running_loop()
        if loop is not self._loop or self._forks != lifetime.forks:
            for stale in self._move_to(loop):
                await stale.close()
        found = self._transports.get(api)
        if found is not None and not self._closed:
            return found
        async with self._lock:
            if self._closed:
                raise ClientClosed("this client is closed; create a new one")
            found = self._transports.get(api)
            if found is None:
                # Finding credentials may read files or ask a metadata server: off the loop.
                found = self._transports[api] = await asyncio.to_thread(
                    self._settings.make_transport,
                    api,
                    self._config.location,
                    self._config.quota_project,
                    asynchronous=True,
                )
            return found

    def _move_to(self, loop: asyncio.AbstractEventLoop) -> list[AsyncTransport]:
        """Binds the client to `loop`; returns the transports of the previous loop to close.

        Connections belong to the event loop that opened them. Once that loop has stopped
        (`asyncio.run` again), the next loop gets new ones; while it still runs (another
        thread), `WrongEventLoop`. In a forked child the parent's transports are left
        untouched (see `transports.lifetime`) and nothing is returned to close.
        """
        with lifetime.lock:
            if self._forks != lifetime.forks:
                for inherited in self._transports.values():
                    lifetime.leave_behind(inherited)
                self._transports = {}
                self._settings.random.seed()
                self._forks, self._loop = lifetime.forks, None
            previous = self._loop
            if previous is loop:
                return []
            if previous is not None and self._transports and previous.is_running():
                raise WrongEventLoop(
                    "this AsyncGroundingClient's connections belong to another event loop, "
                    "which is still running: create one client per event loop (or thread)"
                )
            stale, self._transports = list(self._transports.values()), {}
            self._lock = asyncio.Lock()
            self._loop = loop
            return stale

    async def _run(
        self,
        call: calls.Call[ResultT],
        timeout: float | None,
        metadata: MetadataLike | None,
        retry: RetryArgument,
    ) -> ResultT:
        """One unary call with the user's per-call options; the result read from its answer.

        A transport already bound to this loop is taken without awaiting.
        """
        if metadata:
            call = with_call_metadata(call, metadata)
        api = call.method.api
        attempts = self._attempts(call.method, call.request, call.metadata, timeout, retry)
        try:
            with attempts:
                transport = self._bound_transport(api) or await self._transport(api)
                while True:
                    try:
                        response = await transport.unary(
                            call.method,
                            call.request,
                            timeout=attempts.start(transport),
                            metadata=attempts.metadata,
                        )
                        break
                    except GroundwireError as error:
                        await asyncio.sleep(attempts.wait_after(error))
                attempts.got(response)
        except GroundwireError as error:
            raise self._explained(error, call.request) from error.__cause__
        return call.finish(response)

    async def close(self) -> None:
        """Closes the connections; the client cannot be used afterwards."""
        async with self._lock:
            self._closed = True
            transports, self._transports = list(self._transports.values()), {}
        for transport in transports:
            await transport.close()

    async def __aenter__(self) -> AsyncGroundingClient:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()

    def check_grounding_stream(
        self,
        text_chunks: Iterable[str | bytes] | AsyncIterable[str | bytes],
        facts: Iterable[FactLike] = (),
        **options: Any,
    ) -> AsyncGroundingStream:
        """Checks a text as it streams in (`async for`); see the sync client's method."""
        return AsyncGroundingStream(self.check_grounding, text_chunks, facts, **options)
