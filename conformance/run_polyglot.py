"""`make test-polyglot`'s driver: every language's client against one fresh `groundwire serve`.

First it writes the snippets of docs/polyglot.md that are marked `<!-- compiled: HARNESS -->` into
their harnesses (HARNESS, e.g. go/snippets/offsets.go: the imports and variables a snippet
assumes, and a line `// <snippet>` where it goes) under build/polyglot/snippets/, for each
language's script to compile. Every other snippet in another language than Python (which
tests/test_docs_examples.py runs) or the shell must be marked `<!-- not compiled here: WHY -->`.

Then it starts the emulator on free loopback ports, checks the shared case
(conformance/grounding_case.json) with groundwire's own Python client, then runs each
language's script (given as arguments, e.g. typescript/test.sh) with the emulator's addresses
in its environment. A script compiles and runs its clients, which assert and exit non-zero on
a mismatch; each client prints one report line on stdout: `{"language": ..., "check": {...}}`.
The driver requires every report's check (support score, byte offsets, citations) to equal
Python's.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import struct
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from google.protobuf import json_format
from markdown_it import MarkdownIt

from groundwire import GroundingClient
from groundwire.contract.apis import method

ROOT = Path(__file__).resolve().parent.parent
CASE = ROOT / "conformance" / "grounding_case.json"
OFFSETS = ROOT / "conformance" / "offsets.json"
PAGE = ROOT / "docs" / "polyglot.md"
SNIPPETS = ROOT / "build" / "polyglot" / "snippets"
COMPILED = re.compile(r"<!-- compiled: (?P<harness>\S+) -->")
NOT_COMPILED = re.compile(r"<!-- not compiled here: [^>]+ -->")
MARKS = "<!-- compiled: HARNESS --> or <!-- not compiled here: WHY -->"
PLACEHOLDER = "// <snippet>"  # the line of a harness that its snippet replaces
CHECKED_ELSEWHERE = {"python", "sh"}  # tests/test_docs_examples.py runs the Python; sh: commands
SCRIPT_TIMEOUT_S = 900.0
START_TIMEOUT_S = 60.0
BUILD_FOLDERS = {"typescript": "ts"}  # a language's folder -> its generated code's, if not the same
ADDRESSES = re.compile(r"GROUNDWIRE_EMULATOR_HOST=(\S+) GROUNDWIRE_EMULATOR_REST=(\S+)")


def write_snippets(page: Path, out: Path) -> list[Path]:
    """Writes every snippet of the page marked compiled into its harness, under out; the files.

    Raises SystemExit on a snippet marked neither way, a harness that is missing, lacks the
    placeholder or serves no snippet, and on a page with no compiled snippet at all.
    """
    tokens = MarkdownIt("commonmark").parse(page.read_text(encoding="utf-8"))
    written: list[Path] = []
    used: set[Path] = set()
    problems: list[str] = []
    for before, token in zip([None, *tokens], tokens, strict=False):
        if token.type != "fence" or (token.info.split() or [""])[0] in CHECKED_ELSEWHERE:
            continue
        where = f"{page.relative_to(ROOT)}:{token.map[0] + 1 if token.map else 0}"
        mark = before.content if before is not None and before.type == "html_block" else ""
        compiled = COMPILED.search(mark)
        if compiled is None:
            if not NOT_COMPILED.search(mark):
                problems.append(f"{where}: unmarked; mark it {MARKS}")
            continue
        harness = ROOT / compiled["harness"]
        text = harness.read_text(encoding="utf-8") if harness.is_file() else ""
        if PLACEHOLDER not in text:
            problems.append(
                f"{where}: {compiled['harness']} is missing or has no line {PLACEHOLDER!r}"
            )
            continue
        snippet = f"// {where}\n{token.content.rstrip()}"
        target = out / harness.parent.parent.name / harness.name  # go/snippets/x.go: out/go/x.go
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text.replace(PLACEHOLDER, snippet, 1), encoding="utf-8")
        used.add(harness)
        written.append(target)
    unused = set(ROOT.glob("*/snippets/*")) - used
    problems += [
        f"{path.relative_to(ROOT)} serves no snippet of {page.name}" for path in sorted(unused)
    ]
    if not written:
        problems.append(f"{page.relative_to(ROOT)}: no snippet is marked compiled")
    if problems:
        raise SystemExit("test-polyglot: " + "\n  ".join(["the docs' snippets:", *problems]))
    return written


def start_emulator() -> tuple[subprocess.Popen[str], str, str]:
    """Starts `groundwire serve` on free loopback ports: the process, its gRPC and REST address."""
    command = [sys.executable, "-m", "groundwire.cli", "serve", "--grpc-port", "0"]
    server = subprocess.Popen(
        [*command, "--http-port", "0"], stdout=subprocess.PIPE, text=True, cwd=ROOT
    )
    assert server.stdout is not None
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        line = server.stdout.readline()
        if not line:
            break
        found = ADDRESSES.search(line)
        if found:
            return server, found.group(1), found.group(2)
    server.kill()
    raise SystemExit("test-polyglot: groundwire serve did not say where it listens")


def stop(server: subprocess.Popen[str]) -> None:
    """Stops the emulator: SIGTERM lets it finish in-flight calls; SIGKILL if it hangs."""
    server.terminate()
    try:
        server.wait(timeout=30)
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait()


def python_check(grpc_address: str, case: dict[str, Any]) -> dict[str, Any]:
    """Checks the case with groundwire's Python client; asserts its claims; the summary."""
    request = json_format.ParseDict(
        case["check"]["request"], method("discoveryengine", "v1", "CheckGrounding").request_class()
    )
    with GroundingClient("groundwire-polyglot", endpoint=grpc_address, transport="grpc") as client:
        result = client.check_grounding(request)
    answer = case["check"]["request"]["answerCandidate"]
    for claim, expected in zip(result.claims, case["check"]["expected"], strict=True):
        assert [claim.start_byte, claim.end_byte] == expected["bytes"], claim
        assert [claim.start, claim.end] == expected["codePoints"], claim
        assert [claim.start_utf16, claim.end_utf16] == expected["utf16"], claim
        assert answer[claim.start : claim.end] == expected["text"], claim
        assert list(claim.citation_indices) == expected["citationIndices"], claim
    return summary(result.raw)


