"""The batch progress bar fits the terminal it is drawn on, whatever its width."""

from __future__ import annotations

import fcntl
import json
import os
import pty
import re
import struct
import subprocess
import termios
import time
from pathlib import Path

from tests.cli.running import cli_command, cli_env


def read_terminal(master: int, process: subprocess.Popen[bytes], seconds: float) -> str:
    """Everything the process drew on the terminal, until it exits (bounded)."""
    drawn = bytearray()
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            chunk = os.read(master, 4096)
        except OSError:  # the other side closed: the process is done with the terminal
            break
        if not chunk:
            break
        drawn += chunk
    process.wait(timeout=max(deadline - time.monotonic(), 1))
    return drawn.decode("utf-8", errors="replace")


def test_the_bar_fits_a_40_column_terminal(tmp_path: Path) -> None:
    # Nine lines at 20 a second, however fast the machine: every redraw keeps a bar in 40
    # columns (one-digit counts, a rate below 100/s), and there are at least two, since the
    # eighth line starts 0.35 s after the first, past the bar's 0.1 s between redraws.
    source, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    source.write_text(
        "".join(
            json.dumps({"id": n, "answer": f"Item {n} is blue.", "facts": [f"Item {n} is blue."]})
            + "\n"
            for n in range(9)
        )
    )
    master, terminal = pty.openpty()
    fcntl.ioctl(terminal, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 40, 0, 0))
    env = {k: v for k, v in cli_env().items() if k not in ("COLUMNS", "LINES")}
    process = subprocess.Popen(
        cli_command("batch", "--local", str(source), "-o", str(out), "--rate", "20"),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=terminal,
        env=env,
    )
    os.close(terminal)
    try:
        drawn = read_terminal(master, process, 100)
    finally:
        os.close(master)
    assert process.returncode == 0, drawn
    bars = [piece for piece in re.split(r"[\r\n]", drawn) if piece.startswith("[")]
    assert len(bars) >= 2
    assert all(len(bar) < 40 for bar in bars), max(bars, key=len)
