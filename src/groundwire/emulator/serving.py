"""What every way of running the emulator shares: its errors, its ports, its signals, its output.

The in-process servers (`groundwire.emulator.in_process`), the `serve` command
(`groundwire.emulator.server`) and its workers (`groundwire.emulator.workers`) all build on
these, so each of them sits above this module and none needs another's.
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
import time
from collections.abc import Callable, Iterator

ReadyCallback = Callable[[str, str], None]
"""Called once both protocols listen, with the gRPC address and the REST URL."""

SHUTDOWN_GRACE_SECONDS = 5.0
STARTUP_TIMEOUT_SECONDS = 60.0
POLL_SECONDS = 0.2
"""How often waiting loops look up (signals, dead workers, queues)."""
BACKLOG = 1024
"""How many connections wait to be accepted on a listening socket."""
_M_MMAP_THRESHOLD = -3
"""glibc's `mallopt` parameter: blocks of at least this many bytes are mapped on their own."""
_OWN_MAPPING_BYTES = 1 << 20


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


class Activity:
    """What the servers of one emulator are doing, counted as it happens, for a test to wait on.

    The servers change the counts on their event loop, with no lock (one thread writes), and
    wake whoever waits in `wait_until` only when someone does. Gauges say what is so now,
    totals only grow:

    - `calls_waiting`: gRPC unary calls waiting for their request (bodiless so far);
    - `calls_serving`: gRPC calls being served, streams included;
    - `streams_open`: gRPC streams open;
    - `streams_reading`: gRPC streams that have answered every request and wait for the next;
    - `calls_received` (total): gRPC unary calls (health checks too) whose headers came;
    - `connections_accepted` (total): REST connections accepted, held or refused.

    Example:
        >>> activity = Activity()
        >>> activity.calls_received += 1
        >>> activity.changed()
        >>> activity.wait_until(lambda now: now.calls_received == 1, timeout=1.0)
        True
    """

    def __init__(self) -> None:
        self.calls_waiting = 0
        self.calls_serving = 0
        self.streams_open = 0
        self.streams_reading = 0
        self.calls_received = 0
        self.connections_accepted = 0
        self._condition = threading.Condition()
        self._watchers = 0

    def changed(self) -> None:
        """Wakes whoever waits; a server calls it after changing a count."""
        if self._watchers:
            with self._condition:
                self._condition.notify_all()

    def wait_until(self, condition: Callable[[Activity], bool], timeout: float) -> bool:
        """Waits until `condition(self)` holds, for at most `timeout` s; whether it does."""
        with self._condition:
            self._watchers += 1
            try:
                return self._condition.wait_for(lambda: condition(self), timeout)
            finally:
                self._watchers -= 1


class LoopThread:
    """An asyncio event loop on a daemon thread of its own, started on first use."""

    def __init__(self, name: str) -> None:
        self._name = name
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None

    def loop(self) -> asyncio.AbstractEventLoop:
        """The loop, running; the first call starts its thread."""
        with self._lock:
            if self._loop is None:
                self._loop = asyncio.new_event_loop()
                threading.Thread(
                    target=self._loop.run_forever, name=self._name, daemon=True
                ).start()
            return self._loop


def check_free(protocol: str, host: str, port: int) -> None:
    """Raises `PortInUse` when `port` is taken, before a server tries it (gRPC would log)."""
    if port:
        listening_socket(host, port, reuse_port=False, protocol=protocol).close()


def listening_socket(
    host: str, port: int, reuse_port: bool, protocol: str = "REST"
) -> socket.socket:
    """A non-blocking socket listening on `host:port`; `PortInUse` if the port is taken."""
    family, kind, proto, _, address = socket.getaddrinfo(
        host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
    )[0]
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if reuse_port:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        sock.bind(address)
        sock.listen(BACKLOG)
        sock.setblocking(False)
    except OSError as error:
        sock.close()
        if error.errno == errno.EADDRINUSE:
            raise PortInUse(protocol, host, port) from None
        raise
    return sock


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


class StopSignal:
    """A stop flag that a signal handler may set: it takes no lock.

    A `threading.Event` would deadlock here: its `set` takes the lock that the main thread
    holds for a moment inside every `wait`, and a handler runs in the main thread, so a
    signal landing in that moment hung `serve` for good (seen after SIGTERM to its group).
    """

    __slots__ = ("_set",)

    def __init__(self) -> None:
        self._set = False

    def set(self) -> None:
        """Asks whoever waits to stop."""
        self._set = True

    def is_set(self) -> bool:
        """Whether a stop was asked for."""
        return self._set

    def wait(self, timeout: float | None = None) -> bool:
        """Waits (in short sleeps, which a signal cuts short) until set or `timeout` passes."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while not self._set:
            left = POLL_SECONDS if deadline is None else deadline - time.monotonic()
            if left <= 0:
                return False
            time.sleep(min(left, POLL_SECONDS))
        return True


@contextlib.contextmanager
def stop_on_signals() -> Iterator[StopSignal]:
    """An event that SIGINT and SIGTERM set while the block runs (main thread only)."""
    stop = StopSignal()
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