def summary(response: Any) -> dict[str, Any]:
    """The part of a CheckGroundingResponse that every language must agree on."""
    return {
        "supportScore": response.support_score,
        "claims": [
            {
                "start": claim.start_pos,
                "end": claim.end_pos,
                "citationIndices": list(claim.citation_indices),
            }
            for claim in response.claims
        ],
    }


def as_float32(check: dict[str, Any]) -> dict[str, Any]:
    """The check with its score rounded to the proto's float, as every language decodes it."""
    score = struct.unpack("<f", struct.pack("<f", check["supportScore"]))[0]
    return {**check, "supportScore": score}


def run_script(script: str, environment: dict[str, str]) -> list[dict[str, Any]]:
    """Runs one language's script; its clients' reports (a failed script raises SystemExit)."""
    started = time.monotonic()
    try:
        finished = subprocess.run(
            ["bash", str(ROOT / script)],
            stdout=subprocess.PIPE,
            text=True,
            env=environment,
            timeout=SCRIPT_TIMEOUT_S,
            check=False,
        )
    except subprocess.TimeoutExpired:
        raise SystemExit(f"test-polyglot: {script} ran past {SCRIPT_TIMEOUT_S:.0f} s") from None
    print(f"== {script}: exit {finished.returncode}, {time.monotonic() - started:.0f} s")
    reports = [
        json.loads(line) for line in finished.stdout.splitlines() if line.startswith('{"language"')
    ]
    if finished.returncode != 0 or not reports:
        print(finished.stdout, end="")
        raise SystemExit(f"test-polyglot: {script} failed (exit {finished.returncode})")
    return reports


def main(scripts: list[str]) -> int:
    """Runs every script against one emulator; 0 when all agree with Python, else 1."""
    if not scripts:
        raise SystemExit("usage: run_polyglot.py LANGUAGE/test.sh ...")
    sys.stdout.reconfigure(line_buffering=True)  # type: ignore[union-attr]  # in order with the scripts' output
    shutil.rmtree(SNIPPETS, ignore_errors=True)
    snippets = write_snippets(PAGE, SNIPPETS)
    print(f"== {PAGE.relative_to(ROOT)}: {len(snippets)} snippets to compile")
    case = json.loads(CASE.read_text(encoding="utf-8"))
    server, grpc_address, rest_url = start_emulator()
    try:
        expected = as_float32(python_check(grpc_address, case))
        print(f"== python: {json.dumps(expected)}")
        environment = {
            **os.environ,
            "GROUNDWIRE_GRPC": grpc_address,
            "GROUNDWIRE_REST": rest_url,
            "GROUNDWIRE_CASE": str(CASE),
            "GROUNDWIRE_OFFSETS": str(OFFSETS),
        }
        agreed: list[str] = []
        failed: list[str] = []
        for script in scripts:
            folder = script.split("/")[0]
            build = BUILD_FOLDERS.get(folder, folder)
            environment["POLYGLOT_BUILD"] = str(ROOT / "build" / "polyglot" / build)
            environment["POLYGLOT_SNIPPETS"] = str(SNIPPETS / folder)
            for report in run_script(script, environment):
                check = as_float32(report["check"])
                agrees = check == expected
                print(f"== {report['language']}: {'same check as Python' if agrees else check}")
                (agreed if agrees else failed).append(report["language"])
    finally:
        stop(server)
    print(f"polyglot: {len(agreed)} passed, {len(failed)} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
