"""Running the command line in a subprocess, as a user would."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Sequence

EMULATOR_VARIABLES = ("GROUNDWIRE_EMULATOR_HOST", "GROUNDWIRE_EMULATOR_REST")


def cli_env() -> dict[str, str]:
    """The environment of a CLI subprocess: no emulator pointers, no colors, UTF-8."""
    env = {k: v for k, v in os.environ.items() if k not in EMULATOR_VARIABLES}
    env.update(PYTHONIOENCODING="utf-8", NO_COLOR="1")
    return env


def cli_command(*argv: str) -> list[str]:
    """`python -m groundwire.cli ARGV...` with this interpreter."""
    return [sys.executable, "-m", "groundwire.cli", *argv]


def run_cli(
    argv: Sequence[str], stdin: str | None = None, timeout: float = 60
) -> subprocess.CompletedProcess[str]:
    """Runs the CLI to completion in a subprocess, capturing its output."""
    return subprocess.run(
        cli_command(*argv),
        input=stdin if stdin is not None else "",
        capture_output=True,
        text=True,
        encoding="utf-8",
        env=cli_env(),
        timeout=timeout,
        check=False,
    )
