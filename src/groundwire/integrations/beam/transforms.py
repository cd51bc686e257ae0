"""The transforms a pipeline applies: elements in, `(results, failed)` records out.

`CheckGrounding` and `Corroborate` run `RunInference` with the matching handler and its dead
letter on, then split the outcomes: successes become the JSON-ready records `groundwire
batch` writes for a successful line, failures (an element's own, and every element of a batch
Beam gave up on) become `{"input", "code", "message"}` records, in one PCollection.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any, ClassVar

import apache_beam as beam
from apache_beam.metrics.metric import Metrics
from apache_beam.ml.inference.base import PredictionResult, RunInference
from apache_beam.options.pipeline_options import TypeOptions

from groundwire.features.batch import Rpc
from groundwire.integrations.beam.handlers import (
    CorroborateHandler,
    GroundingCheckHandler,
    _GroundingHandler,
)
from groundwire.integrations.beam.records import dead_letter_records, failure_record, result_record

__all__ = ["CheckGrounding", "Corroborate"]

FAILED = "failed"
"""The tag of the failed records among the split outcomes."""

Record = dict[str, Any]
"""The element type of both outputs: a JSON-ready record."""


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
    failed: tuple[Sequence[object], tuple[type, str, Sequence[str]]],
    namespace: str,
) -> list[Record]:
    """The failure records of a batch in Beam's dead letter, counted like the others.

    Beam checks these hints against the dead letter's element type, which Beam 2.78 infers
    as `Tuple[List[<input>], Tuple[type, str, List[str]]]`: its type checker holds `type`
    consistent with neither `type[BaseException]` nor any `type[X]`, hence the plain `type`.
    """
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
        self.with_output_types(Record)  # of both outputs

    @property
    def handler(self) -> _GroundingHandler:
        """The RunInference handler this transform runs."""
        return self._handler

    # `-> Any`: Beam reads expand's return annotation as the output type hint, and a tuple
    # of PCollections there only gets a warning logged at every build (see `__init__`).
    def expand(self, elements: beam.PCollection) -> Any:
        """Runs the checks; returns `(results, failed)`, two PCollections of records."""
        handler = self._handler
        with _beams_own_steps_unhinted(elements.pipeline):
            predictions, dead = (
                elements | "RunInference" >> RunInference(handler).with_exception_handling()
            )
        split = predictions | "Split" >> beam.ParDo(_SplitOutcomes(handler._rpc)).with_outputs(
            FAILED, main="results"
        ).with_output_types(Record)
        gave_up = dead.failed_inferences | "DeadLetter" >> beam.FlatMap(
            _dead_letter, handler.get_metrics_namespace()
        )
        failed = (split[FAILED], gave_up) | "Failed" >> beam.Flatten().with_output_types(Record)
        return split.results, failed


@contextmanager
def _beams_own_steps_unhinted(pipeline: beam.Pipeline) -> Iterator[None]:
    """Lets RunInference apply under `--type_check_strictness=ALL_REQUIRED`.

    That setting refuses every step without an output type hint, and RunInference's own
    inner steps (BatchElements, the inference ParDo and its exception handling) declare
    none. Within this block the strictness is Beam's default (an undeclared type is Any);
    type checking itself stays on, and the transforms' own steps all declare their types.
    """
    options = pipeline.options.view_as(TypeOptions)
    strictness = options.type_check_strictness
    options.type_check_strictness = "DEFAULT_TO_ANY"
    try:
        yield
    finally:
        options.type_check_strictness = strictness


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
