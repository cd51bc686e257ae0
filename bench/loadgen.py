"""A load-generator process for the emulator: many blocking calls of the small request at once.

`python -m bench.loadgen GRPC_ADDRESS` prints `{"ready": ...}`, then answers each command line
(`{"inflight": 8, "warmup": 0.5, "seconds": 3}`) as `bench.worker` does. Several of these
processes run together, each with its own connection, so a server whose worker processes share
a port (SO_REUSEPORT spreads connections, not calls) gets calls on every worker.
"""

from __future__ import annotations

import json
import sys
from dataclasses import asdict

from bench import workload
from bench.worker import run_threads


def main(grpc_address: str) -> None:
    """Calls the emulator at `grpc_address` for each command read from standard input."""
    from groundwire import GroundingClient

    small = workload.small()
    facts = [(fact.text, fact.attributes) for fact in small.facts]
    with GroundingClient(workload.PROJECT, transport="grpc", endpoint=grpc_address) as client:
        client.check_grounding(small.answer, facts)
        print(json.dumps({"ready": grpc_address}), flush=True)
        for line in sys.stdin:
            command = json.loads(line)
            window = run_threads(
                lambda: client.check_grounding(small.answer, facts),
                command["inflight"],
                command["warmup"],
                command["seconds"],
            )
            print(json.dumps(asdict(window)), flush=True)


if __name__ == "__main__":
    main(sys.argv[1])
