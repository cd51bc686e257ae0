"""RunInference model handlers that check grounding and corroborate content in Beam pipelines.

Each handler is a `RemoteModelHandler`: Beam batches the elements, calls `request()` with a
batch and a client, retries a batch that raised, and puts what still fails in its dead
letter. The handler makes one `GroundingClient` per worker in `create_client` (the client
is never pickled: only the handler's arguments travel to the workers) and sends each batch
through the library's batch API (`check_grounding_many`), concurrently, with its adaptive
throttling and per-element retries. So `request()` returns one outcome per element and
raises only when the whole batch failed in a way a later try may cure.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from apache_beam.io.components.adaptive_throttler import ThrottlingSignaler
from apache_beam.metrics.metric import Metrics
from apache_beam.ml.inference.base import PredictionResult, RemoteModelHandler

from groundwire.contract import calls
from groundwire.features.batch import DEFAULT_CONCURRENCY, BatchOutcome, Rpc, batch_failure
from groundwire.features.batch_spec import BATCHABLE
from groundwire.integrations.beam.records import billed_characters, is_retryable, score_of

if TYPE_CHECKING:
    from groundwire.client.sync import GroundingClient

__all__ = ["CorroborateHandler", "GroundingCheckHandler"]

DEFAULT_NAMESPACE = "groundwire"
"""The Beam metrics namespace of the handlers' counters and distribution (and RunInference's)."""

DEFAULT_NUM_RETRIES = 3
"""Beam's retries of a batch that failed as a whole (its back-off: about 5, 10, 20 s)."""

DEFAULT_MAX_BATCH_SIZE = 200
"""The most elements per batch: enough for a full window many times over, few to redo."""


class _GroundingHandler(RemoteModelHandler):  # type: ignore[misc]  # Beam is untyped here
    """What both handlers share; each names its RPC and its done counter (the rest: its spec)."""

    _rpc: ClassVar[Rpc]
    _done_counter: ClassVar[str]

    def __init__(
        self,
        project: str,
        location: str = "global",
        *,
        api_version: str = "v1",
        endpoint: str | None = None,
        rest_endpoint: str | None = None,
        transport: calls.TransportName = "auto",
        concurrency: int = DEFAULT_CONCURRENCY,
        rate: float | None = None,
        citation_threshold: float | None = None,
        num_retries: int = DEFAULT_NUM_RETRIES,
        min_batch_size: int | None = None,
        max_batch_size: int = DEFAULT_MAX_BATCH_SIZE,
        max_batch_duration_secs: int | None = None,
        metrics_namespace: str = DEFAULT_NAMESPACE,
        **client_kwargs: Any,
    ) -> None:
        super().__init__(
            namespace=metrics_namespace, num_retries=num_retries, retry_filter=is_retryable
        )
        self._config = calls.ClientConfig(project, location, api_version)
        self._client_arguments = {
            "project": project,
            "location": location,
            "api_version": api_version,
            "endpoint": endpoint,
            "rest_endpoint": rest_endpoint,
            "transport": transport,
            **client_kwargs,
        }
        self._batch_options: dict[str, Any] = {
            "concurrency": concurrency,
            "rate": rate,
            "citation_threshold": citation_threshold,
        }
        smallest = min(concurrency, max_batch_size) if min_batch_size is None else min_batch_size
        self._batching: dict[str, int] = {
            "min_batch_size": smallest,
            "max_batch_size": max_batch_size,
        }
        if max_batch_duration_secs is not None:
            self._batching["max_batch_duration_secs"] = max_batch_duration_secs
        self._namespace = metrics_namespace
        self._throttling = ThrottlingSignaler(metrics_namespace)
        self._throttled_carry = 0.0
        # A client connects lazily, so making one here only checks the arguments: a wrong
        # one fails at pipeline construction, not on every worker.
        self.create_client().close()

    def create_client(self) -> GroundingClient:
        """Makes the worker's client; Beam calls this once per worker process."""
        from groundwire.client.sync import GroundingClient

        return GroundingClient(**self._client_arguments)

    def request(
        self,
        batch: Sequence[Any],
        model: GroundingClient,
        inference_args: dict[str, Any] | None = None,
    ) -> list[PredictionResult]:
        """Sends a batch through the batch API; one `PredictionResult` per element, in order.

        Each result's `inference` is the element's `groundwire.core.batch.BatchOutcome`
        (`result` or `error`, `attempts`, `id`). An element's own failure, permanent or not, is its
        outcome; this raises only when the batch failed as a whole and may succeed later
        (`groundwire.features.batch.batch_failure`, or a dead endpoint), for Beam to retry.
        """
        many = getattr(model, BATCHABLE[self._rpc].many)(batch, **self._batch_options)
        try:
            outcomes: list[BatchOutcome[Any]] = list(many)
        finally:
            many.close()
            self._signal_throttled(many.throttled_seconds)
        failure = batch_failure(outcomes)
        if failure is not None:
            raise failure
        for element, outcome in zip(batch, outcomes, strict=True):
            self._count(element, outcome)
        return [
            PredictionResult(element, outcome)
            for element, outcome in zip(batch, outcomes, strict=True)
        ]

    def validate_inference_args(self, inference_args: dict[str, Any] | None) -> None:
        """Refuses inference args: the handler's own arguments say everything a call needs."""
        if inference_args:
            raise ValueError(
                f"{type(self).__name__} takes no inference_args; pass the options "
                "(citation_threshold, ...) to the handler itself"
            )

    def batch_elements_kwargs(self) -> dict[str, int]:
        """How RunInference batches elements: at least a full window of them per batch."""
        return dict(self._batching)

    def get_metrics_namespace(self) -> str:
        """RunInference's own metrics go to the handler's namespace, beside its counters."""
        return self._namespace

    def _signal_throttled(self, seconds: float) -> None:
        """Reports throttled time to Beam (whole seconds; the rest is carried to the next)."""
        total = self._throttled_carry + seconds
        whole = int(total)
        self._throttled_carry = total - whole
        if whole:
            self._throttling.signal_throttled(whole)

    def _count(self, element: object, outcome: BatchOutcome[Any]) -> None:
        namespace = self._namespace
        if outcome.attempts > 1:
            Metrics.counter(namespace, "retries").inc(outcome.attempts - 1)
        if outcome.error is not None:
            Metrics.counter(namespace, "failures").inc()
            Metrics.counter(namespace, f"failures_{outcome.error.code.name}").inc()
            return
        Metrics.counter(namespace, self._done_counter).inc()
        characters = billed_characters(self._rpc, self._config, element)
        if characters is not None:
            Metrics.counter(namespace, "billed_characters").inc(characters)
        score = score_of(self._rpc, outcome)
        if score is not None:
            distribution = f"{BATCHABLE[self._rpc].score}_permille"
            Metrics.distribution(namespace, distribution).update(round(score * 1000))


