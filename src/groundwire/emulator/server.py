"""Runs the gRPC server and the REST gateway together: in-process, as a command, or as N workers.

`start_servers` starts both in the background of the current process (the REST gateway's event
loop on its own thread) and returns a handle that stops them. `serve` is the blocking command:
it announces both addresses on one line and shuts down cleanly on SIGINT or SIGTERM, letting
in-flight calls finish. With `workers > 1` it spawns that many processes that all listen on the
same two ports (SO_REUSEPORT), so the CPU-bound engine can use more cores.
"""

from __future__ import annotations

import asyncio
import contextlib
import multiprocessing
import signal
import socket
import sys
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from groundwire.emulator.faults import FaultPolicy

if TYPE_CHECKING:
    import grpc
    from aiohttp import web

ReadyCallback = Callable[[str, str], None]
"""Called once both protocols listen, with the gRPC address and the REST URL."""

SHUTDOWN_GRACE_SECONDS = 5.0
STARTUP_TIMEOUT_SECONDS = 60.0
_POLL_SECONDS = 0.2


@dataclass
class Servers:
    """Both servers running in this process; `stop` ends them, letting in-flight calls finish."""

    grpc_address: str
    http_url: str
    _grpc_server: grpc.Server
    _loop: asyncio.AbstractEventLoop
    _loop_thread: threading.Thread
    _runner: web.AppRunner

    def stop(self, grace: float = SHUTDOWN_GRACE_SECONDS) -> None:
        """Stops accepting calls, waits up to `grace` seconds for running ones, then returns."""
        grpc_stopped = self._grpc_server.stop(grace)
        cleanup = asyncio.run_coroutine_threadsafe(_cleanup(self._runner), self._loop)
        try:
            cleanup.result(timeout=grace + 5)
        finally:
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._loop_thread.join(timeout=grace + 5)
            if not self._loop.is_running():
                self._loop.close()
            grpc_stopped.wait(grace + 1)


async def _cleanup(runner: web.AppRunner) -> None:
    """Runs the REST gateway's graceful shutdown, then ends idle keep-alive connections."""
    await runner.cleanup()
    current = asyncio.current_task()
    remaining = [task for task in asyncio.all_tasks() if task is not current]
    for task in remaining:
        task.cancel()
    await asyncio.gather(*remaining, return_exceptions=True)


def start_servers(
    host: str = "127.0.0.1",
    grpc_port: int = 0,
    http_port: int = 0,
    *,
    faults: FaultPolicy | None = None,
    reuse_port: bool = False,
    grace: float = SHUTDOWN_GRACE_SECONDS,
) -> Servers:
    """Starts both servers in the background; port 0 picks a free port.

    Example:
        >>> servers = start_servers()
        >>> servers.http_url.startswith("http://127.0.0.1:")
        True
        >>> servers.stop(grace=0)
    """
    from groundwire.emulator.grpc_server import create_server

    grpc_server, bound_grpc_port = create_server(
        host, grpc_port, faults=faults, reuse_port=reuse_port
    )
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, name="groundwire-rest", daemon=True)
    thread.start()
    starting = asyncio.run_coroutine_threadsafe(
        _start_rest(host, http_port, faults, reuse_port, grace), loop
    )
    try:
        runner, bound_http_port = starting.result(timeout=STARTUP_TIMEOUT_SECONDS)
    except BaseException:
        grpc_server.stop(None)
        loop.call_soon_threadsafe(loop.stop)
        thread.join()
        loop.close()
        raise
    return Servers(
        grpc_address=_host_port(host, bound_grpc_port),
        http_url=f"http://{_host_port(host, bound_http_port)}",
        _grpc_server=grpc_server,
        _loop=loop,
        _loop_thread=thread,
        _runner=runner,
    )


async def _start_rest(
    host: str, port: int, faults: FaultPolicy | None, reuse_port: bool, grace: float
) -> tuple[web.AppRunner, int]:
    from aiohttp import web

    from groundwire.emulator.rest_gateway import create_app

    runner = web.AppRunner(create_app(faults=faults), shutdown_timeout=grace, access_log=None)
    await runner.setup()
    try:
        sock = _listening_socket(host, port, reuse_port)
        await web.SockSite(runner, sock).start()
    except BaseException:
        await runner.cleanup()
        raise
    return runner, sock.getsockname()[1]


def _listening_socket(host: str, port: int, reuse_port: bool) -> socket.socket:
    family, kind, protocol, _, address = socket.getaddrinfo(
        host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
    )[0]
    sock = socket.socket(family, kind, protocol)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if reuse_port:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        sock.bind(address)
        sock.listen(128)
        sock.setblocking(False)
    except OSError:
        sock.close()
        raise
    return sock


