"""Spark: 10,000 rows checked on 2 local cores, beside Beam's Python runner and the batch API.

One `groundwire serve` process on loopback answers all three; each job runs in a process of
its own, in its own environment: the Spark job
(`groundwire.integrations.spark.check_grounding_batches` through `mapInPandas`, local[2]) in
build/venv-spark, the Beam pipeline
(`groundwire.integrations.beam.CheckGrounding` on the FnApiRunner, two worker processes) in
build/venv-beam, and `check_grounding_many` in this interpreter's environment. Each child
imports groundwire from this tree (`src/` first on its path), and prints one JSON line: its
wall time (session start and job apart, for Spark) and how many rows got results.

`python -m bench.spark spark|beam|many --endpoint H:P --rest-endpoint URL --rows N` runs one.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SPARK_PYTHON = ROOT / "build" / "venv-spark" / "bin" / "python"
BEAM_PYTHON = ROOT / "build" / "venv-beam" / "bin" / "python"
FACT = "Paris is the capital of France."
PROJECT = "groundwire-emulator"
CHILD_TIMEOUT = 240.0


def _answer(number: int) -> str:
    return f"Paris is the capital of France ({number}). The Seine flows through Paris."


def _spark(endpoints: dict[str, str], rows: int) -> dict[str, Any]:
    os.environ["PYSPARK_PYTHON"] = sys.executable
    os.environ["SPARK_LOCAL_IP"] = "127.0.0.1"
    from pyspark.sql import SparkSession

    from groundwire.integrations.spark import RESULT_SCHEMA, check_grounding_batches

    started = time.perf_counter()
    session = (
        SparkSession.builder.master("local[2]")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.ui.enabled", "false")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    session.range(2).count()  # the JVM is up and has run a task
    session_seconds = time.perf_counter() - started
    try:
        data = [(number, _answer(number), [FACT]) for number in range(rows)]
        started = time.perf_counter()
        frame = session.createDataFrame(data, "id long, answer string, facts array<string>")
        check = check_grounding_batches(PROJECT, keep=["id"], **endpoints)
        out = frame.repartition(2).mapInPandas(check, schema=f"id long, {RESULT_SCHEMA}")
        found = out.collect()
        seconds = time.perf_counter() - started
    finally:
        session.stop()
    return {
        "seconds": seconds,
        "session_seconds": session_seconds,
        "rows": len(found),
        "results": sum(1 for row in found if row["error_code"] is None),
        "distinct_ids": len({row["id"] for row in found}),
    }


def _beam(endpoints: dict[str, str], rows: int) -> dict[str, Any]:
    import apache_beam as beam
    from apache_beam.metrics.metric import MetricsFilter
    from apache_beam.options.pipeline_options import PipelineOptions

    from groundwire.integrations.beam import CheckGrounding

    elements = [
        {"id": number, "answer": _answer(number), "facts": [FACT]} for number in range(rows)
    ]
    options = PipelineOptions(direct_num_workers=2, direct_running_mode="multi_processing")
    started = time.perf_counter()
    pipeline = beam.Pipeline(runner="DirectRunner", options=options)
    _ = pipeline | beam.Create(elements, reshuffle=True) | CheckGrounding(PROJECT, **endpoints)
    outcome = pipeline.run()
    outcome.wait_until_finish()
    seconds = time.perf_counter() - started
    counters = outcome.metrics().query(MetricsFilter().with_namespace("groundwire"))["counters"]
    metrics = {metric.key.metric.name: metric.committed for metric in counters}
    return {
        "seconds": seconds,
        "rows": int(metrics.get("checks", 0)) + int(metrics.get("failures", 0)),
        "results": int(metrics.get("checks", 0)),
    }


def _many(endpoints: dict[str, str], rows: int) -> dict[str, Any]:
    from groundwire.client.sync import GroundingClient

    items = [{"id": number, "answer": _answer(number), "facts": [FACT]} for number in range(rows)]
    started = time.perf_counter()
    with GroundingClient(PROJECT, **endpoints) as client:  # type: ignore[arg-type]
        outcomes = list(client.check_grounding_many(items))
    seconds = time.perf_counter() - started
    return {
        "seconds": seconds,
        "rows": len(outcomes),
        "results": sum(1 for outcome in outcomes if outcome.ok),
    }


JOBS = {"spark": _spark, "beam": _beam, "many": _many}


def _run_child(python: Path, job: str, endpoints: dict[str, str], rows: int) -> dict[str, Any]:
    """Runs one job in a child process of `python`, with this tree's groundwire first."""
    if not python.exists():
        raise RuntimeError(f"{python} is missing: `make bench` sets it up")
    environment = dict(os.environ)
    paths = [str(ROOT), str(ROOT / "src"), str(ROOT / "generated")]
    environment["PYTHONPATH"] = os.pathsep.join(
        [*paths, *filter(None, environment.get("PYTHONPATH", "").split(os.pathsep))]
    )
    command = [str(python), "-m", "bench.spark", job, "--rows", str(rows)]
    command += ["--endpoint", endpoints["endpoint"], "--rest-endpoint", endpoints["rest_endpoint"]]
    done = subprocess.run(
        command,
        capture_output=True,
        text=True,
        env=environment,
        cwd=ROOT,
        timeout=CHILD_TIMEOUT,
        check=False,
    )
    lines = done.stdout.strip().splitlines()
    if done.returncode != 0 or not lines:
        tail = done.stderr.strip().splitlines()[-1:] or ["no output"]
        raise RuntimeError(f"{job} job exited with {done.returncode}: {tail[0]}")
    found: dict[str, Any] = json.loads(lines[-1])
    if found["results"] != rows:
        raise RuntimeError(f"{job} job: {found['results']} results of {rows} rows")
    found["rows_per_second"] = rows / found["seconds"]
    return found


def measure(rows: int = 10_000) -> dict[str, Any]:
    """The Spark job, the Beam pipeline and `check_grounding_many` on the same rows."""
    from bench import engine, procs

    server = engine.start_emulator(workers=1)
    try:
        grpc_address, http_url = procs.addresses(server.ready_line)
        endpoints = {"endpoint": grpc_address, "rest_endpoint": http_url}
        found: dict[str, Any] = {"rows": rows}
        found["many"] = _run_child(Path(sys.executable), "many", endpoints, rows)
        found["spark"] = _run_child(SPARK_PYTHON, "spark", endpoints, rows)
        found["beam"] = _run_child(BEAM_PYTHON, "beam", endpoints, rows)
    finally:
        server.stop()
    many_rate = found["many"]["rows_per_second"]
    for job in ("spark", "beam"):
        found[job]["vs_many"] = found[job]["rows_per_second"] / many_rate
    return found


def main() -> None:
    """One job, in this process: prints its JSON line."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("job", choices=sorted(JOBS))
    parser.add_argument("--endpoint", required=True)
    parser.add_argument("--rest-endpoint", required=True)
    parser.add_argument("--rows", type=int, default=10_000)
    args = parser.parse_args()
    endpoints = {"endpoint": args.endpoint, "rest_endpoint": args.rest_endpoint}
    print(json.dumps(JOBS[args.job](endpoints, args.rows)), flush=True)


if __name__ == "__main__":
    main()
