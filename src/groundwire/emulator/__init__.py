"""The offline emulator of Google's grounding APIs, in-process for a test or a notebook.

`with emulator() as emu:` starts the gRPC server and the REST gateway on free loopback ports
and stops them on exit. Importing this package is cheap: gRPC and the HTTP server load only
when an emulator starts. `Limits` bounds what one client may hold (timeouts, connections,
streams); `judge=` puts a scorer of the user's own in the engine's place
(`groundwire.emulator.judges`). For a standalone server, see `groundwire.emulator.server.serve`.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from groundwire.aio import AsyncGroundingClient
    from groundwire.client import GroundingClient
    from groundwire.emulator.faults import FaultPolicy
    from groundwire.emulator.judges import UserJudge
    from groundwire.emulator.limits import Limits

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

    def client(self, **kwargs: Any) -> GroundingClient:
        """A `GroundingClient` for this emulator; `kwargs` go to its constructor."""
        from groundwire.client import GroundingClient

        return GroundingClient(**self._client_arguments(kwargs))

    def async_client(self, **kwargs: Any) -> AsyncGroundingClient:
        """An `AsyncGroundingClient` for this emulator; `kwargs` go to its constructor."""
        from groundwire.aio import AsyncGroundingClient

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
    judge: UserJudge | str | None = None,
    judge_timeout: float = 30.0,
    judge_concurrency: int = 4,
) -> Iterator[Emulator]:
    """Runs both servers on free loopback ports for the duration of the `with` block.

    `judge` (a function ``judge(claim, passages) -> list[float]``, plain or async, or
    ``"module:callable"``) scores claims in the engine's place; it has `judge_timeout`
    seconds per request and `judge_concurrency` calls in flight (see `docs/judge.md`).

    Example:
        >>> with emulator() as emu:
        ...     emu.grpc_address.startswith("127.0.0.1:")
        True
    """
    from groundwire.emulator.in_process import start_servers
    from groundwire.emulator.judges import Judge

    scorer = None
    if judge is not None:
        scorer = Judge(judge, timeout=judge_timeout, concurrency=judge_concurrency)
    servers = start_servers("127.0.0.1", 0, 0, faults=faults, limits=limits, judge=scorer)
    try:
        yield Emulator(servers.grpc_address, servers.http_url)
    finally:
        servers.stop(grace=1.0)


__all__ = ["EMULATOR_PROJECT", "Emulator", "emulator"]
