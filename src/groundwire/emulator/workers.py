"""`serve --workers N`: N processes on the same ports, started, watched and stopped together."""

from __future__ import annotations

import contextlib
import multiprocessing
import signal
import sys
from dataclasses import dataclass
from typing import Any

from groundwire.emulator.control import ControlState
from groundwire.emulator.faults import FaultPolicy
from groundwire.emulator.in_process import start_servers
from groundwire.emulator.judges import Judge
from groundwire.emulator.limits import Limits
from groundwire.emulator.serving import (
    POLL_SECONDS,
    SHUTDOWN_GRACE_SECONDS,
    STARTUP_TIMEOUT_SECONDS,
    ReadyCallback,
    ServeError,
    StopSignal,
    announce,
    check_free,
    configure_logging,
    free_port,
    hand_back_large_blocks,
    host_port,
    stop_on_signals,
)


@dataclass(frozen=True)
class WorkerOptions:
    """What every worker is started with, besides the ports; each loads the judge itself."""

    faults: FaultPolicy | None
    limits: Limits | None
    log_level: int | None
    control: ControlState | None = None
    """The stubs and journal every worker shares (a manager's proxies)."""
    judge: Judge | None = None


def serve_workers(
    host: str,
    grpc_port: int,
    http_port: int,
    workers: int,
    options: WorkerOptions,
    ready: ReadyCallback | None,
    stop: StopSignal,
) -> None:
    """Runs `workers` processes on the same two ports until `stop` is set or one dies.

    Raises `ServeError` naming the first worker that died, and why, after stopping the
    others (a worker that exits on a stop signal did not die: the others stop, no error);
    `PortInUse` when a port is taken before any worker starts.
    """
    for protocol, port in (("gRPC", grpc_port), ("REST", http_port)):
        check_free(protocol, host, port)
    context = multiprocessing.get_context("spawn")
    ports = (grpc_port or free_port(host), http_port or free_port(host))
    reports = context.Queue()
    processes = [
        context.Process(
            target=_worker,
            args=(number, host, *ports, options, reports),
            name=f"groundwire-worker-{number}",
        )
        for number in range(1, workers + 1)
    ]
    for process in processes:
        process.start()
    errors: dict[int, str] = {}
    died: str | None = None
    try:
        _wait_until_ready(processes, reports, errors, stop)
        if not stop.is_set():
            announce(
                host_port(host, ports[0]), f"http://{host_port(host, ports[1])}", workers, ready
            )
        while not stop.wait(POLL_SECONDS):
            dead = [number for number, p in enumerate(processes, 1) if not p.is_alive()]
            if dead:
                _drain(reports, errors)
                if not _stopped_on_signal(dead[0], processes[dead[0] - 1], workers, errors):
                    died = _death(dead[0], processes[dead[0] - 1], workers, errors)
                break
    finally:
        for process in processes:
            if process.is_alive():
                process.terminate()  # SIGTERM: the worker finishes its in-flight calls
        for process in processes:
            process.join(SHUTDOWN_GRACE_SECONDS + 10)
            if process.is_alive():
                process.kill()
                process.join()
    if died is not None:
        raise ServeError(died)


def _stopped_on_signal(number: int, process: Any, workers: int, errors: dict[int, str]) -> bool:
    """Whether a worker that ended was told to stop (it exits 0 only then); says so if it was.

    A SIGTERM or SIGINT sent to a worker (or to the whole process group) is no death: the
    others are stopped too, and `serve` ends normally.
    """
    if process.exitcode != 0 or number in errors:
        return False
    print(
        f"groundwire emulator: worker {number} of {workers} (pid {process.pid}) stopped on a "
        "signal; stopping the others",
        file=sys.stderr,
    )
    return True


def _death(number: int, process: Any, workers: int, errors: dict[int, str]) -> str:
    """Which worker died and why, in one line: its error, its signal or its exit status."""
    code = process.exitcode
    if number in errors:
        why = errors[number]
    elif code is not None and code < 0:
        why = f"killed by {signal.Signals(-code).name}"
    else:
        why = f"exited with status {code}"
    return (
        f"emulator worker {number} of {workers} (pid {process.pid}) died: {why}; "
        "the other workers were stopped"
    )


def _drain(reports: Any, errors: dict[int, str]) -> None:
    import queue

    with contextlib.suppress(queue.Empty, OSError, ValueError):
        for _ in range(1000):
            number, report = reports.get(timeout=POLL_SECONDS)
            if report != "ready":
                errors[number] = report


def _wait_until_ready(
    processes: list[Any], reports: Any, errors: dict[int, str], stop: StopSignal
) -> None:
    import queue

    waiting = len(processes)
    polls = STARTUP_TIMEOUT_SECONDS / POLL_SECONDS
    while waiting and not stop.is_set() and polls > 0:
        polls -= 1
        try:
            number, report = reports.get(timeout=POLL_SECONDS)
        except queue.Empty:
            dead = [number for number, p in enumerate(processes, 1) if not p.is_alive()]
            if dead:
                _drain(reports, errors)
                if _stopped_on_signal(dead[0], processes[dead[0] - 1], len(processes), errors):
                    stop.set()
                    return
                raise ServeError(
                    _death(dead[0], processes[dead[0] - 1], len(processes), errors)
                ) from None
            continue
        if report != "ready":
            raise ServeError(f"emulator worker {number} could not start: {report}")
        waiting -= 1
    if waiting and not stop.is_set():
        raise ServeError(
            f"{waiting} emulator workers did not start within {STARTUP_TIMEOUT_SECONDS:g} s"
        )


def _worker(
    number: int, host: str, grpc_port: int, http_port: int, options: WorkerOptions, reports: Any
) -> None:
    configure_logging(options.log_level)
    hand_back_large_blocks()
    with stop_on_signals() as stop:
        try:
            servers = start_servers(
                host,
                grpc_port,
                http_port,
                faults=options.faults,
                limits=options.limits,
                reuse_port=True,
                control=options.control,
                judge=options.judge,
            )
        except Exception as error:
            reports.put((number, f"{type(error).__name__}: {error}"))
            raise SystemExit(1) from None
        reports.put((number, "ready"))
        try:
            stop.wait()
        except BaseException as error:
            reports.put((number, f"{type(error).__name__}: {error}"))
            raise
        finally:
            servers.stop()