class GroundingCheckHandler(_GroundingHandler):
    """A RunInference handler that checks each element's answer against its facts.

    An element is a dict like a `groundwire batch` input line, `{"answer": str, "facts":
    [...], "citation_threshold"?: float, "id"?: ...}` (`answer_candidate` is a synonym of
    `answer`), or a `CheckGroundingRequest`. Each output is a `PredictionResult` whose
    `inference` is the element's `BatchOutcome`. `groundwire.beam.CheckGrounding` wraps it
    into a transform that gives JSON-ready records.

    Example:
        >>> handler = GroundingCheckHandler("my-project", concurrency=16)
        >>> outcomes = elements | RunInference(handler)  # doctest: +SKIP

    Args:
        project: the Google Cloud project that owns (and pays for) the calls.
        location: `global` (default), `us` or `eu`.
        api_version: Discovery Engine's `v1` (default), `v1beta` or `v1alpha`.
        endpoint: a gRPC `host[:port]` instead of Google's (an emulator on loopback).
        rest_endpoint: a REST base URL instead of Google's.
        transport: `"auto"` (gRPC, REST when gRPC cannot connect), `"grpc"` or `"rest"`.
        concurrency: the calls in flight at once per batch; the batch API halves it while
            the service throttles and raises it again while calls succeed.
        rate: at most this many calls per second per batch (None: no limit).
        citation_threshold: for elements that give none.
        enable_claim_level_score: also score each claim, for elements that do not say.
        num_retries: Beam's retries of a batch that failed as a whole (default 3); each
            element already gets the client's retries inside its batch.
        min_batch_size: the fewest elements per batch (default: `concurrency`).
        max_batch_size: the most elements per batch (default 200).
        max_batch_duration_secs: in a streaming pipeline, the longest an element waits
            for its batch to fill.
        metrics_namespace: the Beam metrics namespace (default `groundwire`): counters
            `checks`, `failures`, `failures_<CODE>`, `retries`, `billed_characters`,
            `cumulativeThrottlingSeconds`, and the distribution `support_score_permille`.
        client_kwargs: the rest go to `GroundingClient` (`credentials`, `timeout`, `retry`,
            `quota_project`, ...).
    """

    _rpc = "CheckGrounding"
    _done_counter = "checks"

    def __init__(
        self,
        project: str,
        location: str = "global",
        *,
        enable_claim_level_score: bool | None = None,
        **options: Any,
    ) -> None:
        super().__init__(project, location, **options)
        self._batch_options["enable_claim_level_score"] = enable_claim_level_score


class CorroborateHandler(_GroundingHandler):
    """A RunInference handler that corroborates each element's content with its facts.

    An element is a dict `{"content": str, "facts": [...], "citation_threshold"?: float,
    "id"?: ...}` (`answer` and `answer_candidate` are synonyms of `content`) or a
    `CorroborateContentRequest`; the location is a Vertex AI region (e.g. `us-central1`).
    Its arguments are `GroundingCheckHandler`'s, without `enable_claim_level_score`; its
    metrics are `corroborations` (instead of `checks`) and `corroboration_score_permille`.
    CorroborateContent is not billed by characters: it counts no `billed_characters`.

    Example:
        >>> handler = CorroborateHandler("my-project", "us-central1")
        >>> outcomes = elements | RunInference(handler)  # doctest: +SKIP
    """

    _rpc = "CorroborateContent"
    _done_counter = "corroborations"
