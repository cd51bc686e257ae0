"""AsyncGroundingClient: the asyncio client, on grpc.aio and an async HTTP client."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from google.protobuf import message

from groundwire._base import ClientBase
from groundwire.core import calls
from groundwire.core.errors import ClientClosed, GroundwireError, WrongEventLoop
from groundwire.core.requests import FactLike, TurnLike
from groundwire.core.results import CheckGroundingResult, CorroborationResult, GenerateResult
from groundwire.transports import lifetime

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
    ) -> CheckGroundingResult:
        """Checks how well `facts` support `answer_candidate` (see the sync client)."""
        call = calls.check_grounding(
            self._config,
            answer_candidate,
            facts,
            citation_threshold=citation_threshold,
            enable_claim_level_score=enable_claim_level_score,
            user_labels=user_labels,
            grounding_config=grounding_config,
        )
        return call.finish(await self._unary(call, timeout))

    async def corroborate_content(
        self,
        content: str | message.Message,
        facts: Iterable[FactLike] = (),
        *,
        citation_threshold: float | None = None,
        timeout: float | None = None,
    ) -> CorroborationResult:
        """Scores how well `facts` corroborate `content` (see the sync client)."""
        call = calls.corroborate_content(
            self._config, content, facts, citation_threshold=citation_threshold
        )
        return call.finish(await self._unary(call, timeout))

    async def generate_grounded_content(
        self,
        prompt: str | Sequence[TurnLike] | message.Message,
        *,
        timeout: float | None = None,
        **options: Any,
    ) -> GenerateResult:
        """Generates an answer grounded in the given sources (see the sync client)."""
        call = calls.generate_grounded_content(self._config, prompt, **options)
        return call.finish(await self._unary(call, timeout))

    async def stream_generate_grounded_content(
        self,
        prompt: Any,
        *,
        timeout: float | None = None,
        **options: Any,
    ) -> AsyncIterator[GenerateResult]:
        """Streams an answer as it is generated (see the sync client).

        For the live bidirectional form, `prompt` may also be an async iterator of requests.
        """
        if hasattr(prompt, "__aiter__"):
            plan = calls.live_stream(self._config, prompt)
        else:
            plan = calls.stream_generate_grounded_content(self._config, prompt, **options)
        async for response in self._stream(plan, timeout):
            yield plan.finish(response)

    async def _transport(self, api: str) -> AsyncTransport:
        loop = asyncio.get_running_loop()
        if loop is not self._loop or self._forks != lifetime.forks:
            for stale in self._move_to(loop):
                await stale.close()
        found = self._transports.get(api)
        if found is not None and not self._settings.closed:
            return found
        async with self._lock:
            if self._settings.closed:
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

    async def _unary(self, call: calls.Call[Any], timeout: float | None) -> message.Message:
        retrying = self._settings.retrying(timeout)
        transport = await self._transport(call.method.api)
        while True:
            try:
                return await transport.unary(
                    call.method,
                    call.request,
                    timeout=retrying.attempt_timeout(),
                    metadata=call.metadata,
                )
            except GroundwireError as error:
                delay = retrying.after_failure(error)
                if delay is None:
                    raise
                await asyncio.sleep(delay)

    async def _stream(
        self, plan: calls.StreamCall, timeout: float | None
    ) -> AsyncIterator[message.Message]:
        retrying = self._settings.retrying(timeout)
        transport = await self._transport(plan.method.api)
        while True:
            received = False
            try:
                async for response in transport.stream(
                    plan.method,
                    plan.requests,
                    timeout=retrying.attempt_timeout(),
                    metadata=plan.metadata,
                ):
                    received = True
                    yield response
                return
            except GroundwireError as error:
                delay = retrying.after_failure(
                    error, response_received=received, requests_consumed=plan.interactive
                )
                if delay is None:
                    raise
                await asyncio.sleep(delay)

    async def close(self) -> None:
        """Closes the connections; the client cannot be used afterwards."""
        async with self._lock:
            self._settings.closed = True
            transports, self._transports = list(self._transports.values()), {}
        for transport in transports:
            await transport.close()

    async def __aenter__(self) -> AsyncGroundingClient:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()
