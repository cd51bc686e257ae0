"""Real Beam pipelines on Beam's Python runner (FnApiRunner) against the embedded emulator.

Beam is not installed in the dev and lowest environments, so these skip there; `make
test-beam` sets GROUNDWIRE_TEST_BEAM=required, where a missing Beam fails them instead.
"""

from __future__ import annotations

import logging
import os
import pickle
import socket
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import pytest

from groundwire.contract import calls
from groundwire.contract.errors import StatusCode
from groundwire.contract.retry import RetryPolicy
from groundwire.emulator import EMULATOR_PROJECT, Emulator, emulator
from groundwire.emulator.faults import FaultPolicy
from groundwire.features.records import check_record

if os.environ.get("GROUNDWIRE_TEST_BEAM") == "required":
    import apache_beam as beam
else:
    beam = pytest.importorskip("apache_beam")

from apache_beam.metrics.metric import MetricsFilter
from apache_beam.options.pipeline_options import PipelineOptions, TypeOptions
from apache_beam.runners.portability.fn_api_runner import FnApiRunner

from groundwire.integrations.beam import (
    CheckGrounding,
    Corroborate,
    CorroborateHandler,
    GroundingCheckHandler,
)

FACT = "Paris is the capital of France."
FAST_RETRY = RetryPolicy(initial=0.01, maximum=0.05)

_SINKS: dict[str, list[Any]] = {}
"""What the pipelines' last steps received, by sink name (the runner works in this process)."""


def _keep(record: Any, sink: str) -> None:
    _SINKS[sink].append(record)


class Run:
    """The outputs and metrics of one finished pipeline."""

    def __init__(self, results: list[Any], failed: list[Any], metrics: dict[str, Any]) -> None:
        self.results = results
        self.failed = failed
        self.metrics = metrics

    def counter(self, name: str) -> int:
        return int(self.metrics.get(name, 0))


def run_pipeline(elements: Sequence[object], transform: Any, *options: str) -> Run:
    """Runs `elements | transform` on the FnApiRunner; collects `(results, failed)` and metrics.

    `options` are Beam's command-line options; under `--type_check_strictness=ALL_REQUIRED`
    the pipeline's own steps declare their types, as that setting demands of every step.
    """
    sinks = {kind: f"{kind}-{uuid.uuid4().hex}" for kind in ("results", "failed")}
    for sink in sinks.values():
        _SINKS[sink] = []
    pipeline = beam.Pipeline(runner=FnApiRunner(), options=PipelineOptions(list(options)))
    create = beam.Create(elements)
    if pipeline.options.view_as(TypeOptions).type_check_strictness == "ALL_REQUIRED":
        create = create.with_output_types(Any)
    results, failed = pipeline | create | transform
    _ = results | "KeepResults" >> beam.Map(_keep, sinks["results"]).with_output_types(None)
    _ = failed | "KeepFailed" >> beam.Map(_keep, sinks["failed"]).with_output_types(None)
    outcome = pipeline.run()
    outcome.wait_until_finish()
    queried = outcome.metrics().query(MetricsFilter().with_namespace("groundwire"))
    metrics: dict[str, Any] = {m.key.metric.name: m.committed for m in queried["counters"]}
    metrics.update({m.key.metric.name: m.committed for m in queried["distributions"]})
    return Run(_SINKS.pop(sinks["results"]), _SINKS.pop(sinks["failed"]), metrics)


def _valid(number: int) -> dict[str, Any]:
    return {"id": number, "answer": f"Paris is the capital of France ({number}).", "facts": [FACT]}


INVALID: list[dict[str, Any]] = [
    {"id": "no-answer", "facts": [FACT]},
    {"id": "facts-as-text", "answer": "Paris.", "facts": FACT},
    {"id": "unknown-key", "answer": "Paris.", "facts": [FACT], "colour": "blue"},
    {"id": "threshold", "answer": "Paris.", "facts": [FACT], "citation_threshold": 7},
    {"id": "fact-number", "answer": "Paris.", "facts": [42]},
]
"""Elements each refused for a reason of its own, all INVALID_ARGUMENT."""


