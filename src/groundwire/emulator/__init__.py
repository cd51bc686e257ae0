"""The offline emulator of Google's grounding APIs, in-process for a test or a notebook.

`with emulator() as emu:` starts the gRPC server and the REST gateway on free loopback ports
and stops them on exit. Importing this package is cheap: gRPC and the HTTP server load only
when an emulator starts. `Limits` bounds what one client may hold (timeouts, connections,
streams). `Emulator.stub`, `reset` and `requests` steer it through its admin API;
`Emulator.activity` counts what its servers are doing, for a test to wait on; `judge=` puts a
scorer of the user's own in the engine's place (`groundwire.emulator.judges`). For a
standalone server, see `groundwire.emulator.server.serve`.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from groundwire.emulator.limits import DEFAULT_JUDGE_CONCURRENCY, DEFAULT_JUDGE_TIMEOUT

if TYPE_CHECKING:
    from groundwire.client.aio import AsyncGroundingClient
    from groundwire.client.sync import GroundingClient
    from groundwire.emulator.control import ControlOptions
    from groundwire.emulator.faults import FaultPolicy
    from groundwire.emulator.judges import UserJudge
    from groundwire.emulator.limits import Limits
    from groundwire.emulator.replay import ReplayOptions
    from groundwire.emulator.serving import Activity

_ADMIN_TIMEOUT_SECONDS = 30.0
EMULATOR_PROJECT = "emulator-project"
"""The project the clients from `Emulator.client` use; the emulator accepts any project."""


@dataclass(frozen=True)
class Emulator:
    """A running emulator's addresses, and clients already pointed at it.

    Example:
        >>> with emulator() as emu:  # doctest: +SKIP
        ...     emu.client().check_grounding("Paris is in France.", facts=["Paris is in France."])
    """

    grpc_address: str
    http_url: str
    activity: Activity | None = field(default=None, repr=False, compare=False)
    """What its servers are doing, to wait on (`Activity.wait_until`); None for one elsewhere.

    Example:
        >>> with emulator() as emu:
        ...     emu.activity.wait_until(lambda now: now.calls_serving == 0, timeout=10.0)
        True
    """

    def client(self, **kwargs: Any) -> GroundingClient:
        """A `GroundingClient` for this emulator; `kwargs` go to its constructor."""
        from groundwire.client.sync import GroundingClient

        return GroundingClient(**self._client_arguments(kwargs))

    def async_client(self, **kwargs: Any) -> AsyncGroundingClient:
        """An `AsyncGroundingClient` for this emulator; `kwargs` go to its constructor."""
        from groundwire.client.aio import AsyncGroundingClient

        return AsyncGroundingClient(**self._client_arguments(kwargs))

    def env(self) -> dict[str, str]:
        """The environment variables that point groundwire clients (and subprocesses) here.

        Example:
            >>> Emulator("127.0.0.1:5001", "http://127.0.0.1:5002").env()["GROUNDWIRE_EMULATOR_HOST"]
            '127.0.0.1:5001'
        """
        return {
            "GROUNDWIRE_EMULATOR_HOST": self.grpc_address,
            "GROUNDWIRE_EMULATOR_REST": self.http_url,
        }

    def stub(self, method: str, **fields: Any) -> dict[str, Any]:
        """Registers a stub (the admin API's JSON, with Python keyword names); returns it.

        `fields` are the stub's other fields: `match`, `response`, `error`, `stream`,
        `sequence`, `times`, `priority`, and `delay_ms` for `delayMs`. A malformed stub raises
        `InvalidArgument` naming the bad field.

        Example:
            >>> with emulator() as emu:
            ...     stub = emu.stub("CheckGrounding", response={"supportScore": 0.25})
            ...     emu.client().check_grounding("Paris is in France.", facts=[]).support_score
            0.25
        """
        if "delay_ms" in fields:
            fields["delayMs"] = fields.pop("delay_ms")
        answer: dict[str, Any] = self._admin("POST", "stubs", {"method": method, **fields})
        return answer

    def remove_stub(self, stub_id: str) -> None:
        """Removes one stub by its `id`; `NotFound` when there is none."""
        self._admin("DELETE", f"stubs/{stub_id}")

    def stubs(self) -> list[dict[str, Any]]:
        """The registered stubs, in the order they are tried, each with `answered`."""
        answer: list[dict[str, Any]] = self._admin("GET", "stubs")["stubs"]
        return answer

    def requests(self, method: str | None = None, *, after: int = 0) -> list[dict[str, Any]]:
        """The journal's requests, oldest first: of `method` if given, numbered past `after`.

        Each is a dict: `number`, `method`, `grpcMethod`, `api`, `version`, `transport`,
        `time`, `metadata` (secrets removed; `metadataTruncated` when headers were dropped)
        and `request` (Google's JSON). Every page of the journal is read, up to the call
        that was last when the first page was.

        Example:
            >>> with emulator() as emu:
            ...     _ = emu.client().check_grounding("Rome is old.", facts=["Rome is old."])
            ...     [entry["request"]["answerCandidate"] for entry in emu.requests()]
            ['Rome is old.']
        """
        from urllib.parse import urlencode

        query = urlencode({"after": after, **({"method": method} if method else {})})
        page = self._admin("GET", f"requests?{query}")
        entries: list[dict[str, Any]] = page["requests"]
        last = page["last"]
        while "nextPageToken" in page and int(page["nextPageToken"]) < last:
            page = self._admin("GET", f"requests?{query}&pageToken={page['nextPageToken']}")
            entries.extend(page["requests"])
        return [entry for entry in entries if entry["number"] <= last]

    def last_request_number(self) -> int:
        """The journal number of the last call received so far (0 before any): see `requests`."""
        last: int = self._admin("GET", "requests?after=0&method=-")["last"]
        return last

    def reset(self) -> None:
        """Removes every stub and clears the journal."""
        self._admin("DELETE", "stubs")
        self._admin("DELETE", "requests")

    def _admin(self, verb: str, path: str, body: Any = None) -> Any:
        """One call to the admin API on loopback; its error as a `GroundwireError`."""
        import json
        import urllib.error
        import urllib.request

        from groundwire.wire.error_codecs import error_from_http

        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(
            f"{self.http_url}/groundwire/v1/{path}",
            data=data,
            method=verb,
            headers={"Content-Type": "application/json"},
        )
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
        try:
            with opener.open(request, timeout=_ADMIN_TIMEOUT_SECONDS) as answer:
                return json.loads(answer.read())
        except urllib.error.HTTPError as error:
            raise error_from_http(error.code, error.read(), dict(error.headers)) from None

    def _client_arguments(self, overrides: dict[str, Any]) -> dict[str, Any]:
        return {
            "project": EMULATOR_PROJECT,
            "location": "global",
            "endpoint": self.grpc_address,
            "rest_endpoint": self.http_url,
            **overrides,
        }


@contextmanager
def emulator(
    *,
    faults: FaultPolicy | None = None,
    limits: Limits | None = None,
    control: ControlOptions | None = None,
    replay: str | os.PathLike[str] | ReplayOptions | None = None,
    judge: UserJudge | str | None = None,
    judge_timeout: float = DEFAULT_JUDGE_TIMEOUT,
    judge_concurrency: int = DEFAULT_JUDGE_CONCURRENCY,
) -> Iterator[Emulator]:
    """Runs both servers on free loopback ports for the duration of the `with` block.

    `control` sets the journal's bounds, CORS origins and stream pacing (the admin API is on:
    the emulator listens on loopback), and can record (`control.cassette`). `replay` answers
    from a cassette (a path: recorded pacing, unmatched calls fail; or `ReplayOptions`);
    an unreadable cassette raises `ConfigurationError` naming its line. `judge` (a function
    ``judge(claim, passages) -> list[float]``, plain or async, or ``"module:callable"``)
    scores claims in the engine's place; it has `judge_timeout` seconds per request and
    `judge_concurrency` calls in flight (see `docs/judge.md`).

    Example:
        >>> with emulator() as emu:
        ...     emu.grpc_address.startswith("127.0.0.1:")
        True
    """
    from groundwire.emulator.control import local_state
    from groundwire.emulator.in_process import start_servers
    from groundwire.emulator.judges import Judge

    if replay is not None:
        import dataclasses

        from groundwire.emulator.control import ControlOptions
        from groundwire.emulator.replay import ReplayOptions

        if not isinstance(replay, ReplayOptions):
            replay = ReplayOptions(replay)
        control = dataclasses.replace(control or ControlOptions(), cassette=replay)
    state = local_state(control)
    scorer = None
    if judge is not None:
        scorer = Judge(judge, timeout=judge_timeout, concurrency=judge_concurrency)
    servers = start_servers(
        "127.0.0.1", 0, 0, faults=faults, limits=limits, control=state, judge=scorer
    )
    try:
        yield Emulator(servers.grpc_address, servers.http_url, servers.activity)
    finally:
        servers.stop(grace=1.0)


__all__ = ["EMULATOR_PROJECT", "Emulator", "emulator"]
