"""The emulator's engine end to end: latency, saturation and memory of `groundwire serve`.

Latency is measured on the repeated multilingual sentences of ``workload`` and, cold and
warm, on the generators of varied text in ``bench.quality.engine_speed``: prose-like and
uniformly random words, and the adversarial ones (acronym runs, CJK, right-to-left text,
numbers). Each largest request also reports how many of its claims the emulator's work budget
left unfinished (its ``x-groundwire-unfinished-claims`` trailing metadata).

The server runs as its own process (`python -m groundwire.cli serve`). Latency is measured
from this process with one blocking gRPC client, one call at a time. Saturation uses separate
load-generator processes (each its own connection), which share the machine's cores with the
server: on two cores the numbers say what a laptop would see, not what the engine could do
alone. SO_REUSEPORT spreads connections, not calls, over the server's worker processes, so the
CPU each worker used is reported too. Peak memory is VmHWM of the server and its workers, summed.
"""

from __future__ import annotations

import functools
import json
import time
from collections.abc import Callable
from typing import Any

from bench import procs, workload
from bench.quality import engine_speed

LOADGEN_PROCESSES = 4
LOADGEN_INFLIGHT = 4


def start_emulator(workers: int) -> procs.Child:
    """`groundwire serve` on free loopback ports with `workers` worker processes."""
    return procs.start(
        [
            procs.PYTHON,
            "-m",
            "groundwire.cli",
            "serve",
            "--grpc-port",
            "0",
            "--http-port",
            "0",
            "--workers",
            str(workers),
        ],
        ready=r"groundwire emulator:",
        timeout=120,
    )


def percentile(samples: list[float], fraction: float) -> float:
    """The nearest-rank percentile of `samples` (fraction in 0..1)."""
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, max(0, round(fraction * len(ordered) + 0.5) - 1))]


def latencies(call: Callable[[], object], max_calls: int, budget: float) -> list[float]:
    """Seconds per call, one call at a time, until `max_calls` or `budget` seconds."""
    found: list[float] = []
    finish = time.perf_counter() + budget
    while len(found) < max_calls and time.perf_counter() < finish:
        started = time.perf_counter()
        call()
        found.append(time.perf_counter() - started)
    return found


def _latency_summary(samples: list[float]) -> dict[str, Any]:
    return {
        "calls": len(samples),
        "p50_ms": 1e3 * percentile(samples, 0.5),
        "p99_ms": 1e3 * percentile(samples, 0.99),
        "max_ms": 1e3 * max(samples),
    }


def measure_latency(grpc_address: str) -> dict[str, Any]:
    """p50/p99 of the small and the largest legal request, sequential calls."""
    from groundwire import GroundingClient

    results: dict[str, Any] = {}
    with GroundingClient(workload.PROJECT, transport="grpc", endpoint=grpc_address) as client:
        for name, chosen, max_calls, budget in (
            ("small", workload.small(), 1000, 3.0),
            ("largest", workload.largest(), 10, 15.0),
        ):
            facts = [(fact.text, fact.attributes) for fact in chosen.facts]
            check = functools.partial(client.check_grounding, chosen.answer, facts)
            result = check()  # warm-up
            results[name] = _latency_summary(latencies(check, max_calls, budget))
            results[name]["claims"] = len(result.claims)
    return results


