"""Runs the gRPC server and the REST gateway together: in-process, as a command, or as N workers.

`start_servers` starts both in the background of the current process, on one event loop
thread shared by every emulator of the process, and returns a handle that stops them.
`serve` is the blocking command: it announces both addresses on one line, then the
`export GROUNDWIRE_EMULATOR_HOST=… GROUNDWIRE_EMULATOR_REST=…` line for a shell, and shuts
down cleanly on SIGINT or SIGTERM, letting in-flight calls finish. With `workers > 1` it
spawns that many processes that all listen on the same two ports (SO_REUSEPORT), so the
CPU-bound engine can use more cores (`groundwire.emulator.workers`); when one dies, the others
are stopped and the error names it and why.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import errno
import logging
import shlex
import signal
import socket
import sys
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from groundwire.emulator.faults import FaultPolicy
from groundwire.emulator.limits import Limits
from groundwire.transports import lifetime

if TYPE_CHECKING:
    from groundwire.emulator.grpc_server import GrpcServer
    from groundwire.emulator.http_server import HttpServer
    from groundwire.emulator.rest_gateway import RestGateway

ReadyCallback = Callable[[str, str], None]
"""Called once both protocols listen, with the gRPC address and the REST URL."""

SHUTDOWN_GRACE_SECONDS = 5.0
STARTUP_TIMEOUT_SECONDS = 60.0
POLL_SECONDS = 0.2
"""How often waiting loops look up (signals, dead workers, queues)."""
_BACKLOG = 1024
_M_MMAP_THRESHOLD = -3
"""glibc's `mallopt` parameter: blocks of at least this many bytes are mapped on their own."""
_OWN_MAPPING_BYTES = 1 << 20
_loop_lock = threading.Lock()
_loop: asyncio.AbstractEventLoop | None = None


class ServeError(RuntimeError):
    """The emulator could not start, or stopped on its own; the message says which part and why."""


class PortInUse(ServeError):
    """A port the emulator was told to listen on is taken."""

    def __init__(self, protocol: str, host: str, port: int) -> None:
        super().__init__(
            f"cannot listen for {protocol} on {host_port(host, port)}: port {port} is already "
            "in use (pick another port, or stop what listens there)"
        )
        self.port = port


@dataclass
class Servers:
    """Both servers running in this process; `stop` ends them, letting in-flight calls finish."""

    grpc_address: str
    http_url: str
    _grpc: GrpcServer
    _http: HttpServer
    _gateway: RestGateway
    _loop: asyncio.AbstractEventLoop

    def stop(self, grace: float = SHUTDOWN_GRACE_SECONDS) -> None:
        """Stops accepting calls, waits up to `grace` seconds for running ones, then returns."""
        stopping = asyncio.run_coroutine_threadsafe(self._stop(grace), self._loop)
        stopping.result(timeout=grace + 10)
        lifetime.grpc_servers.discard(id(self))

    async def _stop(self, grace: float) -> None:
        await asyncio.gather(self._grpc.stop(grace), self._http.close(grace))
        await asyncio.get_running_loop().run_in_executor(None, self._gateway.close)


def start_servers(
    host: str = "127.0.0.1",
    grpc_port: int = 0,
    http_port: int = 0,
    *,
    faults: FaultPolicy | None = None,
    limits: Limits | None = None,
    reuse_port: bool = False,
) -> Servers:
    """Starts both servers in the background; port 0 picks a free port.

    A port that is taken raises `PortInUse`, naming it.

    Example:
        >>> servers = start_servers()
        >>> servers.http_url.startswith("http://127.0.0.1:")
        True
        >>> servers.stop(grace=0)
    """
    if not reuse_port:
        for protocol, port in (("gRPC", grpc_port), ("REST", http_port)):
            check_free(protocol, host, port)
    loop = _event_loop()
    starting = asyncio.run_coroutine_threadsafe(
        _start(host, grpc_port, http_port, faults, limits or Limits(), reuse_port), loop
    )
    servers = starting.result(timeout=STARTUP_TIMEOUT_SECONDS)
    lifetime.grpc_servers.add(id(servers))  # gRPC is not safe in a child forked while it runs
    return servers


