"""AsyncGroundingClient: the asyncio client, on grpc.aio and an async HTTP client."""

from __future__ import annotations

import asyncio
import functools
from collections.abc import AsyncIterable, AsyncIterator, Iterable
from typing import TYPE_CHECKING, Any, TypeVar

from groundwire.client import methods
from groundwire.contract.errors import ClientClosed, GroundwireError, WrongEventLoop
from groundwire.contract.requests import FactLike
from groundwire.contract.results import GenerateResult
from groundwire.features.batch import Many
from groundwire.features.batch_tasks import AsyncBatch
from groundwire.features.grounding_stream import AsyncGroundingStream
from groundwire.transports import lifetime

ResultT = TypeVar("ResultT")

if TYPE_CHECKING:
    from groundwire.transports.base import AsyncTransport


class AsyncGroundingClient(methods.AsyncApi):
    """The asyncio twin of `GroundingClient`: same arguments, same results, awaitable.

    >>> async with AsyncGroundingClient("my-project") as client:    # doctest: +SKIP
    ...     result = await client.check_grounding("Tokyo is in Japan.", ["Tokyo, Japan."])

    See `groundwire.GroundingClient` for what each argument does.
    """

    _forks = 0  # `lifetime.forks` when the transports were made: another count means a fork
    _loop: asyncio.AbstractEventLoop | None = None  # the loop the transports belong to

    @staticmethod
    def _new_lock() -> asyncio.Lock:
        return asyncio.Lock()

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
                    self._make_transport, api, asynchronous=True
                )
            return found

    def _move_to(self, loop: asyncio.AbstractEventLoop) -> list[AsyncTransport]:
        """Binds the client to `loop`; returns the previous loop's transports, to close.

        Connections belong to the loop that opened them: while it still runs (another
        thread), `WrongEventLoop`. A forked child leaves the parent's untouched.
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

    async def _run(self, call: Any, timeout: Any, metadata: Any, retry: Any) -> Any:
        """One unary call: its attempts, then the result read from its answer."""
        with methods.prepare(self, call, timeout, metadata, retry) as plan:
            api = call.method.api
            transport = self._bound_transport(api) or await self._transport(api)
            while True:
                try:
                    response = plan.got(await plan.send(transport))
                    break
                except GroundwireError as error:
                    await asyncio.sleep(plan.wait_after(error))
        return call.finish(response)

    def _many(self, many: Many[ResultT]) -> AsyncBatch[ResultT]:
        """A batch whose items' attempts this client sends (each one call, no retries), as tasks."""
        return AsyncBatch(many, functools.partial(self._run, retry=None))

    async def _stream(
        self, call: Any, timeout: Any, metadata: Any, retry: Any
    ) -> AsyncIterator[GenerateResult]:
        """One streaming call: its pieces as they arrive."""
        with methods.prepare(self, call, timeout, metadata, retry) as plan:
            transport = await self._transport(call.method.api)
            while True:
                try:
                    async for response in plan.stream(transport):
                        yield call.finish(plan.got(response))
                    break
                except GroundwireError as error:
                    await asyncio.sleep(plan.wait_after(error))

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