def serve(
    host: str = "127.0.0.1",
    grpc_port: int = 50051,
    http_port: int = 8080,
    workers: int = 1,
    faults: FaultPolicy | None = None,
    ready: ReadyCallback | None = None,
) -> None:
    """Serves both protocols until SIGINT or SIGTERM; call it from the main thread.

    Prints one line naming both addresses once they listen, then calls
    `ready(grpc_address, http_url)` if given. With `workers > 1`, port 0 picks a free port
    before the workers start, and they all share it.

    Example:
        >>> serve(grpc_port=50051, http_port=8080)  # doctest: +SKIP
        groundwire emulator: gRPC 127.0.0.1:50051, REST http://127.0.0.1:8080 (1 worker)
    """
    if workers < 1:
        raise ValueError(f"workers must be at least 1, not {workers}")
    with _stop_on_signals() as stop:
        if workers == 1:
            servers = start_servers(host, grpc_port, http_port, faults=faults)
            try:
                _announce(servers.grpc_address, servers.http_url, workers, ready)
                stop.wait()
            finally:
                servers.stop()
            return
        _serve_workers(host, grpc_port, http_port, workers, faults, ready, stop)


def _serve_workers(
    host: str,
    grpc_port: int,
    http_port: int,
    workers: int,
    faults: FaultPolicy | None,
    ready: ReadyCallback | None,
    stop: threading.Event,
) -> None:
    context = multiprocessing.get_context("spawn")
    ports = (grpc_port or _free_port(host), http_port or _free_port(host))
    reports = context.Queue()
    processes = [
        context.Process(
            target=_worker, args=(host, *ports, faults, reports), name=f"groundwire-worker-{number}"
        )
        for number in range(workers)
    ]
    for process in processes:
        process.start()
    try:
        _wait_until_ready(processes, reports, stop)
        if not stop.is_set():
            _announce(
                _host_port(host, ports[0]), f"http://{_host_port(host, ports[1])}", workers, ready
            )
        while not stop.wait(_POLL_SECONDS):
            if any(not process.is_alive() for process in processes):
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
    failed = [p.name for p in processes if p.exitcode not in (0, -signal.SIGTERM)]
    if failed:
        raise RuntimeError(f"emulator workers failed: {', '.join(failed)}")


def _wait_until_ready(processes: list[Any], reports: Any, stop: threading.Event) -> None:
    import queue

    waiting = len(processes)
    deadline = STARTUP_TIMEOUT_SECONDS / _POLL_SECONDS
    while waiting and not stop.is_set() and deadline > 0:
        deadline -= 1
        try:
            report = reports.get(timeout=_POLL_SECONDS)
        except queue.Empty:
            if any(not process.is_alive() for process in processes):
                raise RuntimeError("an emulator worker exited while starting") from None
            continue
        if report != "ready":
            raise RuntimeError(f"an emulator worker could not start: {report}")
        waiting -= 1
    if waiting and not stop.is_set():
        raise RuntimeError("emulator workers did not start in time")


def _worker(
    host: str, grpc_port: int, http_port: int, faults: FaultPolicy | None, reports: Any
) -> None:
    with _stop_on_signals() as stop:
        try:
            servers = start_servers(host, grpc_port, http_port, faults=faults, reuse_port=True)
        except Exception as error:
            reports.put(f"{type(error).__name__}: {error}")
            raise SystemExit(1) from None
        reports.put("ready")
        try:
            stop.wait()
        finally:
            servers.stop()


class _Stop(threading.Event):
    def wait(self, timeout: float | None = None) -> bool:
        """Waits in short slices, so signal handlers run promptly in the main thread."""
        if timeout is not None:
            return super().wait(timeout)
        while not super().wait(_POLL_SECONDS):
            pass
        return True


@contextlib.contextmanager
def _stop_on_signals() -> Iterator[_Stop]:
    stop = _Stop()
    signals = (signal.SIGINT, signal.SIGTERM)
    previous = {number: signal.signal(number, lambda *_: stop.set()) for number in signals}
    try:
        yield stop
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)


def _announce(grpc_address: str, http_url: str, workers: int, ready: ReadyCallback | None) -> None:
    plural = "worker" if workers == 1 else "workers"
    print(
        f"groundwire emulator: gRPC {grpc_address}, REST {http_url} ({workers} {plural})",
        flush=True,
        file=sys.stdout,
    )
    if ready is not None:
        ready(grpc_address, http_url)


def _free_port(host: str) -> int:
    with socket.socket(socket.getaddrinfo(host, 0, type=socket.SOCK_STREAM)[0][0]) as probe:
        probe.bind((host, 0))
        port: int = probe.getsockname()[1]
        return port


def _host_port(host: str, port: int) -> str:
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
