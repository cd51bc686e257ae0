"""The transforms a pipeline applies: elements in, `(results, failed)` records out.

`CheckGrounding` and `Corroborate` run `RunInference` with the matching handler and its dead
letter on, then split the outcomes: successes become the JSON-ready records `groundwire
batch` writes for a successful line, failures (an element's own, and every element of a batch
Beam gave up on) become `{"input", "code", "message"}` records, in one PCollection.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any, ClassVar

import apache_beam as beam
from apache_beam.metrics.metric import Metrics
from apache_beam.ml.inference.base import PredictionResult, RunInference

from groundwire.beam.handlers import CorroborateHandler, GroundingCheckHandler, _GroundingHandler
from groundwire.beam.records import dead_letter_records, failure_record, result_record
from groundwire.core.batch import Rpc

__all__ = ["CheckGrounding", "Corroborate"]

FAILED = "failed"
"""The tag of the failed records among the split outcomes."""


class _SplitOutcomes(beam.DoFn):  # type: ignore[misc]  # Beam is untyped here
    """Turns each `PredictionResult` into a result record, or a failed one (tagged)."""

    def __init__(self, rpc: Rpc) -> None:
        self._rpc = rpc

    def process(self, prediction: PredictionResult) -> Iterator[Any]:
        """Yields the element's result record, or its failure record tagged `failed`."""
        outcome = prediction.inference
        if outcome.error is None:
            yield result_record(self._rpc, outcome)
        else:
            yield beam.pvalue.TaggedOutput(
                FAILED, failure_record(prediction.example, outcome.error)
            )


def _dead_letter(
    failed: tuple[Sequence[object], tuple[type[BaseException], str, Sequence[str]]],
    namespace: str,
) -> list[dict[str, Any]]:
    """The failure records of a batch in Beam's dead letter, counted like the others."""
    batch, exception = failed
    records = dead_letter_records(batch, exception)
    for record in records:
        Metrics.counter(namespace, "failures").inc()
        Metrics.counter(namespace, f"failures_{record['code']}").inc()
    return records


class _Grounding(beam.PTransform):  # type: ignore[misc]  # Beam is untyped here
    """What both transforms share: RunInference, then the split into results and failed."""

    _handler_type: ClassVar[type[_GroundingHandler]]

    def __init__(self, project: str, location: str = "global", **options: Any) -> None:
        super().__init__()
        self._handler = self._handler_type(project, location, **options)

    @property
    def handler(self) -> _GroundingHandler:
        """The RunInference handler this transform runs."""
        return self._handler

    def expand(self, elements: beam.PCollection) -> tuple[beam.PCollection, beam.PCollection]:
        """Runs the checks; returns `(results, failed)`."""
        handler = self._handler
        predictions, dead = (
            elements | "RunInference" >> RunInference(handler).with_exception_handling()
        )
        split = predictions | "Split" >> beam.ParDo(_SplitOutcomes(handler._rpc)).with_outputs(
            FAILED, main="results"
        )
        gave_up = dead.failed_inferences | "DeadLetter" >> beam.FlatMap(
            _dead_letter, handler.get_metrics_namespace()
        )
        failed = (split[FAILED], gave_up) | "Failed" >> beam.Flatten()
        return split.results, failed


class CheckGrounding(_Grounding):
    """Checks each element's answer against its facts; returns `(results, failed)`.

    `results` holds `{"id", "result"}` records, as `groundwire batch` writes them for a
    successful line (`result` with `answer_candidate`, `support_score` and `claims`), ready
    for BigQuery or JSONL; `failed` holds `{"input", "code", "message"}` records, one per
    element that failed, including every element of a batch that still failed after Beam's
    retries. Every element ends in exactly one of them.

    Example:
        >>> results, failed = records | CheckGrounding(project="my-project")  # doctest: +SKIP

    Args:
        project: the Google Cloud project.
        location: `global` (default), `us` or `eu`.
        options: the rest of `GroundingCheckHandler`'s arguments.
    """

    _handler_type = GroundingCheckHandler


class Corroborate(_Grounding):
    """Corroborates each element's content with its facts; returns `(results, failed)`.

    As `CheckGrounding`, with `CorroborateHandler`'s arguments (location: a Vertex AI
    region); `result` holds `content`, `corroboration_score` and `claims`.

    Example:
        >>> results, failed = records | Corroborate("my-project", "us-central1")  # doctest: +SKIP
    """

    _handler_type = CorroborateHandler
