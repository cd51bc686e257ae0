"""`groundwire serve`: both servers until SIGINT or SIGTERM, in this process or as N workers.

`serve` announces both addresses on one line, then the
`export GROUNDWIRE_EMULATOR_HOST=… GROUNDWIRE_EMULATOR_REST=…` line for a shell, and shuts
down cleanly on SIGINT or SIGTERM, letting in-flight calls finish. With `workers > 1` it
spawns that many processes that all listen on the same two ports (SO_REUSEPORT), so the
CPU-bound engine can use more cores (`groundwire.emulator.workers`); when one dies, the others
are stopped and the error names it and why. For servers in the background of the current
process, see `groundwire.emulator.in_process.start_servers`.
"""

from __future__ import annotations

from groundwire.emulator.control import ControlOptions, local_state, shared_state
from groundwire.emulator.faults import FaultPolicy
from groundwire.emulator.in_process import start_servers
from groundwire.emulator.judges import Judge
from groundwire.emulator.limits import Limits
from groundwire.emulator.serving import (
    ReadyCallback,
    announce,
    configure_logging,
    hand_back_large_blocks,
    stop_on_signals,
)
from groundwire.emulator.serving import ServeError as ServeError  # what `serve` raises
from groundwire.emulator.workers import WorkerOptions, serve_workers


def serve(
    host: str = "127.0.0.1",
    grpc_port: int = 50051,
    http_port: int = 8080,
    workers: int = 1,
    faults: FaultPolicy | None = None,
    ready: ReadyCallback | None = None,
    *,
    limits: Limits | None = None,
    log_level: int | None = None,
    control: ControlOptions | None = None,
    judge: Judge | None = None,
) -> None:
    """Serves both protocols until SIGINT or SIGTERM; call it from the main thread.

    Prints one line naming both addresses once they listen, and one `export` line for a
    shell, then calls `ready(grpc_address, http_url)` if given. With `workers > 1`, port 0
    picks a free port before the workers start, and they all share it. `log_level` (e.g.
    `logging.INFO`: one line per request) also applies in the workers. `control` offers the
    admin API, the journal, CORS and stream pacing; with workers, their stubs and journal live
    in a manager process that every worker shares. A `judge` scores claims in the engine's
    place; each worker loads it itself. A taken port raises `PortInUse`; a worker that dies
    raises `ServeError` naming it; a judge that cannot load, `ConfigurationError`.

    Example:
        >>> serve(grpc_port=50051, http_port=8080)  # doctest: +SKIP
        groundwire emulator: gRPC 127.0.0.1:50051, REST http://127.0.0.1:8080 (1 worker)
        export GROUNDWIRE_EMULATOR_HOST=127.0.0.1:50051 GROUNDWIRE_EMULATOR_REST=http://127.0.0.1:8080
    """
    if workers < 1:
        raise ValueError(f"workers must be at least 1, not {workers}")
    configure_logging(log_level)
    hand_back_large_blocks()
    control = control or ControlOptions()
    with stop_on_signals() as stop:
        if workers == 1:
            servers = start_servers(
                host,
                grpc_port,
                http_port,
                faults=faults,
                limits=limits,
                control=local_state(control),
                judge=judge,
            )
            try:
                announce(servers.grpc_address, servers.http_url, workers, ready)
                stop.wait()
            finally:
                servers.stop()
            return
        with shared_state(control) as state:
            serve_workers(
                host,
                grpc_port,
                http_port,
                workers,
                WorkerOptions(faults, limits, log_level, state, judge),
                ready,
                stop,
            )
