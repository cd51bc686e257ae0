"""Real Spark jobs (PySpark, local[2]) whose Python workers check rows against the emulator.

PySpark is not installed in the dev and lowest environments, so these skip there; `make
test-spark` sets GROUNDWIRE_TEST_SPARK=required, where a missing PySpark fails them instead.
The emulator serves on loopback in this process; Spark's Python workers are processes of their
own that reach it by its address, as executors reach a real endpoint.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from typing import Any

import pytest

from groundwire.contract.errors import StatusCode
from groundwire.contract.retry import RetryPolicy
from groundwire.emulator import EMULATOR_PROJECT, Emulator, emulator
from groundwire.emulator.faults import FaultPolicy

if os.environ.get("GROUNDWIRE_TEST_SPARK") == "required":
    import pyspark
else:
    pyspark = pytest.importorskip("pyspark")

from pyspark.sql import SparkSession

from groundwire.integrations.spark import RESULT_SCHEMA, check_grounding_batches, grounding_udf

pytestmark = pytest.mark.timeout(300)

FACT = "Paris is the capital of France."
FAST_RETRY = RetryPolicy(initial=0.01, maximum=0.05)

POISON: list[tuple[Any, Any]] = [
    (None, json.dumps([FACT])),
    ("", json.dumps([FACT])),
    ("Paris.", "[not json"),
    ("Paris.", None),
    ("Paris.", json.dumps({"fact_text": FACT})),
    ("Paris.", json.dumps([42])),
    ("Paris.", json.dumps([None])),
]
"""Rows no call can be made of: each gets INVALID_ARGUMENT, without failing its task."""


@pytest.fixture(scope="module")
def spark() -> Iterator[SparkSession]:
    """A local Spark on two cores, bound to loopback, its Python workers this interpreter."""
    os.environ["PYSPARK_PYTHON"] = sys.executable
    os.environ["PYSPARK_DRIVER_PYTHON"] = sys.executable
    os.environ["SPARK_LOCAL_IP"] = "127.0.0.1"
    session = (
        SparkSession.builder.master("local[2]")
        .appName("groundwire-tests")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    try:
        yield session
    finally:
        session.stop()


def _endpoints(emu: Emulator) -> dict[str, Any]:
    return {"endpoint": emu.grpc_address, "rest_endpoint": emu.http_url, "retry": FAST_RETRY}


def _rows(count: int, poison_every: int) -> list[tuple[int, Any, Any]]:
    rows = []
    for number in range(count):
        if number % poison_every == 0:
            answer, facts = POISON[number // poison_every % len(POISON)]
        else:
            answer = f"Paris is the capital of France ({number})."
            if number % poison_every == 1:
                answer = f"Refused: {answer}"
            facts = json.dumps([FACT])
        rows.append((number, answer, facts))
    return rows


def test_ten_thousand_rows_against_injected_faults_each_end_in_one_result_or_error(
    spark: SparkSession,
) -> None:
    count, poison_every = 10_000, 50
    rows = _rows(count, poison_every)
    faults = FaultPolicy(rate=0.1, codes=(StatusCode.UNAVAILABLE,), seed=28)
    with emulator(faults=faults) as emu:
        emu.stub(
            "CheckGrounding",
            match={"answerCandidate": {"regex": "^Refused: "}},
            error={"code": "PERMISSION_DENIED", "message": "not for you"},
        )
        frame = spark.createDataFrame(rows, "id long, answer string, facts string").repartition(2)
        check = check_grounding_batches(EMULATOR_PROJECT, keep=["id"], **_endpoints(emu))
        out = frame.mapInPandas(check, schema=f"id long, {RESULT_SCHEMA}").collect()

    by_id = {row["id"]: row for row in out}
    assert len(out) == len(by_id) == count  # none lost, none duplicated
    assert sorted(by_id) == list(range(count))
    poison = {number for number in range(0, count, poison_every)}
    refused = {number + 1 for number in poison}
    for number, row in by_id.items():
        if number in poison:
            assert (row["error_code"], row["attempts"]) == ("INVALID_ARGUMENT", 0), number
            assert row["error_message"]
        elif number in refused:
            assert row["error_code"] == "PERMISSION_DENIED", number
        else:
            assert row["error_code"] is None, (number, row["error_message"])
            assert 0 <= row["support_score"] <= 1
            assert row["claims"]
            assert row["citations"][0]["text"] == FACT
    answers = {number: answer for number, answer, _ in rows}
    first = by_id[2]
    assert [answers[2][c["start"] : c["end"]] for c in first["claims"]] == [
        c["text"] for c in first["claims"]
    ]
    retried = [row for row in out if row["attempts"] > 1 and row["error_code"] is None]
    assert retried, "the injected UNAVAILABLEs were retried and cured"


def test_the_pandas_udf_checks_array_columns_and_keeps_poison_rows_apart(
    spark: SparkSession, grounding_emulator: Emulator
) -> None:
    rows: list[tuple[int, str | None, list[str | None] | None]] = [
        (number, f"Paris is the capital of France ({number}).", [FACT]) for number in range(40)
    ]
    rows += [(40, None, [FACT]), (41, "Paris.", None), (42, "Paris.", [None])]
    frame = spark.createDataFrame(rows, "id long, answer string, facts array<string>")
    check = grounding_udf(
        EMULATOR_PROJECT, enable_claim_level_score=True, **_endpoints(grounding_emulator)
    )
    out = frame.select("id", check("answer", "facts").alias("grounding")).collect()

    by_id = {row["id"]: row["grounding"] for row in out}
    assert sorted(by_id) == list(range(43))
    assert {by_id[number]["error_code"] for number in (40, 41, 42)} == {"INVALID_ARGUMENT"}
    for number in range(40):
        result = by_id[number]
        assert result["error_code"] is None
        assert result["claims"][0]["score"] is not None  # claim scores were asked for
        assert result["citations"] == [pyspark.sql.Row(fact_index=0, text=FACT)]


def test_a_throttling_service_slows_the_job_and_every_row_still_gets_its_result(
    spark: SparkSession,
) -> None:
    rows = [
        (number, f"Paris is the capital of France ({number}).", json.dumps([FACT]))
        for number in range(300)
    ]
    faults = FaultPolicy(rate=0.5, codes=(StatusCode.RESOURCE_EXHAUSTED,), seed=3)
    with emulator(faults=faults) as emu:
        frame = spark.createDataFrame(rows, "id long, answer string, facts string")
        check = check_grounding_batches(EMULATOR_PROJECT, keep=["id"], **_endpoints(emu))
        out = frame.mapInPandas(check, schema=f"id long, {RESULT_SCHEMA}").collect()
    assert sorted(row["id"] for row in out) == list(range(300))
    assert all(row["error_code"] is None for row in out)
    assert any(row["attempts"] > 1 for row in out)  # throttled, then retried


def test_corroboration_runs_by_the_same_function_with_its_own_score_column(
    spark: SparkSession, grounding_emulator: Emulator
) -> None:
    from groundwire.integrations.spark import output_schema

    rows = [(number, f"Paris is the capital of France ({number}).", [FACT]) for number in range(10)]
    frame = spark.createDataFrame(rows, "id long, content string, facts array<string>")
    check = check_grounding_batches(
        EMULATOR_PROJECT,
        "us-central1",
        method="CorroborateContent",
        answer_column="content",
        **_endpoints(grounding_emulator),
    )
    schema = output_schema(frame.schema, method="CorroborateContent")
    out = frame.mapInPandas(check, schema=schema).collect()
    assert sorted(row["id"] for row in out) == list(range(10))
    assert all(row["content"].startswith("Paris") for row in out)  # every column kept
    assert all(row["corroboration_score"] is not None for row in out)


def test_a_task_whose_every_row_failed_for_a_passing_reason_fails_for_spark_to_retry(
    spark: SparkSession,
) -> None:
    rows = [(number, f"Paris ({number}).", json.dumps([FACT])) for number in range(6)]
    with emulator(faults=FaultPolicy(rate=1.0, codes=(StatusCode.UNAVAILABLE,))) as emu:
        frame = spark.createDataFrame(rows, "id long, answer string, facts string").coalesce(1)
        check = check_grounding_batches(
            EMULATOR_PROJECT,
            keep=["id"],
            endpoint=emu.grpc_address,
            transport="grpc",
            retry=RetryPolicy(initial=0.01, maximum=0.01, max_attempts=2),
        )
        with pytest.raises(Exception, match="UNAVAILABLE"):
            frame.mapInPandas(check, schema=f"id long, {RESULT_SCHEMA}").collect()
