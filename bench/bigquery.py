"""The BigQuery remote-function endpoint's throughput beside `check_grounding_many`, same rows.

Against one `groundwire serve` emulator process (gRPC on loopback). The endpoint runs as
`groundwire bigquery-endpoint` (uvicorn, real HTTP) in a process of its own; this process
plays BigQuery, sending pre-encoded requests of 50 or 500 rows, `PARALLEL` calls at once.
Beside it, a process of its own runs the same rows through `AsyncGroundingClient.
check_grounding_many`, the same `PARALLEL` batches of the same size at once, and reads each
result as the endpoint's reply does (`check_record`: claims, offsets, citations; a result's
views are lazy, so reading none would skip work the endpoint must do). CPU per row
counts the process that holds the groundwire client: the endpoint's (HTTP, JSON, batch,
gRPC), or the direct process's (batch, gRPC); neither the emulator's nor BigQuery's.
"""

from __future__ import annotations

import asyncio
import json
import socket
import sys
import time
from typing import Any

from bench import procs

BATCH_SIZES = (50, 500)
PARALLEL = 4
FACTS = [
    "Paris is the capital of France and its largest city.",
    "The Seine flows through Paris before reaching the English Channel.",
    "Lyon lies at the confluence of the Rhône and the Saône.",
]


def rows(count: int) -> list[list[Any]]:
    """`count` rows as BigQuery sends them: `[answer, facts]`."""
    kinds = (
        "Row {n}: Paris is the capital of France. The Seine flows through Paris.",
        "Row {n}: Lyon lies on the Rhône. The moon is made of cheese.",
        "Row {n}: The Seine reaches the English Channel after Paris.",
    )
    return [[kinds[n % 3].format(n=n), FACTS] for n in range(count)]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _wait_for_port(port: int, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:  # bounded by the deadline
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1.0):
                return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"the endpoint did not listen on port {port} within {timeout:.0f} s")


async def _send_all(url: str, bodies: list[bytes], parallel: int) -> int:
    """Sends every body, `parallel` at once; returns the replies counted (all must be 200)."""
    import httpx

    queue = list(reversed(bodies))
    replies = 0

    async def sender(http: httpx.AsyncClient) -> None:
        nonlocal replies
        while queue:
            body = queue.pop()
            answer = await http.post(
                url, content=body, headers={"content-type": "application/json"}
            )
            if answer.status_code != 200:
                raise RuntimeError(
                    f"the endpoint answered {answer.status_code}: {answer.text[:200]}"
                )
            found = answer.json()["replies"]
            if any("error" in reply for reply in found):
                raise RuntimeError("a row got an error")
            replies += len(found)

    limits = httpx.Limits(max_connections=parallel)
    async with httpx.AsyncClient(timeout=300.0, limits=limits) as http:
        await asyncio.gather(*(sender(http) for _ in range(parallel)))
    return replies


def _bodies(all_rows: list[list[Any]], size: int) -> list[bytes]:
    return [
        json.dumps({"requestId": f"r{start}", "calls": all_rows[start : start + size]}).encode()
        for start in range(0, len(all_rows), size)
    ]


def _endpoint_run(url: str, pid: int, all_rows: list[list[Any]], size: int) -> dict[str, float]:
    bodies = _bodies(all_rows, size)
    before = procs.cpu_seconds(pid)
    started = time.perf_counter()
    replies = asyncio.run(_send_all(url, bodies, PARALLEL))
    seconds = time.perf_counter() - started
    cpu = procs.cpu_seconds(pid) - before
    if replies != len(all_rows):
        raise RuntimeError(f"{replies} replies for {len(all_rows)} rows")
    return {"rows_per_second": len(all_rows) / seconds, "cpu_us_per_row": 1e6 * cpu / replies}


def _direct_run(direct: procs.Child, size: int, count: int) -> dict[str, float]:
    direct.send(json.dumps({"size": size, "rows": count}))
    found: dict[str, float] = json.loads(direct.read_line(timeout=300.0))
    return found


