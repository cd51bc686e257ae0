"""Child processes for the benchmarks: start one, wait for its ready line, read its memory, stop it.

Servers and measured clients always run in processes of their own, so each one's CPU time and
memory are its own and no benchmark shares an interpreter with what it measures.
"""

from __future__ import annotations

import os
import re
import selectors
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO

ROOT = Path(__file__).resolve().parent.parent
PYTHON = sys.executable


def child_environment() -> dict[str, str]:
    """Our environment, with the repository importable (for `python -m bench.*`)."""
    environment = dict(os.environ)
    paths = [str(ROOT), *filter(None, environment.get("PYTHONPATH", "").split(os.pathsep))]
    environment["PYTHONPATH"] = os.pathsep.join(paths)
    environment["PYTHONUNBUFFERED"] = "1"
    return environment


@dataclass
class Child:
    """A running child process speaking line by line on its standard input and output."""

    process: subprocess.Popen[str]
    ready_line: str
    stderr: IO[bytes]

    @property
    def pid(self) -> int:
        """The child's process id."""
        return self.process.pid

    def send(self, line: str) -> None:
        """Writes `line` and a newline to the child's standard input, flushed at once."""
        assert self.process.stdin is not None
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()

    def read_line(self, timeout: float) -> str:
        """The child's next output line; raises RuntimeError if none comes within `timeout`."""
        return _read_line(self.process, timeout)

    def stop(self) -> None:
        """SIGTERM, then SIGKILL after 5 s; always reaps the process."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(5)
        for stream in (self.process.stdin, self.process.stdout):
            if stream is not None:
                stream.close()
        self.stderr.close()

    def stderr_tail(self) -> str:
        """The last line the child wrote to its standard error."""
        return _last_line(self.stderr)


def _last_line(stderr: IO[bytes]) -> str:
    stderr.flush()
    stderr.seek(0)
    lines = stderr.read().decode(errors="replace").strip().splitlines()
    return lines[-1] if lines else ""


def _read_line(process: subprocess.Popen[str], timeout: float) -> str:
    assert process.stdout is not None
    with selectors.DefaultSelector() as selector:
        selector.register(process.stdout, selectors.EVENT_READ)
        if not selector.select(timeout):
            raise RuntimeError(f"pid {process.pid} said nothing within {timeout:.0f} s")
    line = process.stdout.readline()
    if not line:
        raise RuntimeError(f"pid {process.pid} exited with {process.wait()} before answering")
    return line.strip()


def start(args: Sequence[str], ready: str, timeout: float = 60.0) -> Child:
    """Starts `args`, waits for a line matching the regex `ready` (other lines are skipped).

    The child's standard error goes to a temporary file; when the child fails to get ready,
    the RuntimeError raised carries its last line.
    """
    stderr = tempfile.TemporaryFile()  # noqa: SIM115 - the Child closes it in stop()
    process = subprocess.Popen(
        list(args),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=stderr,
        text=True,
        env=child_environment(),
        cwd=ROOT,
    )
    deadline = time.monotonic() + timeout
    try:
        while True:
            line = _read_line(process, max(deadline - time.monotonic(), 0.1))
            if re.search(ready, line):
                return Child(process, line, stderr)
    except RuntimeError as error:
        _kill(process)
        raise RuntimeError(f"{error}: {_last_line(stderr)}".rstrip(": ")) from None
    except BaseException:
        _kill(process)
        raise


def _kill(process: subprocess.Popen[str]) -> None:
    process.kill()
    process.wait()


def addresses(line: str) -> tuple[str, str]:
    """(gRPC host:port, HTTP base URL) from a server's ready line."""
    grpc_match = re.search(r"(?<![/\w])(\d{1,3}(?:\.\d{1,3}){3}:\d+)", line)
    http_match = re.search(r"(https?://[\w.\-\[\]:]+)", line)
    if grpc_match is None or http_match is None:
        raise RuntimeError(f"no addresses in the server's ready line: {line!r}")
    return grpc_match.group(1), http_match.group(1)


def memory_kib(pid: int, field: str) -> int:
    """A /proc/PID/status memory field (VmRSS, VmHWM) in KiB; 0 if the process is gone."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return 0
    found = re.search(rf"^{field}:\s+(\d+) kB", status, re.MULTILINE)
    return int(found.group(1)) if found else 0


def descendants(pid: int) -> list[int]:
    """`pid` and every process below it (a server with worker processes), read from /proc."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        children.setdefault(int(fields[1]), []).append(int(entry.name))
    found, queue = [], [pid]
    while queue:
        current = queue.pop()
        found.append(current)
        queue.extend(children.get(current, []))
    return found


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of `pid` so far (from /proc/PID/stat); 0.0 if it is gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    # Fields after the command name start at index 3 (state); utime and stime are 14 and 15.
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