def _event_loop() -> asyncio.AbstractEventLoop:
    """The process's emulator loop, on a daemon thread of its own, started on first use."""
    global _loop
    with _loop_lock:
        if _loop is None:
            _loop = asyncio.new_event_loop()
            threading.Thread(
                target=_loop.run_forever, name="groundwire-emulator", daemon=True
            ).start()
        return _loop


async def _start(
    host: str,
    grpc_port: int,
    http_port: int,
    faults: FaultPolicy | None,
    limits: Limits,
    reuse_port: bool,
) -> Servers:
    from groundwire.emulator.grpc_server import create_server
    from groundwire.emulator.http_server import HttpServer
    from groundwire.emulator.rest_gateway import RestGateway

    grpc_server = await create_server(
        host, grpc_port, faults=faults, limits=limits, reuse_port=reuse_port
    )
    gateway = RestGateway(faults=faults)
    http = HttpServer(gateway, limits)
    try:
        sock = _listening_socket(host, http_port, reuse_port)
        await http.start(sock, backlog=_BACKLOG)
    except BaseException:
        gateway.close()
        await grpc_server.stop(None)
        raise
    return Servers(
        grpc_address=host_port(host, grpc_server.port),
        http_url=f"http://{host_port(host, sock.getsockname()[1])}",
        _grpc=grpc_server,
        _http=http,
        _gateway=gateway,
        _loop=asyncio.get_running_loop(),
    )


def check_free(protocol: str, host: str, port: int) -> None:
    """Raises `PortInUse` when `port` is taken, before a server tries it (gRPC would log)."""
    if port:
        _listening_socket(host, port, reuse_port=False, protocol=protocol).close()


def _listening_socket(
    host: str, port: int, reuse_port: bool, protocol: str = "REST"
) -> socket.socket:
    family, kind, proto, _, address = socket.getaddrinfo(
        host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
    )[0]
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if reuse_port:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        sock.bind(address)
        sock.listen(_BACKLOG)
        sock.setblocking(False)
    except OSError as error:
        sock.close()
        if error.errno == errno.EADDRINUSE:
            raise PortInUse(protocol, host, port) from None
        raise
    return sock


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
) -> None:
    """Serves both protocols until SIGINT or SIGTERM; call it from the main thread.

    Prints one line naming both addresses once they listen, and one `export` line for a
    shell, then calls `ready(grpc_address, http_url)` if given. With `workers > 1`, port 0
    picks a free port before the workers start, and they all share it. `log_level` (e.g.
    `logging.INFO`: one line per request) also applies in the workers. A taken port raises
    `PortInUse`; a worker that dies raises `ServeError` naming it.

    Example:
        >>> serve(grpc_port=50051, http_port=8080)  # doctest: +SKIP
        groundwire emulator: gRPC 127.0.0.1:50051, REST http://127.0.0.1:8080 (1 worker)
        export GROUNDWIRE_EMULATOR_HOST=127.0.0.1:50051 GROUNDWIRE_EMULATOR_REST=http://127.0.0.1:8080
    """
    if workers < 1:
        raise ValueError(f"workers must be at least 1, not {workers}")
    configure_logging(log_level)
    hand_back_large_blocks()
    with stop_on_signals() as stop:
        if workers == 1:
            servers = start_servers(host, grpc_port, http_port, faults=faults, limits=limits)
            try:
                announce(servers.grpc_address, servers.http_url, workers, ready)
                stop.wait()
            finally:
                servers.stop()
            return
        from groundwire.emulator.workers import WorkerOptions, serve_workers

        serve_workers(
            host,
            grpc_port,
            http_port,
            workers,
            WorkerOptions(faults, limits, log_level),
            ready,
            stop,
        )


