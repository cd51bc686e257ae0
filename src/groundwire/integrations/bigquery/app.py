"""The ASGI application BigQuery calls: reads a call's rows, runs them as one batch, replies.

Plain ASGI (no framework, no server import): `groundwire bigquery-endpoint` serves it with
uvicorn, and any ASGI server can. One client per process (per API version asked for), made
on the first request and closed at the lifespan's shutdown (or `aclose()`).
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, cast

from groundwire.contract.errors import ConfigurationError, GroundwireError
from groundwire.contract.spec import SPECS
from groundwire.features.batch import DEFAULT_CONCURRENCY, BatchOutcome
from groundwire.integrations.bigquery.protocol import (
    CallOptions,
    KeptReplies,
    RemoteCall,
    RequestError,
    Row,
    needs_split,
    read_request,
    read_row,
    reply,
    row_key,
    still_transient,
)

if TYPE_CHECKING:
    from groundwire.client.aio import AsyncGroundingClient

logger = logging.getLogger("groundwire.bigquery")

DEFAULT_TIME_BUDGET = 120.0
"""Seconds a call's rows may take, retries included, before the call answers 503 or 429.

Well below BigQuery's own limit on one HTTP call, so that BigQuery hears a retryable status
rather than a timeout."""

DEFAULT_MAX_BODY_BYTES = 16 * 1024 * 1024
"""The largest request body read (BigQuery's requests are at most about 10 MB); larger: 413."""

DEFAULT_BODY_TIMEOUT = 30.0
"""Seconds a request's body may take to arrive; slower: 408, and the connection is closed.

BigQuery sends a call's body at once; a peer dripping bytes would otherwise hold a connection
(and the memory of its body so far) for as long as it likes."""

_JSON = [(b"content-type", b"application/json; charset=utf-8")]
Outcomes = list["BatchOutcome[Any] | None"]


class RemoteFunctionApp:
    """An ASGI app answering BigQuery remote-function calls on `POST /`.

    Each call's rows go through the client's batch API at once (`check_grounding_many` or
    `corroborate_content_many`, as `userDefinedContext`'s `method` says), with its adaptive
    throttling and per-row retries within `time_budget` seconds; rows past the API's limits
    are split and merged. Use `create_app` to make one.
    """

    def __init__(
        self,
        make_client: Callable[[str | None], AsyncGroundingClient],
        client: AsyncGroundingClient | None,
        *,
        time_budget: float,
        concurrency: int,
        max_body_bytes: int,
        body_timeout: float = DEFAULT_BODY_TIMEOUT,
    ) -> None:
        self._make_client = make_client
        self._given = client
        self._clients: dict[str, AsyncGroundingClient] = {}
        self._lock: asyncio.Lock | None = None
        self._time_budget = time_budget
        self._concurrency = concurrency
        self._max_body_bytes = max_body_bytes
        self._body_timeout = body_timeout
        self._kept = KeptReplies()

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        """Serves one ASGI connection: lifespan events, or one HTTP request."""
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
            return
        if scope["type"] != "http":
            return
        if scope["method"] != "POST" or scope["path"] != "/":
            status = 404 if scope["path"] != "/" else 405
            message = "not found" if status == 404 else "BigQuery calls POST /"
            await _send_json(send, status, {"errorMessage": message})
            return
        started = time.monotonic()
        body = None
        try:
            body = await _read_body(scope, receive, self._max_body_bytes, self._body_timeout)
            status, payload = await self.answer(body)
        except RequestError as error:
            status, payload = error.status, {"errorMessage": str(error)}
        except Exception as error:  # a bug: say so without the rows (they may be in it)
            logger.error("a BigQuery call failed inside the endpoint: %s", type(error).__name__)
            status, payload = 500, {"errorMessage": f"internal error: {type(error).__name__}"}
        # A body left unread (too large, too slow) leaves the connection unusable: close it.
        await _send_json(send, status, payload, close=body is None)
        logger.info("BigQuery call answered %d in %.3f s", status, time.monotonic() - started)

    async def answer(self, body: bytes) -> tuple[int, dict[str, Any]]:
        """The HTTP status and JSON answer to one request body."""
        remote = read_request(body)
        client = await self._client_for(remote.options)
        batch = remote.options.batch
        version = SPECS[batch.rpc].method(client.api_version).version  # what it runs at
        keys = [row_key(remote.options, version, arguments) for arguments in remote.calls]
        kept = [self._kept.get(key) for key in keys]
        throttled: list[bool] = []  # whether a batch of this call saw the service throttle
        outcomes = await self._outcomes(client, remote, version, kept, throttled)
        done: Outcomes = [
            BatchOutcome(index, True, None, 0) if found is not None else outcome
            for index, (found, outcome) in enumerate(zip(kept, outcomes, strict=True))
        ]
        transient = still_transient(done, throttled=any(throttled))
        logger.info(
            "BigQuery request %s: %d rows (%d kept from before), %d row errors%s",
            remote.request_id or "-",
            len(outcomes),
            sum(1 for found in kept if found is not None),
            sum(1 for outcome in outcomes if outcome is not None and outcome.error is not None),
            "" if transient is None else f", answered {transient[0]} to be sent again",
        )
        if transient is not None:
            for key, outcome in zip(keys, outcomes, strict=True):
                if outcome is None or (outcome.error is not None and outcome.error.retryable):
                    continue
                self._kept.keep(key, reply(batch, outcome))
            return transient[0], {"errorMessage": transient[1]}
        # No row is transient, so each has a kept reply or an outcome.
        replies = [
            found if found is not None else reply(batch, cast("BatchOutcome[Any]", outcome))
            for found, outcome in zip(kept, outcomes, strict=True)
        ]
        self._kept.forget(keys)
        return 200, {"replies": replies}

    async def _outcomes(
        self,
        client: AsyncGroundingClient,
        remote: RemoteCall,
        version: str,
        kept: list[dict[str, Any] | None],
        throttled: list[bool],
    ) -> Outcomes:
        """Each row's outcome, in order; None for one kept from before, or left unfinished.

        `throttled` gets whether the batch waited because the service throttled: rows finished
        behind a row still retrying have no outcome yet when the time is up.
        """
        options = remote.options
        outcomes: Outcomes = [None] * len(remote.calls)
        whole: list[Row] = []
        split: list[Row] = []
        for index, arguments in enumerate(remote.calls):
            if kept[index] is not None:
                continue
            try:
                row = read_row(index, arguments)
                (split if needs_split(row, version) else whole).append(row)
            except GroundwireError as error:
                outcomes[index] = BatchOutcome(index, None, error, 0, index)
        work = [self._batch(client, options, whole, outcomes, throttled)]
        work += [self._split(client, options, row, outcomes) for row in split]
        try:
            async with asyncio.timeout(self._time_budget):
                await asyncio.gather(*work)
        except TimeoutError:
            pass  # the rows left without an outcome make the call retryable
        except GroundwireError as error:  # the batch found the service unreachable
            if not error.retryable:
                raise RequestError(
                    f"the grounding service failed: {error.code.name}", 502
                ) from None
        return outcomes

    async def _batch(
        self,
        client: AsyncGroundingClient,
        options: CallOptions,
        rows: list[Row],
        into: Outcomes,
        throttled: list[bool],
    ) -> None:
        if not rows:
            return
        batch = options.batch
        many = getattr(client, batch.many)(
            [row.item(batch) for row in rows],
            concurrency=self._concurrency,
            timeout=self._time_budget,
            **options.batch_options(),
        )
        async with many:
            try:
                async for outcome in many:
                    into[outcome.id] = outcome
            finally:
                throttled.append(many.throttled_seconds > 0)

    async def _split(
        self, client: AsyncGroundingClient, options: CallOptions, row: Row, into: Outcomes
    ) -> None:
        # The single-call method of the batch's RPC (`check_grounding`, `corroborate_content`).
        method = getattr(client, options.batch.many.removesuffix("_many"))
        try:
            result = await method(
                row.text,
                row.facts,
                split=True,
                timeout=self._time_budget,
                **options.batch_options(),
            )
        except GroundwireError as error:
            into[row.index] = BatchOutcome(row.index, None, error, 1, row.index)
        else:
            into[row.index] = BatchOutcome(row.index, result, None, 1, row.index)

    async def _client_for(self, options: CallOptions) -> AsyncGroundingClient:
        """The process's client for the API version the call asks for (made once)."""
        if self._given is not None:
            asked = options.api_version
            if asked is not None and asked != self._given.api_version:
                raise RequestError(
                    f"this endpoint calls API version {self._given.api_version}, not {asked}"
                )
            return self._given
        version = options.api_version or ""
        found = self._clients.get(version)
        if found is not None:
            return found
        if self._lock is None:
            self._lock = asyncio.Lock()
        async with self._lock:
            found = self._clients.get(version)
            if found is None:
                found = self._clients[version] = self._make_client(options.api_version)
            return found

    async def aclose(self) -> None:
        """Closes the clients the app made (not one it was given)."""
        clients, self._clients = list(self._clients.values()), {}
        for client in clients:
            await client.close()

    async def _lifespan(self, receive: Any, send: Any) -> None:
        while True:  # ends with the server's shutdown message
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await self.aclose()
                await send({"type": "lifespan.shutdown.complete"})
                return


async def _read_body(scope: Mapping[str, Any], receive: Any, limit: int, timeout: float) -> bytes:
    """The request body, at most `limit` bytes within `timeout` seconds.

    A `RequestError` otherwise: 413 past the size, 408 past the time (which BigQuery resends).
    """
    too_large = RequestError(f"the request body is larger than {limit:,} bytes", 413)
    for name, value in scope.get("headers", ()):
        if name == b"content-length" and value.isdigit() and int(value) > limit:
            raise too_large
    chunks: list[bytes] = []
    size = 0
    more = True
    try:
        async with asyncio.timeout(timeout):  # the whole body, however it is dripped
            while more:
                message = await receive()
                if message["type"] == "http.disconnect":
                    raise RequestError("the caller went away", 400)
                chunk = message.get("body", b"")
                size += len(chunk)
                if size > limit:
                    raise too_large
                chunks.append(chunk)
                more = bool(message.get("more_body"))
    except TimeoutError:
        raise RequestError(f"the request body took longer than {timeout:g} s", 408) from None
    return b"".join(chunks)


async def _send_json(
    send: Any, status: int, payload: Mapping[str, Any], *, close: bool = False
) -> None:
    body = json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode()
    headers = [*_JSON, (b"content-length", str(len(body)).encode())]
    if close:
        headers.append((b"connection", b"close"))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def create_app(
    client: AsyncGroundingClient | None = None,
    *,
    project: str | None = None,
    location: str = "global",
    time_budget: float = DEFAULT_TIME_BUDGET,
    concurrency: int = DEFAULT_CONCURRENCY,
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
    body_timeout: float = DEFAULT_BODY_TIMEOUT,
    **client_options: Any,
) -> RemoteFunctionApp:
    """The ASGI app of a BigQuery remote function that checks (or corroborates) rows.

    Give it a ready `AsyncGroundingClient`, or the client's arguments (`project`,
    `location`, `api_version`, `endpoint`, `credentials`, ...): the app then makes one client
    per process, for each API version a function's `userDefinedContext` asks for, on its
    first request. Credentials are found by the client's rules (the service's own identity
    on Cloud Run).

    Example:
        >>> app = create_app(project="my-project", time_budget=60.0)
        >>> # uvicorn.run(app, host="127.0.0.1", port=8080)

    Args:
        client: the client to run every call with (the app never closes it).
        project: the Google Cloud project that owns and pays for the calls.
        location: `global` (default), `us`, `eu`; a Vertex AI region for corroborate.
        time_budget: seconds a call's rows may take, retries included; rows still throttled
            or unavailable then make the whole call answer 429 or 503, which BigQuery resends.
        concurrency: the most rows in flight at once per call (the batch lowers it while
            the service throttles).
        max_body_bytes: a larger request body is refused with 413.
        body_timeout: seconds a request's body may take to arrive; a slower one gets 408
            and its connection is closed.
        client_options: the rest go to `AsyncGroundingClient`.
    """
    if not time_budget > 0:
        raise ConfigurationError(f"time_budget must be positive seconds, not {time_budget!r}")
    if not body_timeout > 0:
        raise ConfigurationError(f"body_timeout must be positive seconds, not {body_timeout!r}")
    if max_body_bytes < 1:
        raise ConfigurationError(f"max_body_bytes must be at least 1, not {max_body_bytes!r}")
    default_version = str(client_options.pop("api_version", "v1"))

    def make_client(api_version: str | None) -> AsyncGroundingClient:
        from groundwire.client.aio import AsyncGroundingClient

        if project is None:
            raise ConfigurationError("create_app needs a client or a project")
        version = api_version or default_version
        return AsyncGroundingClient(project, location, api_version=version, **client_options)

    if client is None:
        make_client(None)  # checks the arguments now; it connects only when used
    return RemoteFunctionApp(
        make_client,
        client,
        time_budget=time_budget,
        concurrency=concurrency,
        max_body_bytes=max_body_bytes,
        body_timeout=body_timeout,
    )
