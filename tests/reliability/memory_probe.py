"""Run as a program: REST calls to one hostile server in a fresh process, reporting peak memory.

`python -m tests.reliability.memory_probe URL` makes a unary and a streaming call with each
client (sync and asyncio) and prints one JSON line: each call's error type and how far the
process's peak resident memory grew past what it was before the first call.
"""

from __future__ import annotations

import asyncio
import json
import resource
import sys

from groundwire import AsyncGroundingClient, GroundingClient

PROJECT = "memory-probe"
TIMEOUT = 20.0


def peak_mib() -> float:
    """The process's peak resident memory so far, in MiB (Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def sync_calls(url: str) -> list[str]:
    """The error type of a sync unary call, then of a sync streaming call."""
    outcomes = []
    with GroundingClient(
        PROJECT, transport="rest", rest_endpoint=url, timeout=TIMEOUT, retry=None
    ) as client:
        for call in (
            lambda: client.check_grounding("a", ["b"]),
            lambda: list(client.stream_generate_grounded_content("a")),
        ):
            try:
                call()
                outcomes.append("ok")
            except Exception as error:  # reported, whatever it is
                outcomes.append(type(error).__name__)
    return outcomes


async def async_calls(url: str) -> list[str]:
    """The error type of an async unary call, then of an async streaming call."""
    outcomes = []
    async with AsyncGroundingClient(
        PROJECT, transport="rest", rest_endpoint=url, timeout=TIMEOUT, retry=None
    ) as client:
        try:
            await client.check_grounding("a", ["b"])
            outcomes.append("ok")
        except Exception as error:  # reported, whatever it is
            outcomes.append(type(error).__name__)
        try:
            [piece async for piece in client.stream_generate_grounded_content("a")]
            outcomes.append("ok")
        except Exception as error:  # reported, whatever it is
            outcomes.append(type(error).__name__)
    return outcomes


def main(url: str) -> None:
    """Makes the four calls and prints the JSON report."""
    before = peak_mib()
    outcomes = sync_calls(url) + asyncio.run(async_calls(url))
    print(json.dumps({"outcomes": outcomes, "growth_mib": peak_mib() - before}))


if __name__ == "__main__":
    main(sys.argv[1])
