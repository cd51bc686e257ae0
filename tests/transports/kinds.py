"""Either kind of pool or transport, called the blocking way, so that one test holds for both.

An asyncio one runs in an event loop of its own, kept for the object's life: each call runs
in it to its end, and `pause` lets the loop see what happened meanwhile.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Coroutine
from types import ModuleType
from typing import Any, Literal, TypeVar

from groundwire.transports import http1, http1_aio

Kind = Literal["sync", "async"]
KINDS: list[Kind] = ["sync", "async"]
HEADERS = {"content-type": "application/json"}

T = TypeVar("T")


class Loop:
    """Runs what an asyncio object returns to its end; a blocking object's results pass through."""

    def __init__(self, kind: Kind) -> None:
        self.kind = kind
        self._runner = asyncio.Runner() if kind == "async" else None

    def run(self, result: Coroutine[Any, Any, T] | T) -> T:
        if self._runner is None or not isinstance(result, Coroutine):
            return result  # type: ignore[return-value]
        return self._runner.run(result)

    def pause(self, seconds: float) -> None:
        if self._runner is None:
            time.sleep(seconds)
        else:
            self._runner.run(asyncio.sleep(seconds))

    def close(self) -> None:
        if self._runner is not None:
            self._runner.close()


class Pool(Loop):
    """A `ConnectionPool` or an `AsyncConnectionPool` to 127.0.0.1:`port`."""

    def __init__(self, kind: Kind, port: int, **options: Any) -> None:
        super().__init__(kind)
        self.module: ModuleType = http1 if kind == "sync" else http1_aio
        pool_class = http1.ConnectionPool if kind == "sync" else http1_aio.AsyncConnectionPool
        self.pool: Any = pool_class("http", "127.0.0.1", port, **options)

    def post(self, path: str, timeout: float = 3.0) -> Any:
        """Sends a POST to `path` and returns the response, its body unread."""
        if self.kind == "sync":
            return self.pool.request("POST", path, b"{}", HEADERS, timeout)
        return self.run(self._post(path, timeout))

    def read(self, path: str, timeout: float = 3.0) -> bytes:
        """The body of a POST to `path`, read whole."""
        return self.run(self.post(path, timeout).read())

    def chunks(self, response: Any) -> list[bytes]:
        """A response's body, read chunk by chunk."""
        if self.kind == "sync":
            return list(response.chunks())
        return self.run(_collect(response.chunks()))

    def first_chunk_only(self, response: Any) -> None:
        """Reads a response's first chunk, then gives up on the rest."""
        chunks = response.chunks()
        if self.kind == "sync":
            next(chunks)
            chunks.close()
        else:
            self.run(anext(chunks))
            self.run(chunks.aclose())

    def close(self) -> None:
        self.run(self.pool.close())
        super().close()

    async def _post(self, path: str, timeout: float) -> Any:
        deadline = asyncio.get_running_loop().time() + timeout
        return await self.pool.request("POST", path, b"{}", HEADERS, deadline)


async def _collect(items: AsyncIterator[T]) -> list[T]:
    return [item async for item in items]
