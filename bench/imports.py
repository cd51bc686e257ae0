"""Import cost: wall time and resident memory added by each import, in fresh interpreters.

Every sample is a new interpreter that reads its own clock and /proc/self/status around one
import statement, so interpreter start-up is not counted and nothing is cached in-process.
Statements alternate sample by sample, and the median of each is reported.
"""

from __future__ import annotations

import json
import statistics
import subprocess
from typing import Any

from bench import procs

STATEMENTS = {
    "import groundwire": "import groundwire",
    "from groundwire import GroundingClient": "from groundwire import GroundingClient",
    "groundwire, all a gRPC call loads": (
        "from groundwire import GroundingClient\n"
        "from groundwire.contract import apis, calls, results\n"
        "from groundwire.transports import grpc\n"
        "apis.method('discoveryengine', 'v1', 'CheckGrounding')"
    ),
    "from google.cloud import discoveryengine_v1": "from google.cloud import discoveryengine_v1",
}

_PROBE = """
import json, re, time
def rss():
    status = open("/proc/self/status").read()
    return int(re.search(r"VmRSS:\\s+(\\d+) kB", status).group(1))
before_rss, before = rss(), time.perf_counter()
exec(compile({statement!r}, "<bench>", "exec"))
after = time.perf_counter()
print(json.dumps({{"seconds": after - before, "rss_kib": rss() - before_rss}}))
"""


def sample(statement: str) -> dict[str, float]:
    """One fresh interpreter's import time (s) and RSS growth (KiB) for `statement`."""
    completed = subprocess.run(
        [procs.PYTHON, "-c", _PROBE.format(statement=statement)],
        capture_output=True,
        text=True,
        env=procs.child_environment(),
        cwd=procs.ROOT,
        timeout=120,
        check=True,
    )
    result: dict[str, float] = json.loads(completed.stdout.strip().splitlines()[-1])
    return result


def measure(repeats: int = 7) -> dict[str, Any]:
    """Median import time and RSS growth for every statement over `repeats` samples each."""
    samples: dict[str, list[dict[str, float]]] = {name: [] for name in STATEMENTS}
    for _ in range(repeats):
        for name, statement in STATEMENTS.items():
            samples[name].append(sample(statement))
    return {
        name: {
            "seconds": statistics.median(s["seconds"] for s in found),
            "rss_mib": statistics.median(s["rss_kib"] for s in found) / 1024,
            "samples": len(found),
        }
        for name, found in samples.items()
    }