def measure_varied_text(generator: str) -> dict[str, Any]:
    """Cold and warm latency on varied text (one of ``engine_speed.GENERATORS``), end to end.

    A fresh one-worker server per generator, so that the first largest request is cold (no
    cached reading of its facts); then warm repeats of it (p99), then small requests (p50).
    """
    from groundwire import GroundingClient

    server = start_emulator(1)
    try:
        grpc_address, _ = procs.addresses(server.ready_line)
        results: dict[str, Any] = {}
        with GroundingClient(workload.PROJECT, transport="grpc", endpoint=grpc_address) as client:
            answer, facts = engine_speed.largest_request(generator)
            texts = [(fact.text, dict(fact.attributes)) for fact in facts]
            check = functools.partial(client.check_grounding, answer, texts)
            started = time.perf_counter()
            result = check()
            results["largest_cold_ms"] = 1e3 * (time.perf_counter() - started)
            results["largest"] = _latency_summary(latencies(check, 10, 12.0))
            results["largest"]["claims"] = len(result.claims)
            results["largest"]["unfinished_claims"] = unfinished_claims(grpc_address, answer, texts)
            small_answer, small_facts = engine_speed.small_request(generator)
            small_texts = [(fact.text, dict(fact.attributes)) for fact in small_facts]
            small = functools.partial(client.check_grounding, small_answer, small_texts)
            small()
            results["small"] = _latency_summary(latencies(small, 300, 3.0))
        return results
    finally:
        server.stop()


def unfinished_claims(
    grpc_address: str, answer: str, facts: list[tuple[str, dict[str, str]]]
) -> int:
    """How many claims of one CheckGrounding call the emulator's work budget did not reach."""
    import grpc

    request = workload.check_grounding_pb2.CheckGroundingRequest(
        grounding_config=workload.GROUNDING_CONFIG, answer_candidate=answer
    )
    for text, attributes in facts:
        request.facts.add(fact_text=text, attributes=attributes)
    with grpc.insecure_channel(grpc_address) as channel:
        call = channel.unary_unary(
            "/google.cloud.discoveryengine.v1.GroundedGenerationService/CheckGrounding",
            request_serializer=lambda message: message.SerializeToString(),
            response_deserializer=lambda raw: raw,
        )
        _, done = call.with_call(request, timeout=120)
    trailing = dict(done.trailing_metadata() or ())
    return int(trailing.get("x-groundwire-unfinished-claims", 0))


def measure_saturation(server_pid: int, grpc_address: str, seconds: float = 3.0) -> dict[str, Any]:
    """Checks per second with every load generator busy at once, and the server's CPU split."""
    generators = [
        procs.start([procs.PYTHON, "-m", "bench.loadgen", grpc_address], r'"ready"')
        for _ in range(LOADGEN_PROCESSES)
    ]
    server_processes = procs.descendants(server_pid)
    try:
        command = json.dumps({"inflight": LOADGEN_INFLIGHT, "warmup": 0.5, "seconds": seconds})
        cpu_before = [procs.cpu_seconds(pid) for pid in server_processes]
        for generator in generators:
            generator.send(command)
        windows = [json.loads(generator.read_line(seconds + 60)) for generator in generators]
        cpu_used = [
            procs.cpu_seconds(pid) - before
            for pid, before in zip(server_processes, cpu_before, strict=True)
        ]
    finally:
        for generator in generators:
            generator.stop()
    return {
        "server_cpu_seconds_by_process": [round(used, 2) for used in cpu_used],
        "checks_per_second": sum(w["calls"] / w["seconds"] for w in windows),
        "errors": sum(w["errors"] for w in windows),
        "first_error": next((w["first_error"] for w in windows if w["first_error"]), None),
        "load_generators": f"{LOADGEN_PROCESSES} processes x {LOADGEN_INFLIGHT} threads",
    }


def peak_rss_mib(pid: int) -> float:
    """VmHWM of `pid` and every process below it, summed, in MiB."""
    return sum(procs.memory_kib(each, "VmHWM") for each in procs.descendants(pid)) / 1024


def measure() -> dict[str, Any]:
    """Latency with one worker, then saturation and peak memory with one and two workers."""
    results: dict[str, Any] = {
        "varied": {
            generator: measure_varied_text(generator) for generator in engine_speed.GENERATORS
        }
    }
    for workers in (1, 2):
        server = start_emulator(workers)
        try:
            grpc_address, _ = procs.addresses(server.ready_line)
            if workers == 1:
                results["latency"] = measure_latency(grpc_address)
            results[f"workers_{workers}"] = {
                **measure_saturation(server.pid, grpc_address),
                "peak_rss_mib": peak_rss_mib(server.pid),
            }
        finally:
            server.stop()
    return results