def measure(row_count: int = 3000, repeats: int = 2) -> dict[str, Any]:
    """Rows per second and CPU µs per row, endpoint and direct, at 50 and 500 rows per call."""
    server = procs.start(
        [procs.PYTHON, "-m", "groundwire.cli", "serve", "--grpc-port", "0", "--http-port", "0"],
        ready=r"gRPC \S+, REST",
    )
    endpoint = direct = None
    try:
        grpc_address, http_url = procs.addresses(server.ready_line)
        port = _free_port()
        endpoint = procs.start(
            [
                *(procs.PYTHON, "-m", "groundwire.cli", "bigquery-endpoint"),
                *("--endpoint", grpc_address, "--rest-endpoint", http_url),
                *("--port", str(port), "--log-level", "warning"),
            ],
            ready=r"serving the BigQuery remote function",
        )
        _wait_for_port(port)
        direct = procs.start(
            [procs.PYTHON, "-m", "bench.bigquery", grpc_address, http_url], ready=r'"ready"'
        )
        url = f"http://127.0.0.1:{port}/"
        all_rows = rows(row_count)
        _endpoint_run(url, endpoint.pid, all_rows[:200], 50)  # warm: connections, clients
        _direct_run(direct, 50, 200)
        results: dict[str, Any] = {"rows": row_count, "parallel": PARALLEL, "sizes": {}}
        for size in BATCH_SIZES:
            best_endpoint: dict[str, float] = {}
            best_direct: dict[str, float] = {}
            for _ in range(repeats):  # alternated, so that both see the same machine
                run = _endpoint_run(url, endpoint.pid, all_rows, size)
                if run["rows_per_second"] > best_endpoint.get("rows_per_second", 0.0):
                    best_endpoint = run
                run = _direct_run(direct, size, row_count)
                if run["rows_per_second"] > best_direct.get("rows_per_second", 0.0):
                    best_direct = run
            results["sizes"][str(size)] = {
                "endpoint": best_endpoint,
                "direct": best_direct,
                "ratio": best_endpoint["rows_per_second"] / best_direct["rows_per_second"],
            }
        return results
    finally:
        for child in (direct, endpoint, server):
            if child is not None:
                child.stop()


async def _direct(client: Any, size: int, count: int) -> int:
    """`count` rows as `size`-row batches through `check_grounding_many`, PARALLEL at once."""
    from groundwire.features.records import check_record

    all_rows = rows(count)
    batches = [all_rows[start : start + size] for start in range(0, count, size)]
    done = 0

    async def runner() -> None:
        nonlocal done
        while batches:
            batch = batches.pop()
            items = [{"answer_candidate": answer, "facts": facts} for answer, facts in batch]
            async with client.check_grounding_many(items) as many:
                async for outcome in many:
                    if outcome.error is not None:
                        raise RuntimeError(f"a row failed: {outcome.error.code.name}")
                    check_record(outcome.result)
                    done += 1

    await asyncio.gather(*(runner() for _ in range(PARALLEL)))
    return done


def _serve_direct(grpc_address: str, http_url: str) -> None:
    """The direct contender's process: one client, one batch run per command line."""
    from groundwire.client.aio import AsyncGroundingClient

    async def main() -> None:
        client = AsyncGroundingClient(
            "bench-project", endpoint=grpc_address, rest_endpoint=http_url
        )
        loop = asyncio.get_running_loop()
        print(json.dumps({"ready": True}), flush=True)
        async with client:
            while True:  # one command per line, until stdin closes
                line = await loop.run_in_executor(None, sys.stdin.readline)
                if not line:
                    return
                command = json.loads(line)
                started_cpu, started = time.process_time(), time.perf_counter()
                done = await _direct(client, command["size"], command["rows"])
                seconds = time.perf_counter() - started
                cpu = time.process_time() - started_cpu
                found = {"rows_per_second": done / seconds, "cpu_us_per_row": 1e6 * cpu / done}
                print(json.dumps(found), flush=True)

    asyncio.run(main())


if __name__ == "__main__":
    _serve_direct(sys.argv[1], sys.argv[2])
