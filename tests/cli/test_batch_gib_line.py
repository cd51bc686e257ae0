"""A batch line of a GiB is refused without ever being held: the command's memory stays small."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from tests.cli.running import cli_command, cli_env

pytestmark = pytest.mark.timeout(300)

GIB = 1 << 30
PEAK_MIB = 400
"""What `groundwire batch --local` may reach while it reads past the line: its own emulator,
client and the 16 MiB it looks at, far below the GiB it would take to hold the line."""

GOOD = {"answer": "Paris is in France.", "facts": ["Paris is in France."]}


@pytest.mark.slow
def test_a_one_gib_line_fails_alone_and_the_command_never_holds_it(tmp_path: Path) -> None:
    source, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    with source.open("wb") as file:
        file.write(json.dumps(GOOD).encode() + b"\n")
        file.write(b'{"answer": "')
        file.seek(GIB, os.SEEK_CUR)  # a sparse GiB of NUL bytes: no disk, all of it read
        file.write(b'", "facts": ["a"]}\n' + json.dumps(GOOD).encode() + b"\n")
    process = subprocess.Popen(
        cli_command(
            "batch", "--local", str(source), "-o", str(out), "--rate", "0", "--no-progress"
        ),
        env=cli_env(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)

    assert process.returncode == 1  # not every line has a result
    written = {record["line"]: record for record in map(json.loads, out.read_text().splitlines())}
    assert sorted(written) == [1, 2, 3]
    assert written[2]["error"]["code"] == "INVALID_ARGUMENT"
    assert "longer than the 16 MiB" in written[2]["error"]["message"]
    assert "result" in written[1]
    assert "result" in written[3]
    assert usage.ru_maxrss / 1024 < PEAK_MIB, f"peak RSS {usage.ru_maxrss / 1024:.0f} MiB"
