"""`make bench`: every benchmark in one run, written to bench/results.json and bench/results.md.

`python -m bench.run` runs the sections in order, prints progress to standard error and the
markdown report to standard output. A section that fails is reported as not measured; the
others still run. `--quick` shortens every measurement (for trying changes, not for numbers);
`--only throughput,imports` (`make bench SECTIONS=throughput,imports`) runs some sections and
only prints their report: the result files always hold one whole run.

The throughput section measures every client contender (bench.contenders) on the `score`,
`full` and `long` workloads at 1 and 64 calls in flight; bench.targets judges the results.
To see where one contender's time goes, profile it alone:
`python -m bench.profile groundwire-grpc --workload full --calls 2000` (see bench.profile).
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import sys
import time
import traceback
from collections.abc import Callable
from importlib import metadata
from pathlib import Path
from typing import Any

from bench import bigquery, engine, imports, offsets, report, spark, streams, targets, throughput

HERE = Path(__file__).resolve().parent
RESULTS_JSON = HERE / "results.json"
RESULTS_MD = HERE / "results.md"
PACKAGES = (
    "groundwire",
    "grpcio",
    "protobuf",
    "httpx",
    "google-cloud-discoveryengine",
    "google-api-core",
    "proto-plus",
)


def quality() -> dict[str, Any]:
    """The engine's quality on every labelled set there is, beside the overlap scorer.

    Precision, recall and balanced accuracy on the dev and held-out labelled sets, and the
    outside figures (engine-dev data when found, the data-to-text set), and the pairwise
    proxies of the HaluEval target. With the engine-dev data, it also rewrites the rule-worth
    table in docs/engine.md (bench.quality.rule_worth); without it, the page is left alone.
    """
    from bench.quality import evaluate, outside, pairwise, responses, rule_worth

    worth = rule_worth.measure(responses.default_engine_dev())
    rule_worth.write_docs(worth)
    print(f"bench: rule worth {worth.get('skipped', 'written to docs/engine.md')}", file=sys.stderr)

    found: dict[str, Any] = {
        name: {key: value for key, value in evaluate.evaluate(path).items() if key != "failures"}
        for name, path in (("dev", evaluate.DEV_CASES), ("held-out", evaluate.HELDOUT_CASES))
    }
    found["outside"] = outside.evaluate_outside(responses.default_engine_dev())
    found["pairwise"] = pairwise.evaluate_pairwise(responses.default_engine_dev())
    return found


def sections(quick: bool) -> dict[str, Callable[[], dict[str, Any]]]:
    """Each section's name and how to run it, in running order."""
    settings = (
        throughput.Settings(rounds=1, warmup=0.2, seconds=0.5, busy_seconds=0.5)
        if quick
        else throughput.Settings()
    )
    return {
        "throughput": lambda: throughput.measure(settings),
        "imports": lambda: imports.measure(repeats=3 if quick else 7),
        "offsets": lambda: offsets.measure(seconds=0.5 if quick else 2.0),
        "engine": engine.measure,
        "streams": lambda: streams.measure(
            sentences=30 if quick else 60, repeats=1 if quick else 3
        ),
        "spark": lambda: spark.measure(rows=2_000 if quick else 10_000),
        "quality": quality,
        "bigquery": lambda: bigquery.measure(
            row_count=1000 if quick else 6000, repeats=1 if quick else 2
        ),
    }


def run_section(name: str, measure: Callable[[], dict[str, Any]]) -> tuple[dict[str, Any], float]:
    """Runs one section: its results (a failure becomes `{"error": ...}`) and its seconds."""
    started = time.perf_counter()
    print(f"bench: {name} ...", file=sys.stderr, flush=True)
    try:
        found = measure()
    except Exception as error:  # one broken section must not lose the others
        traceback.print_exc(file=sys.stderr)
        found = {"error": f"{type(error).__name__}: {error}"[:500]}
    seconds = time.perf_counter() - started
    print(f"bench: {name} done in {seconds:.0f} s", file=sys.stderr, flush=True)
    return found, seconds


def _versions() -> str:
    found = []
    for package in PACKAGES:
        try:
            found.append(f"{package} {metadata.version(package)}")
        except metadata.PackageNotFoundError:
            continue
    return ", ".join([f"Python {platform.python_version()}", *found])


def _meta(wall_seconds: float, section_seconds: dict[str, float]) -> dict[str, Any]:
    return {
        "section_seconds": {name: round(seconds, 1) for name, seconds in section_seconds.items()},
        "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "machine": f"{os.cpu_count()} cores, {platform.machine()} {platform.system()}",
        "versions": _versions(),
        "wall_seconds": wall_seconds,
    }


def write(results: dict[str, Any], markdown: str) -> None:
    """Writes both files, each replaced in one step."""
    for path, text in (
        (RESULTS_JSON, json.dumps(results, indent=2, ensure_ascii=False)),
        (RESULTS_MD, markdown),
    ):
        temporary = path.with_name(path.name + ".tmp")
        temporary.write_text(text + ("" if text.endswith("\n") else "\n"), encoding="utf-8")
        temporary.replace(path)


def main(argv: list[str]) -> int:
    """Runs the sections `argv` asks for, writes both result files and prints the report."""
    parser = argparse.ArgumentParser(prog="python -m bench.run", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="short measurements, for trials")
    parser.add_argument("--only", help="comma-separated sections to run")
    args = parser.parse_args(argv)
    chosen = sections(args.quick)
    names = args.only.split(",") if args.only else list(chosen)
    unknown = sorted(set(names) - set(chosen))
    if unknown:
        parser.error(f"no section {', '.join(unknown)}; the sections are {', '.join(chosen)}")
    started = time.perf_counter()
    results: dict[str, Any] = {}
    section_seconds: dict[str, float] = {}
    for name in names:
        results[name], section_seconds[name] = run_section(name, chosen[name])
    results["meta"] = _meta(time.perf_counter() - started, section_seconds)
    results["targets"] = targets.judge_all(results)
    markdown = report.render(results)
    if not args.only:
        write(results, markdown)
    print(markdown)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