def hand_back_large_blocks() -> None:
    """Makes glibc give every freed block of 1 MiB or more back to the system at once.

    For a process that only serves: glibc otherwise keeps the heap that a large request grew,
    so a few refused requests of tens of MiB would leave the emulator 100+ MiB larger for good
    (seven 30 MB refusals: +125-170 MiB kept, +8-13 MiB with this). Nothing where the C library
    is not glibc.
    """
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None).mallopt(_M_MMAP_THRESHOLD, _OWN_MAPPING_BYTES)


def configure_logging(level: int | None) -> None:
    """Logs to stderr at `level`, one line per record (per request at INFO)."""
    if level is None:
        return
    logging.basicConfig(
        level=level,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
        stream=sys.stderr,
        force=True,
    )


class _Stop(threading.Event):
    def wait(self, timeout: float | None = None) -> bool:
        """Waits in short slices, so signal handlers run promptly in the main thread."""
        if timeout is not None:
            return super().wait(timeout)
        while not super().wait(POLL_SECONDS):
            pass
        return True


@contextlib.contextmanager
def stop_on_signals() -> Iterator[_Stop]:
    """An event that SIGINT and SIGTERM set while the block runs (main thread only)."""
    stop = _Stop()
    signals = (signal.SIGINT, signal.SIGTERM)
    previous = {number: signal.signal(number, lambda *_: stop.set()) for number in signals}
    try:
        yield stop
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)


def announce(grpc_address: str, http_url: str, workers: int, ready: ReadyCallback | None) -> None:
    """Prints the listening line and the `export` line, then calls `ready` if given."""
    plural = "worker" if workers == 1 else "workers"
    print(
        f"groundwire emulator: gRPC {grpc_address}, REST {http_url} ({workers} {plural})",
        export_line(grpc_address, http_url),
        sep="\n",
        flush=True,
        file=sys.stdout,
    )
    if ready is not None:
        ready(grpc_address, http_url)


_LOOPBACK_FOR_WILDCARD = {"0.0.0.0": "127.0.0.1", "[::]": "[::1]"}
"""What a client on this machine calls a server bound to every interface by."""


def export_line(grpc_address: str, http_url: str) -> str:
    """The shell line that points clients at the emulator, as `gcloud … env-init` prints it.

    A wildcard bind (0.0.0.0, ::) is no address a client may use: the line names loopback,
    which reaches it from this machine, and says so in a shell comment.

    Example:
        >>> export_line("[::1]:50051", "http://[::1]:8080")
        "export GROUNDWIRE_EMULATOR_HOST='[::1]:50051' GROUNDWIRE_EMULATOR_REST='http://[::1]:8080'"
        >>> export_line("0.0.0.0:50051", "http://0.0.0.0:8080").split("  # ")[1]
        'listening on every interface (0.0.0.0): 127.0.0.1 reaches it from this machine'
    """
    bound, _, port = grpc_address.rpartition(":")
    loopback = _LOOPBACK_FOR_WILDCARD.get(bound)
    if loopback is not None:
        grpc_address = f"{loopback}:{port}"
        http_url = http_url.replace(f"//{bound}:", f"//{loopback}:", 1)
    line = (
        f"export GROUNDWIRE_EMULATOR_HOST={shlex.quote(grpc_address)} "
        f"GROUNDWIRE_EMULATOR_REST={shlex.quote(http_url)}"
    )
    if loopback is None:
        return line
    return (
        f"{line}  # listening on every interface ({bound}): {loopback} reaches it from this machine"
    )


def free_port(host: str) -> int:
    """A port that is free on `host` now, for workers that must all bind the same one."""
    with socket.socket(socket.getaddrinfo(host, 0, type=socket.SOCK_STREAM)[0][0]) as probe:
        probe.bind((host, 0))
        port: int = probe.getsockname()[1]
        return port


def host_port(host: str, port: int) -> str:
    """`host:port`, with an IPv6 host in brackets."""
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
