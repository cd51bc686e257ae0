"""Calls with an outer bound of their own, and the request every reliability test sends.

A client that hangs must fail the test, not the test run: `bounded` runs the call on a daemon
thread and reports it as hung when it outlives the bound.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from groundwire import GroundingClient, RetryPolicy
from groundwire.contract.calls import TransportName

PROJECT = "reliability-project"
ANSWER = "Tokyo is the capital of Japan. 富士山は日本一高い山です。 Paris is in Germany."
FACTS = [
    ("Tokyo is the capital city of Japan.", {"author": "Atlas"}),
    ("富士山は日本で一番高い山で、標高は3776メートルです。", {"title": "富士山"}),
    ("Paris is the capital of France.", {}),
]


@dataclass
class Outcome:
    """What a bounded call did: its result or error, how long it took, whether it hung."""

    result: Any = None
    error: BaseException | None = None
    seconds: float = 0.0
    hung: bool = False


def bounded(call: Callable[[], Any], bound: float) -> Outcome:
    """Runs `call` on a daemon thread; `hung` is True if it had not returned after `bound` s."""
    outcome = Outcome()

    def run() -> None:
        started = time.monotonic()
        try:
            outcome.result = call()
        except BaseException as error:  # reported to the test, whatever it is
            outcome.error = error
        outcome.seconds = time.monotonic() - started

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(bound)
    outcome.hung = thread.is_alive()
    return outcome


def client_for(
    transport: TransportName,
    grpc_address: str,
    http_url: str,
    *,
    timeout: float,
    retry: RetryPolicy | None,
) -> GroundingClient:
    """A client on one protocol (no fallback) pointed at a loopback server."""
    return GroundingClient(
        PROJECT,
        transport=transport,
        endpoint=grpc_address,
        rest_endpoint=http_url,
        timeout=timeout,
        retry=retry,
    )


def claims_of(result: Any) -> list[tuple[int, int, str, tuple[int, ...]]]:
    """What must not differ between two answers to the same request."""
    return [
        (claim.start, claim.end, claim.text, tuple(claim.citation_indices))
        for claim in result.claims
    ]
