"""The Node example of docs/testing.md runs as shown: stubs and the journal from Node."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from groundwire.emulator import Emulator

DOCS = Path(__file__).resolve().parents[2] / "docs" / "testing.md"


def test_the_node_example_registers_a_stub_and_reads_the_journal(emu: Emulator) -> None:
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    (example,) = re.findall(r"```js\n(.*?)```", DOCS.read_text(encoding="utf-8"), re.DOTALL)
    emu.reset()
    try:
        result = subprocess.run(
            [node, "--input-type=module", "-e", example],
            env={"GROUNDWIRE_EMULATOR_REST": emu.http_url, "PATH": "/usr/bin:/bin"},
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
    finally:
        emu.reset()
    assert result.returncode == 0, result.stderr[-2000:]
    answer = json.loads(result.stdout)
    assert answer == {"supportScore": 0.25, "sent": ["Paris is in France."]}
