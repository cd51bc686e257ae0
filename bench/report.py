"""Turns one run's results into the markdown report (bench/results.md) that the README links to."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from bench import contenders, instructions
from bench.throughput import cpu_ratio, ratio, summary

COMPARISONS = (
    ("groundwire gRPC / bare stub (sync)", "groundwire-grpc", "stub-grpc"),
    ("groundwire gRPC / bare stub (asyncio)", "groundwire-grpc-async", "stub-grpc-async"),
    (
        "groundwire gRPC / stub decoding a chunk per citation (sync, an extra, not the floor)",
        "groundwire-grpc",
        "stub-grpc-per-citation",
    ),
    ("groundwire gRPC / official gRPC (sync)", "groundwire-grpc", "official-grpc"),
    ("groundwire gRPC / official gRPC (asyncio)", "groundwire-grpc-async", "official-grpc-async"),
    ("groundwire REST / official REST (sync)", "groundwire-rest", "official-rest"),
    ("groundwire REST asyncio / official REST (sync)", "groundwire-rest-async", "official-rest"),
    ("groundwire REST asyncio / sync", "groundwire-rest-async", "groundwire-rest"),
)
"""(row label, ours, theirs): each row of the ratio tables."""
VALIDATED, UNVALIDATED = "groundwire-grpc-validate", "groundwire-grpc"
OBSERVED = "groundwire-grpc-observed"
INFLIGHTS = (1, 64)


def table(header: Sequence[str], rows: Iterable[Sequence[object]]) -> str:
    """A markdown table; numbers are formatted by `cell`."""
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(cell(value) for value in row) + " |" for row in rows]
    return "\n".join(lines)


def cell(value: object) -> str:
    """A table cell: floats to 3 significant figures, None as an em dash."""
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "met" if value else "**missed**"
    if isinstance(value, float):
        return f"{value:,.0f}" if abs(value) >= 100 else f"{value:.3g}"
    return str(value)


def _section(title: str, results: dict[str, Any], key: str, body: Any) -> list[str]:
    found = results.get(key)
    if found is None:
        return []
    # Markers let a docs page include one section (`--8<-- "bench/results.md:spark"`).
    start, end = f"<!-- --8<-- [start:{key}] -->", f"<!-- --8<-- [end:{key}] -->"
    if "error" in found:
        return [start, f"## {title}", "", f"Not measured: `{found['error']}`", end, ""]
    return [start, f"## {title}", "", *body(found), end, ""]


def _targets(judged: list[dict[str, Any]]) -> list[str]:
    rows = [
        (t["target"], None if t["value"] is None else f"{cell(t['value'])}{t['unit']}", t["met"])
        for t in judged
    ]
    return [table(("target", "measured", "verdict"), rows)]


def _throughput(found: dict[str, Any]) -> list[str]:
    settings = found["settings"]
    lines = [
        f"{settings['rounds']} interleaved round(s) of {settings['seconds']} s per contender, "
        f"workload and load ({settings.get('busy_seconds', settings['seconds'])} s at more "
        f"than one call in flight), after {settings['warmup']} s of warm-up; medians over "
        "rounds. "
        "CPU is the contender process's own (`time.process_time`), per completed call. "
        "groundwire runs with `validate=False` (the stub and the official client validate "
        "nothing) except in `groundwire-grpc-validate`; the stub and the official client "
        "convert offsets in plain user code (`len(answer.encode()[:start_pos].decode())`). "
        "Every ratio to the bare stub uses the fair stub `stub-grpc` / `stub-grpc-async` as "
        "its baseline: it sends the same two headers as groundwire and decodes each cited "
        "chunk's text once per response, as a careful user does; `stub-grpc-per-citation` "
        "(decoding a chunk at each citation) is an extra contender, never a baseline.",
        "",
    ]
    for workload, title in found["workloads"].items():
        lines += [f"### {title}", "", _contender_table(found, workload), ""]
    workloads = list(found["workloads"])
    header = ["comparison", *(f"{w} @{n}" for w in workloads for n in INFLIGHTS)]
    lines += [
        "### Ratios",
        "",
        "Calls/s, the median of per-round ratios (above 1: groundwire is faster):",
        "",
        table(header, _ratio_rows(found, workloads, ratio)),
        "",
        "Client CPU per call, theirs ÷ ours, the median of per-round ratios (above 1: "
        "groundwire uses less CPU):",
        "",
        table(header, _ratio_rows(found, workloads, _cpu_saving)),
        "",
        "### The cost of validation (sync gRPC, `validate=True` against `validate=False`)",
        "",
        _cost_table(found, workloads, VALIDATED),
        "",
        "### The cost of an interceptor (sync gRPC, score workload)",
        "",
        "Every other groundwire row runs with no interceptors (the empty chain: hooks that do "
        "nothing). `groundwire-grpc-observed` has one interceptor that counts each "
        "attempt and outcome.",
        "",
        _cost_table(found, ("score",), OBSERVED),
    ]
    return lines


def _contender_table(found: dict[str, Any], workload: str) -> str:
    rows: list[tuple[object, ...]] = []
    for contender in contenders.CONTENDERS:
        if workload not in contender.workloads:
            continue
        entry = found["contenders"][contender.name]
        if "failed" in entry:
            rows.append((f"`{contender.name}`", "failed: " + entry["failed"][:80], *[None] * 5))
            continue
        one, many = (summary(found, contender.name, workload, n) or {} for n in INFLIGHTS)
        rows.append(
            (
                f"`{contender.name}`",
                one.get("calls_per_second"),
                many.get("calls_per_second"),
                one.get("client_cpu_us_per_call"),
                many.get("client_cpu_us_per_call"),
                many.get("server_cpu_us_per_call"),
                one.get("errors", 0) + many.get("errors", 0),
            )
        )
    return table(
        (
            "contender",
            "calls/s @1",
            "calls/s @64",
            "client CPU µs/call @1",
            "client CPU µs/call @64",
            "server CPU µs/call @64",
            "errors",
        ),
        rows,
    )


def _ratio_rows(
    found: dict[str, Any],
    workloads: list[str],
    compare: Callable[[dict[str, Any], str, str, str, int], float | None],
) -> list[tuple[object, ...]]:
    rows: list[tuple[object, ...]] = []
    for label, ours, theirs in COMPARISONS:
        values = [compare(found, w, ours, theirs, n) for w in workloads for n in INFLIGHTS]
        if any(value is not None for value in values):
            rows.append((label, *values))
    return rows


def _cpu_saving(
    found: dict[str, Any], workload: str, ours: str, theirs: str, inflight: int
) -> float | None:
    return cpu_ratio(found, workload, theirs, ours, inflight)


def _cost_table(found: dict[str, Any], workloads: Sequence[str], variant: str) -> str:
    """What `variant` costs against plain `groundwire-grpc`, per workload: calls/s and CPU."""
    header = (
        "workload",
        *(f"calls/s ratio @{n}" for n in INFLIGHTS),
        *(f"client CPU µs/call added @{n}" for n in INFLIGHTS),
    )
    rows = [
        (
            workload,
            *(ratio(found, workload, variant, UNVALIDATED, n) for n in INFLIGHTS),
            *(_cpu_added(found, workload, n, variant) for n in INFLIGHTS),
        )
        for workload in workloads
    ]
    return table(header, rows)


def _cpu_added(found: dict[str, Any], workload: str, inflight: int, variant: str) -> float | None:
    """The client CPU µs per call `variant` adds to plain `groundwire-grpc`."""
    varied = summary(found, variant, workload, inflight)
    plain = summary(found, UNVALIDATED, workload, inflight)
    if varied is None or plain is None:
        return None
    return float(varied["client_cpu_us_per_call"] - plain["client_cpu_us_per_call"])


def _imports(found: dict[str, Any]) -> list[str]:
    rows = [
        (f"`{name.replace(chr(10), '; ')}`", 1e3 * entry["seconds"], entry["rss_mib"])
        for name, entry in found.items()
    ]
    return [
        f"Fresh interpreter per sample, median of {next(iter(found.values()))['samples']} samples.",
        "",
        table(("import", "time (ms)", "RSS added (MiB)"), rows),
    ]


def _offsets(found: dict[str, Any]) -> list[str]:
    return [
        f"{found['claims']} claims over a {found['answer_characters']:,}-character "
        f"({found['answer_bytes']:,}-byte) answer of 4,096 tokens.",
        "",
        table(
            ("method", "answers converted/s"),
            [
                ("groundwire `resolve_byte_spans`", found["groundwire_per_second"]),
                ("naive per-claim re-encode", found["naive_per_second"]),
                ("speed-up", f"{found['speedup']:.1f}×"),
            ],
        ),
    ]


def _streams(found: dict[str, Any]) -> list[str]:
    return [
        f"A {found['sentences']}-sentence multi-byte answer read as {found['tokens']} "
        "4-byte tokens, each sentence checked against the embedded emulator (gRPC); beside "
        "it, `check_grounding` of the same sentences one after another. The merge: "
        f"{found['pieces']} pieces of three streamed answers.",
        "",
        table(
            ("what", "per sentence (ms)", "vs plain checks"),
            [
                ("plain `check_grounding`, one at a time", found["plain_ms"], "1.00×"),
                (
                    "`check_grounding_stream`, concurrency 1",
                    found["stream_1_ms"],
                    f"{found['stream_1_vs_plain']:.2f}×",
                ),
                (
                    "`check_grounding_stream`, concurrency 4",
                    found["stream_4_ms"],
                    f"{found['stream_4_vs_plain']:.2f}×",
                ),
            ],
        ),
        "",
        f"Merging a generated stream (`merge_pieces`): {found['merge_us_per_piece']:.1f} µs "
        "per piece.",
        "",
        f"Splitting (`check_grounding(..., split=True)`), a 1,200-sentence answer against 400 "
        f"facts, {found['split_calls']} calls: {found['split_ms']:.1f} ms, "
        f"{found['split_vs_one_by_one']:.2f}× the same calls made one by one "
        f"({found['split_one_by_one_ms']:.1f} ms); planning and merging alone "
        f"{found['split_plan_merge_ms']:.1f} ms.",
    ]


def _spark(found: dict[str, Any]) -> list[str]:
    many, spark, beam = found["many"], found["spark"], found["beam"]
    return [
        f"{found['rows']:,} rows checked against one `groundwire serve` process on loopback, "
        "each job in a process of its own: a Spark job (`mapInPandas` with "
        "`groundwire.integrations.spark.check_grounding_batches`, local[2], two partitions) in "
        "build/venv-spark; Beam's `CheckGrounding` on the DirectRunner (FnApiRunner, two "
        "worker processes) in build/venv-beam; `check_grounding_many` called directly. Every "
        "row got a result in each. The Spark session's start "
        f"({spark['session_seconds']:.1f} s) is not in its job's time.",
        "",
        table(
            ("job", "wall time (s)", "rows per second", "vs check_grounding_many"),
            [
                (
                    "`check_grounding_many`, one process",
                    many["seconds"],
                    many["rows_per_second"],
                    "1.00×",
                ),
                (
                    "Spark, local[2]",
                    spark["seconds"],
                    spark["rows_per_second"],
                    f"{spark['vs_many']:.2f}×",
                ),
                (
                    "Beam, DirectRunner (2 workers)",
                    beam["seconds"],
                    beam["rows_per_second"],
                    f"{beam['vs_many']:.2f}×",
                ),
            ],
        ),
    ]


def _bigquery(found: dict[str, Any]) -> list[str]:
    rows: list[tuple[object, ...]] = []
    for size, entry in found["sizes"].items():
        endpoint, direct = entry["endpoint"], entry["direct"]
        rows.append(
            (
                f"{size} rows per call",
                f"{endpoint['rows_per_second']:.0f}",
                f"{direct['rows_per_second']:.0f}",
                f"{entry['ratio']:.2f}×",
                f"{endpoint['cpu_us_per_row']:.0f}",
                f"{direct['cpu_us_per_row']:.0f}",
            )
        )
    return [
        f"{found['rows']:,} rows against one `groundwire serve` emulator process (gRPC): "
        "`groundwire bigquery-endpoint` (uvicorn, real HTTP, its own process) sent "
        f"BigQuery-format calls, {found['parallel']} at once, beside the same rows as batches "
        f"of the same size through `check_grounding_many`, {found['parallel']} at once, in a "
        "process of its own that reads each result as the reply does (`check_record`). CPU "
        "per row is that of the process holding the client (the endpoint's, or the direct "
        "one's), not the emulator's or the caller's. Best of the runs.",
        "",
        table(
            (
                "calls",
                "endpoint rows/s",
                "direct rows/s",
                "endpoint / direct",
                "endpoint CPU µs/row",
                "direct CPU µs/row",
            ),
            rows,
        ),
    ]


def _engine(found: dict[str, Any]) -> list[str]:
    latency = found["latency"]
    rows: list[tuple[object, ...]] = [
        (
            f"{name} request: p50 / p99 / max (ms), {entry['calls']} sequential calls",
            f"{cell(entry['p50_ms'])} / {cell(entry['p99_ms'])} / {cell(entry['max_ms'])}",
        )
        for name, entry in latency.items()
    ]
    for generator, entry in found.get("varied", {}).items():
        rows.append(
            (
                f"varied text ({generator}), largest request over gRPC: cold (first) / warm "
                f"p50 / warm p99 (ms), {entry['largest']['calls']} warm calls, "
                f"{entry['largest'].get('unfinished_claims', 0)} of "
                f"{entry['largest']['claims']} claims unfinished",
                f"{cell(entry['largest_cold_ms'])} / {cell(entry['largest']['p50_ms'])} / "
                f"{cell(entry['largest']['p99_ms'])}",
            )
        )
        rows.append(
            (
                f"varied text ({generator}), small request: p50 / p99 (ms)",
                f"{cell(entry['small']['p50_ms'])} / {cell(entry['small']['p99_ms'])}",
            )
        )
    for workers in (1, 2):
        entry = found[f"workers_{workers}"]
        rows.append(
            (
                f"--workers {workers}: checks/s at saturation ({entry['load_generators']})",
                f"{cell(entry['checks_per_second'])} ({entry['errors']} errors)",
            )
        )
        split = " / ".join(f"{used:.1f}" for used in entry["server_cpu_seconds_by_process"])
        rows.append(
            (f"--workers {workers}: CPU seconds per server process (supervisor first)", split)
        )
        rows.append(
            (f"--workers {workers}: peak RSS of the server processes (MiB)", entry["peak_rss_mib"])
        )
    return [
        "`groundwire serve` in its own process; load generators share the machine's cores.",
        "",
        table(("measure", "value"), rows),
    ]


def _quality(found: dict[str, Any]) -> list[str]:
    from bench.quality import outside, pairwise

    rows = [
        (name, entry["cases"], entry["precision"], entry["recall"], entry["balanced_accuracy"])
        for name, entry in found.items()
        if name not in ("outside", "pairwise")
    ]
    lines = [table(("set", "cases", "precision", "recall", "balanced accuracy"), rows)]
    if "outside" in found:
        lines += [
            "",
            "Labelled LLM answers from outside the project, response level (faithful = no "
            "hallucinated span; predicted faithful = support score ≥ 0.5, for the overlap "
            "scorer mean word overlap ≥ 0.82, its best bar on `tune`; AUROC ranks by those "
            "scores) and claim level (sentences overlapping a hallucinated span are "
            "hallucinated claims; cited = grounded at 0.6), beside a plain word-overlap "
            "scorer. `tune` and `measure` split RAGTruth's training part by source; only "
            "`tune` was tuned on.",
            "",
            table(outside.HEADER, outside.table(found["outside"])),
        ]
    if "pairwise" in found:
        lines += [
            "",
            "Pairwise accuracy, a proxy of the HaluEval target: the share of pairs where the "
            "right answer scores strictly above the hallucinated one (a tie is a loss; the ties "
            "columns count them). `tune QA` and "
            "`measure QA`: every (faithful, hallucinated) pair of responses to one QA source; "
            "`written`: the project's own triples (`bench/quality/cases_pairwise.jsonl`, the "
            "knowledge as one fact), in all and per kind of hallucination.",
            "",
            table(pairwise.HEADER, pairwise.table(found["pairwise"])),
        ]
    return lines


def render(results: dict[str, Any]) -> str:
    """The whole report as markdown."""
    meta = results["meta"]
    lines = [
        "# groundwire benchmarks",
        "",
        f"One run of `make bench` on {meta['machine']}, {meta['date']}; wall time "
        f"{meta['wall_seconds']:.0f} s. Versions: {meta['versions']}. The machine is shared "
        "and noisy: compare the ratios (taken within this run), not absolute times.",
        "",
        "## Targets",
        "",
        *_targets(results["targets"]),
        "",
    ]
    lines += _section(
        "Client throughput (CheckGrounding, canned server processes)",
        results,
        "throughput",
        _throughput,
    )
    lines += _section("Import cost", results, "imports", _imports)
    lines += _section("Offset conversion", results, "offsets", _offsets)
    lines += _section("Emulator engine", results, "engine", _engine)
    lines += _section("Streams", results, "streams", _streams)
    lines += _section("BigQuery remote function", results, "bigquery", _bigquery)
    lines += _section("Spark and Beam", results, "spark", _spark)
    lines += _section("Engine quality (labelled sets)", results, "quality", _quality)
    lines += instructions.committed_section()  # make bench-gate's counts, carried over
    return "\n".join(lines).rstrip() + "\n"