def test_a_thousand_elements_against_injected_faults_all_end_in_results_or_failed() -> None:
    invalid_every = 10
    elements: list[object] = []
    for number in range(1000):
        if number % invalid_every == 0:
            elements.append({**INVALID[number // invalid_every % len(INVALID)], "id": number})
        else:
            elements.append(_valid(number))
    valid = [e for e in elements if isinstance(e, dict) and e["id"] % invalid_every]
    faults = FaultPolicy(rate=0.2, codes=(StatusCode.UNAVAILABLE,), seed=12)
    with emulator(faults=faults) as emu:
        run = run_pipeline(
            elements,
            CheckGrounding(EMULATOR_PROJECT, endpoint=emu.grpc_address, rest_endpoint=emu.http_url),
        )
        with emu.client(retry=FAST_RETRY) as client:
            expected = check_record(client.check_grounding(valid[0]["answer"], [FACT]))

    assert sorted(record["id"] for record in run.results) == [e["id"] for e in valid]
    assert sorted(record["input"]["id"] for record in run.failed) == list(
        range(0, 1000, invalid_every)
    )
    assert {record["code"] for record in run.failed} == {"INVALID_ARGUMENT"}
    assert all(record["message"] for record in run.failed)
    first = next(record for record in run.results if record["id"] == valid[0]["id"])
    assert first["result"] == expected
    assert run.counter("num_inferences") == 1000
    assert run.counter("checks") == 900
    assert run.counter("failures") == run.counter("failures_INVALID_ARGUMENT") == 100
    assert run.counter("retries") > 0  # the injected UNAVAILABLEs were retried, and cured
    assert run.counter("billed_characters") == sum(len(e["answer"]) + len(FACT) for e in valid)
    scores = run.metrics["support_score_permille"]
    assert scores.count == 900
    assert 0 <= scores.min <= scores.max <= 1000


def test_invalid_elements_fail_alone_while_their_batch_mates_succeed(
    grounding_emulator: Emulator,
) -> None:
    request = calls.unary(
        calls.ClientConfig(EMULATOR_PROJECT), "CheckGrounding", "Paris is in France.", facts=[FACT]
    ).request
    elements: list[object] = [*INVALID, "not a mapping", request]
    elements += [_valid(number) for number in range(13)]
    run = run_pipeline(
        elements,
        CheckGrounding(
            EMULATOR_PROJECT,
            endpoint=grounding_emulator.grpc_address,
            transport="grpc",
            min_batch_size=len(elements),
            max_batch_size=len(elements),
        ),
    )
    batch_sizes = run.metrics["inference_request_batch_size"]
    assert (batch_sizes.count, batch_sizes.max) == (1, len(elements))  # all in one batch
    assert sorted(str(record["id"]) for record in run.results) == sorted(
        ["None", *(str(number) for number in range(13))]
    )
    failed = {
        record["input"]["id"] if isinstance(record["input"], dict) else record["input"]: record
        for record in run.failed
    }
    assert set(failed) == {*(e["id"] for e in INVALID), "'not a mapping'"}
    assert {record["code"] for record in failed.values()} == {"INVALID_ARGUMENT"}
    assert "colour" in failed["unknown-key"]["message"]
    assert failed["facts-as-text"]["input"] == INVALID[1]
    assert run.counter("failed_batches_counter") == 0  # request() never raised for them


@pytest.mark.parametrize("strictness", ["DEFAULT_TO_ANY", "ALL_REQUIRED"])
@pytest.mark.parametrize(
    ("transform", "text", "echoed"),
    [(CheckGrounding, "answer", "answer_candidate"), (Corroborate, "content", "content")],
)
def test_valid_and_invalid_elements_end_in_results_and_failed_under_either_type_strictness(
    grounding_emulator: Emulator, transform: type[Any], text: str, echoed: str, strictness: str
) -> None:
    valid = [
        {"id": number, text: f"Paris is the capital of France ({number}).", "facts": [FACT]}
        for number in range(4)
    ]
    invalid = [
        {"id": "no-text", "facts": [FACT]},
        {"id": "facts-as-text", text: "Paris.", "facts": FACT},
        {"id": "fact-number", text: "Paris.", "facts": [42]},
    ]
    run = run_pipeline(
        [*valid, *invalid],
        transform(EMULATOR_PROJECT, endpoint=grounding_emulator.grpc_address, transport="grpc"),
        "--pipeline_type_check",
        f"--type_check_strictness={strictness}",
    )
    results = {record["id"]: record["result"] for record in run.results}
    assert {key: result[echoed] for key, result in results.items()} == {
        element["id"]: element[text] for element in valid
    }
    assert sorted((record["input"] for record in run.failed), key=str) == sorted(invalid, key=str)
    assert {record["code"] for record in run.failed} == {"INVALID_ARGUMENT"}


def test_all_required_strictness_still_holds_for_the_pipelines_own_steps() -> None:
    pipeline = beam.Pipeline(
        runner=FnApiRunner(), options=PipelineOptions(["--type_check_strictness=ALL_REQUIRED"])
    )
    elements = pipeline | beam.Create([_valid(1)]).with_output_types(Any)
    results, _ = elements | CheckGrounding(EMULATOR_PROJECT)
    with pytest.raises(beam.typehints.TypeCheckError, match="no output type-hint"):
        _ = results | "Unhinted" >> beam.Map(len)
    assert pipeline.options.view_as(TypeOptions).type_check_strictness == "ALL_REQUIRED"


def test_a_batch_that_failed_as_a_whole_is_retried_by_beam_and_then_succeeds() -> None:
    grpc_port, http_port = _free_port(), _free_port()
    elements = [_valid(number) for number in range(20)]
    with _serving_once_beam_retries(grpc_port, http_port) as started:
        run = run_pipeline(
            elements,
            CheckGrounding(
                EMULATOR_PROJECT,
                endpoint=f"127.0.0.1:{grpc_port}",
                rest_endpoint=f"http://127.0.0.1:{http_port}",
                num_retries=3,
                max_batch_size=len(elements),
                retry=FAST_RETRY,
            ),
        )
    assert started, "Beam never retried: the endpoint was never down"
    assert sorted(record["id"] for record in run.results) == list(range(20))
    assert run.failed == []
    assert run.counter("checks") == 20


def test_a_batch_that_keeps_failing_lands_in_failed_element_by_element() -> None:
    elements = [_valid(number) for number in range(10)]
    with emulator(faults=FaultPolicy(rate=1.0, codes=(StatusCode.UNAVAILABLE,))) as emu:
        run = run_pipeline(
            elements,
            CheckGrounding(
                EMULATOR_PROJECT,
                endpoint=emu.grpc_address,
                transport="grpc",
                num_retries=1,
                max_batch_size=len(elements),
                retry=RetryPolicy(initial=0.01, maximum=0.01, max_attempts=2),
            ),
        )
    assert run.results == []
    assert sorted(record["input"]["id"] for record in run.failed) == list(range(10))
    assert {record["code"] for record in run.failed} == {"UNAVAILABLE"}
    assert "failed; the last: fault injected" in run.failed[0]["message"]
    assert run.counter("failures_UNAVAILABLE") == 10
    assert run.counter("failed_batches_counter") >= 1


def test_a_permanent_failure_of_every_element_is_not_retried_by_beam() -> None:
    elements = [_valid(number) for number in range(8)]
    with emulator(faults=FaultPolicy(rate=1.0, codes=(StatusCode.PERMISSION_DENIED,))) as emu:
        run = run_pipeline(
            elements,
            CheckGrounding(EMULATOR_PROJECT, endpoint=emu.grpc_address, transport="grpc"),
        )
    assert {record["code"] for record in run.failed} == {"PERMISSION_DENIED"}
    assert len(run.failed) == 8
    assert run.counter("failed_batches_counter") == 0
    assert run.counter("retries") == 0


def test_throttled_time_reaches_beams_cumulative_throttling_seconds() -> None:
    elements = [_valid(number) for number in range(40)]
    faults = FaultPolicy(rate=0.5, codes=(StatusCode.RESOURCE_EXHAUSTED,), seed=3)
    with emulator(faults=faults) as emu:
        run = run_pipeline(
            elements,
            CheckGrounding(
                EMULATOR_PROJECT,
                endpoint=emu.grpc_address,
                transport="grpc",
                max_batch_size=len(elements),
            ),
        )
    assert sorted(record["id"] for record in run.results) == list(range(40))
    assert run.counter("cumulativeThrottlingSeconds") >= 1
    assert run.counter("retries") > 0


def test_corroborate_gives_corroboration_records_and_its_own_metrics(
    grounding_emulator: Emulator,
) -> None:
    elements: list[object] = [
        {"id": number, "content": f"Paris is the capital of France ({number}).", "facts": [FACT]}
        for number in range(6)
    ]
    elements.append({"id": "bad", "content": "Paris.", "facts": FACT})
    run = run_pipeline(
        elements,
        Corroborate(EMULATOR_PROJECT, "us-central1", endpoint=grounding_emulator.grpc_address),
    )
    assert sorted(record["id"] for record in run.results) == list(range(6))
    result = run.results[0]["result"]
    assert {"content", "corroboration_score", "claims"} <= set(result)
    assert [record["input"]["id"] for record in run.failed] == ["bad"]
    assert run.counter("corroborations") == 6
    assert "billed_characters" not in run.metrics
    assert run.metrics["corroboration_score_permille"].count == 6


@pytest.mark.parametrize(
    ("transform", "location", "key", "field"),
    [
        (CheckGrounding, "global", "answer", "answer_candidate"),
        (Corroborate, "us-central1", "content", "content"),
    ],
    ids=["check", "corroborate"],
)
def test_an_empty_text_goes_to_failed_with_its_input_naming_its_field(
    grounding_emulator: Emulator, transform: Any, location: str, key: str, field: str
) -> None:
    blank: dict[str, Any] = {"id": "blank", key: " \n", "facts": [FACT]}
    empty: dict[str, Any] = {"id": "empty", key: "", "facts": [FACT]}
    elements = [empty, blank, {"id": "full", key: "Paris is in France.", "facts": [FACT]}]
    run = run_pipeline(
        elements,
        transform(EMULATOR_PROJECT, location, endpoint=grounding_emulator.grpc_address),
    )
    assert [record["id"] for record in run.results] == ["full"]
    assert sorted(run.failed, key=lambda record: str(record["input"]["id"])) == [
        {"input": element, "code": "INVALID_ARGUMENT", "message": f"{field}: is empty"}
        for element in (blank, empty)
    ]


def test_a_handler_pickles_without_a_client_and_makes_one_per_worker(
    grounding_emulator: Emulator,
) -> None:
    from apache_beam.internal import pickler

    handler = GroundingCheckHandler(EMULATOR_PROJECT, endpoint=grounding_emulator.grpc_address)
    client = handler.create_client()
    try:
        shipped = pickler.loads(pickler.dumps(handler))
        assert all(value is not client for value in vars(shipped).values())
        with pytest.raises(TypeError):
            pickle.dumps(client)
        (prediction,) = shipped.request([_valid(1)], client)
        assert prediction.example == _valid(1)
        assert prediction.inference.ok
    finally:
        client.close()
    with CorroborateHandler(EMULATOR_PROJECT, "us-central1").create_client() as other:
        assert isinstance(other, type(client))


def test_a_handler_refuses_inference_args_and_bad_settings_at_construction() -> None:
    handler = GroundingCheckHandler(EMULATOR_PROJECT)
    with pytest.raises(ValueError, match="inference_args"):
        handler.validate_inference_args({"citation_threshold": 0.5})
    with pytest.raises(ValueError, match="api_version"):
        GroundingCheckHandler(EMULATOR_PROJECT, api_version="v2")
    with pytest.raises(TypeError, match="colour"):
        GroundingCheckHandler(EMULATOR_PROJECT, colour="blue")
    with pytest.raises(TypeError, match="enable_claim_level_score"):
        CorroborateHandler(EMULATOR_PROJECT, enable_claim_level_score=True)
    assert handler.batch_elements_kwargs() == {"min_batch_size": 16, "max_batch_size": 200}


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@contextmanager
def _serving_once_beam_retries(grpc_port: int, http_port: int) -> Iterator[list[object]]:
    """Starts the emulator on these ports when Beam first logs that it will retry a batch."""
    from groundwire.emulator.in_process import start_servers

    started: list[object] = []

    class StartOnRetry(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            if not started and "Retry with exponential backoff" in record.getMessage():
                started.append(start_servers("127.0.0.1", grpc_port, http_port))

    retry_log = logging.getLogger("apache_beam.utils.retry")
    handler = StartOnRetry()
    retry_log.addHandler(handler)
    try:
        yield started
    finally:
        retry_log.removeHandler(handler)
        for servers in started:
            servers.stop(grace=0)  # type: ignore[attr-defined]
