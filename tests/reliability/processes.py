"""The emulator as a child process on fixed loopback ports, which a test may kill and restart.

Reliability tests never share an interpreter with the server they hurt: it runs as
`python -m groundwire.cli serve`, and every wait on it is bounded.
"""

from __future__ import annotations

import re
import selectors
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

READY_TIMEOUT = 30.0
STOP_TIMEOUT = 10.0


def free_port() -> int:
    """A loopback port nothing listens on right now (bound, then released)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class EmulatorProcess:
    """`groundwire serve` on fixed ports; `start` again after `kill` reuses the same ports.

    Example:
        >>> with EmulatorProcess() as server:  # doctest: +SKIP
        ...     server.grpc_address, server.http_url
    """

    def __init__(self, extra_args: Sequence[str] = ()) -> None:
        self.grpc_port = free_port()
        self.http_port = free_port()
        self.extra_args = list(extra_args)
        self.process: subprocess.Popen[bytes] | None = None
        self._stderr = tempfile.TemporaryFile()  # noqa: SIM115 - closed in stop()

    @property
    def grpc_address(self) -> str:
        return f"127.0.0.1:{self.grpc_port}"

    @property
    def http_url(self) -> str:
        return f"http://127.0.0.1:{self.http_port}"

    @property
    def pid(self) -> int:
        assert self.process is not None
        return self.process.pid

    def start(self) -> EmulatorProcess:
        """Starts the server and waits (bounded) until it announces both addresses."""
        command = [
            sys.executable,
            "-m",
            "groundwire.cli",
            "serve",
            "--grpc-port",
            str(self.grpc_port),
            "--http-port",
            str(self.http_port),
            *self.extra_args,
        ]
        # Standard error goes to a file: a full pipe would block a server that logs a lot.
        self.process = subprocess.Popen(
            command, stdout=subprocess.PIPE, stderr=self._stderr, stdin=subprocess.DEVNULL
        )
        try:
            self._wait_ready()
        except BaseException:
            self.kill()
            raise
        return self

    def _wait_ready(self) -> None:
        assert self.process is not None
        assert self.process.stdout is not None
        deadline = time.monotonic() + READY_TIMEOUT
        with selectors.DefaultSelector() as selector:
            selector.register(self.process.stdout, selectors.EVENT_READ)
            while time.monotonic() < deadline:
                if selector.select(max(deadline - time.monotonic(), 0.0)):
                    line = self.process.stdout.readline()
                    if b"groundwire emulator:" in line:
                        return
                    if not line:
                        break
        raise RuntimeError(f"the emulator did not start: {self._stderr_tail()}")

    def _stderr_tail(self) -> str:
        assert self.process is not None
        if self.process.poll() is None:
            return "no ready line in time"
        self._stderr.seek(0)
        return self._stderr.read().decode(errors="replace")[-2000:]

    def kill(self) -> None:
        """SIGKILL: the server dies at once, its in-flight calls with it."""
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
        self._reap()

    def stop(self) -> None:
        """SIGTERM, then SIGKILL if it has not exited within the bound; for good."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(STOP_TIMEOUT)
            except subprocess.TimeoutExpired:
                self.process.kill()
        self._reap()
        self._stderr.close()

    def _reap(self) -> None:
        if self.process is not None:
            self.process.wait(STOP_TIMEOUT)
            if self.process.stdout is not None:
                self.process.stdout.close()

    def rss_mib(self) -> float:
        """The server's resident memory now (VmRSS), in MiB."""
        status = Path(f"/proc/{self.pid}/status").read_text()
        found = re.search(r"^VmRSS:\s+(\d+) kB", status, re.MULTILINE)
        assert found is not None
        return int(found.group(1)) / 1024

    def __enter__(self) -> EmulatorProcess:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()
