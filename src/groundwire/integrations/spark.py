"""Grounding checks over Spark DataFrames (Dataproc, Databricks): `groundwire[spark]`.

>>> checked = df.mapInPandas(check_grounding_batches("my-project", keep=["id"]),
...                          schema=f"id long, {RESULT_SCHEMA}")  # doctest: +SKIP

- `check_grounding_batches(...)`: the function `DataFrame.mapInPandas` runs; each row keeps
  the columns named in `keep` and gains the result columns (`RESULT_SCHEMA`).
- `grounding_udf(...)`: the same as a pandas UDF returning one struct (`RESULT_STRUCT`).
- `output_schema(...)`: the whole output schema of a `mapInPandas` call, as a DDL string.

Every row ends in a result (`error_code` null) or an error (`error_code` and `error_message`
set, the result columns null): a poison row (bad JSON, no answer, wrong types) gets
INVALID_ARGUMENT and never fails its task. Each executor's Python worker makes one client
per set of connection options, when it first needs it (the client is never pickled: only
the options travel), and sends the rows through the batch API (`check_grounding_many`),
with its adaptive throttling and per-row retries. Only a task whose every row failed for a
reason that may pass (the service down or overloaded) raises, so that Spark runs it again.

This module imports neither pyspark nor pandas; they load when a function needs them.
"""

from __future__ import annotations

import atexit
import json
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, cast

from groundwire.client.extras import missing_extra
from groundwire.contract.errors import GroundwireError, bad_request
from groundwire.contract.facts import fact_parts
from groundwire.features.batch import DEFAULT_CONCURRENCY, BatchOutcome, Rpc, batch_failure
from groundwire.features.batch_spec import BATCHABLE
from groundwire.features.records import error_record

if TYPE_CHECKING:
    from groundwire.client.sync import GroundingClient

__all__ = [
    "RESULT_SCHEMA",
    "RESULT_STRUCT",
    "check_grounding_batches",
    "grounding_udf",
    "outcome_row",
    "output_schema",
    "result_columns",
    "result_schema",
    "result_struct",
    "row_item",
]

_CLAIM = "struct<text: string, start: int, end: int, score: double, citation_indices: array<int>>"
_CITATION = "struct<fact_index: int, text: string>"


def result_columns(method: Rpc = "CheckGrounding") -> list[tuple[str, str]]:
    """The result columns a row gains: (name, Spark DDL type) pairs, in order.

    The score column is named after the method's score (`support_score`, or
    `corroboration_score` for `CorroborateContent`); `claims[i].start`/`end` are Python
    `str` offsets into the answer; `citation_indices` index the row's facts, as
    `citations[j].fact_index` does; `attempts` counts the calls sent for the row.

    Example:
        >>> [name for name, _ in result_columns("CorroborateContent")][:2]
        ['corroboration_score', 'claims']
    """
    return [
        (BATCHABLE[method].score, "double"),
        ("claims", f"array<{_CLAIM}>"),
        ("citations", f"array<{_CITATION}>"),
        ("attempts", "int"),
        ("error_code", "string"),
        ("error_message", "string"),
    ]


def result_schema(method: Rpc = "CheckGrounding") -> str:
    """The result columns as a Spark DDL string, for `mapInPandas`'s schema.

    Example:
        >>> result_schema().split(", ")[0]
        'support_score double'
    """
    return ", ".join(f"{name} {kind}" for name, kind in result_columns(method))


RESULT_SCHEMA = result_schema()
"""The result columns of a grounding check, as DDL: `f"id long, {RESULT_SCHEMA}"`."""


def result_struct(method: Rpc = "CheckGrounding") -> str:
    """The result columns as one struct type: what `grounding_udf` returns for a row.

    Example:
        >>> result_struct().startswith("struct<support_score: double, claims: array<")
        True
    """
    return f"struct<{', '.join(f'{name}: {kind}' for name, kind in result_columns(method))}>"


RESULT_STRUCT = result_struct()
"""The result of a grounding check as one struct type (`grounding_udf`'s return type)."""


def output_schema(
    input_schema: Any, keep: Sequence[str] | None = None, method: Rpc = "CheckGrounding"
) -> str:
    """The DDL schema of `check_grounding_batches(keep=...)`'s output for this input schema.

    `input_schema` is the DataFrame's `schema` (a `StructType`); `keep` the columns passed
    through (default: all of them). Needs pyspark.

    Example:
        >>> out = df.mapInPandas(check, schema=output_schema(df.schema, ["id"]))  # doctest: +SKIP
    """
    fields = {field.name: field for field in input_schema.fields}
    names = list(fields) if keep is None else list(keep)
    missing = [name for name in names if name not in fields]
    if missing:
        raise ValueError(f"keep names columns the DataFrame lacks: {', '.join(missing)}")
    kept = [f"`{name}` {fields[name].dataType.simpleString()}" for name in names]
    return ", ".join([*kept, result_schema(method)])


def row_item(answer: object, facts: object, row_id: object = None) -> dict[str, Any]:
    """A row's answer and facts as a batch item; raises `InvalidArgument` for a poison row.

    `facts` is a sequence of texts (an `array<string>` column arrives as a numpy array) or
    of fact mappings, or a JSON string of one. The answer must be text; an empty one is refused
    when the batch plans its call, as in every surface (`groundwire.contract.validation`).

    Example:
        >>> row_item("Paris is in France.", '["Paris is the capital of France."]', 7)
        {'answer': 'Paris is in France.', 'facts': ['Paris is the capital of France.'], 'id': 7}
        >>> row_item("Paris.", "[not json")
        Traceback (most recent call last):
        ...
        groundwire.contract.errors.InvalidArgument: INVALID_ARGUMENT: facts is not JSON: ...
    """
    if not isinstance(answer, str):
        kind = _kind(answer)
        raise bad_request([("answer", f"expected text, got {kind}")], f"the answer is {kind}")
    if isinstance(facts, str):
        try:
            facts = json.loads(facts)
        except ValueError as error:
            raise bad_request([("facts", "not JSON")], f"facts is not JSON: {error}") from None
    if facts is None or isinstance(facts, (str, bytes, Mapping)) or not _is_sequence(facts):
        kind = _kind(facts)
        raise bad_request(
            [("facts", f"expected a list of facts, got {kind}")], f"facts is {kind}, not a list"
        )
    facts_list = [_plain(fact) for fact in cast("Iterable[object]", facts)]
    return {"answer": answer, "facts": facts_list, "id": row_id}


def outcome_row(method: Rpc, outcome: BatchOutcome[Any], facts: Sequence[Any]) -> dict[str, Any]:
    """A row's outcome as the result columns (`result_schema`): a result, or an error.

    `facts` are the row's facts (its item's), which `citations` quote by index.

    Example:
        >>> from groundwire.contract.errors import InvalidArgument
        >>> outcome_row("CheckGrounding", BatchOutcome(0, None, InvalidArgument("no"), 0), [])
        ... # doctest: +NORMALIZE_WHITESPACE
        {'support_score': None, 'claims': None, 'citations': None, 'attempts': 0,
         'error_code': 'INVALID_ARGUMENT', 'error_message': 'no'}
    """
    spec = BATCHABLE[method]
    if outcome.error is not None:
        error = error_record(outcome.error)
        return {
            spec.score: None,
            "claims": None,
            "citations": None,
            "attempts": outcome.attempts,
            "error_code": error["code"],
            "error_message": error["message"],
        }
    record = spec.record(outcome.result)
    claims = [
        {
            "text": claim["text"],
            "start": claim["start"],
            "end": claim["end"],
            "score": claim["score"],
            "citation_indices": _citation_indices(claim),
        }
        for claim in record["claims"]
    ]
    cited = sorted({index for claim in claims for index in claim["citation_indices"]})
    return {
        spec.score: record[spec.score],
        "claims": claims,
        "citations": [
            {
                "fact_index": index,
                "text": fact_parts(facts[index], index, "facts")[0] if index < len(facts) else None,
            }
            for index in cited
        ],
        "attempts": outcome.attempts,
        "error_code": None,
        "error_message": None,
    }


def check_grounding_batches(
    project: str,
    location: str = "global",
    *,
    method: Rpc = "CheckGrounding",
    answer_column: str = "answer",
    facts_column: str = "facts",
    keep: Sequence[str] | None = None,
    concurrency: int = DEFAULT_CONCURRENCY,
    rate: float | None = None,
    citation_threshold: float | None = None,
    enable_claim_level_score: bool | None = None,
    **client_kwargs: Any,
) -> Callable[[Iterable[Any]], Iterator[Any]]:
    """The function for `DataFrame.mapInPandas` that checks each row's answer and facts.

    Each output row holds the input's `keep` columns (default: all), then the result
    columns (`result_schema(method)`); `output_schema` writes the whole schema. The
    returned function pickles with its options only; each Python worker makes its client.

    Example:
        >>> check = check_grounding_batches("my-project", keep=["id"], concurrency=32)
        >>> out = df.mapInPandas(check, schema=f"id long, {RESULT_SCHEMA}")  # doctest: +SKIP

    Args:
        project: the Google Cloud project that owns (and pays for) the calls.
        location: `global` (default), `us` or `eu` (a Vertex AI region for CorroborateContent).
        method: `"CheckGrounding"` (default) or `"CorroborateContent"`.
        answer_column: the column with the answer (the content, for CorroborateContent).
        facts_column: an `array<string>` column, or a string column of JSON arrays (of
            texts or of `{"fact_text" or "text", "attributes"}` objects).
        keep: the input columns the output passes through (an id, to join results back).
        concurrency: the calls in flight at once per worker; the batch API halves it while
            the service throttles and raises it again while calls succeed.
        rate: at most this many calls per second per worker (None: no limit).
        citation_threshold: the citation threshold of every call (None: the service's).
        enable_claim_level_score: also score each claim (CheckGrounding only).
        client_kwargs: the rest go to `GroundingClient` (`api_version`, `endpoint`,
            `rest_endpoint`, `transport`, `timeout`, `retry`, `credentials`, ...).
    """
    runner = _Runner(
        method,
        {"project": project, "location": location, **client_kwargs},
        _batch_options(method, concurrency, rate, citation_threshold, enable_claim_level_score),
    )
    _check_arguments(runner.client_arguments)

    def check_batches(batches: Iterable[Any]) -> Iterator[Any]:
        import pandas as pd

        for batch in batches:
            columns = keep if keep is not None else list(batch.columns)
            rows = runner.run(batch[answer_column], batch[facts_column])
            kept = batch[list(columns)].reset_index(drop=True)
            yield pd.concat([kept, pd.DataFrame.from_records(rows, columns=runner.columns)], axis=1)

    return check_batches


def grounding_udf(
    project: str,
    location: str = "global",
    *,
    method: Rpc = "CheckGrounding",
    concurrency: int = DEFAULT_CONCURRENCY,
    rate: float | None = None,
    citation_threshold: float | None = None,
    enable_claim_level_score: bool | None = None,
    **client_kwargs: Any,
) -> Any:
    """A pandas UDF of (answer, facts) columns that returns one result struct per row.

    The struct's fields are `result_schema(method)`'s columns; its arguments are
    `check_grounding_batches`'s. Needs pyspark.

    Example:
        >>> check = grounding_udf("my-project")  # doctest: +SKIP
        >>> out = df.select("id", check("answer", "facts").alias("grounding"))  # doctest: +SKIP
    """
    try:
        import pandas as pd
        from pyspark.sql.functions import pandas_udf
    except ImportError as error:
        raise missing_extra(error, "spark", "groundwire.spark.grounding_udf") from error
    runner = _Runner(
        method,
        {"project": project, "location": location, **client_kwargs},
        _batch_options(method, concurrency, rate, citation_threshold, enable_claim_level_score),
    )
    _check_arguments(runner.client_arguments)

    def check_rows(answers: Any, facts: Any) -> Any:
        import pandas as pd

        return pd.DataFrame.from_records(runner.run(answers, facts), columns=runner.columns)

    # pyspark reads the UDF's kind (Series to DataFrame: a struct per row) from its hints.
    check_rows.__annotations__ = {"answers": pd.Series, "facts": pd.Series, "return": pd.DataFrame}
    return pandas_udf(check_rows, returnType=result_struct(method))


class _Runner:
    """Checks a batch of rows with the worker's client: one outcome row per input row."""

    def __init__(
        self, method: Rpc, client_arguments: dict[str, Any], batch_options: dict[str, Any]
    ) -> None:
        spec = BATCHABLE[method]
        self.method = method
        self.client_arguments = client_arguments
        self.batch_options = batch_options
        self.many = spec.many
        self.columns = [name for name, _ in result_columns(method)]

    def run(self, answers: Iterable[Any], facts: Iterable[Any]) -> list[dict[str, Any]]:
        """The result columns of each (answer, facts) row, in order; poison rows get errors."""
        rows: list[dict[str, Any] | None] = []
        items: list[dict[str, Any]] = []
        for index, (answer, row_facts) in enumerate(zip(answers, facts, strict=True)):
            try:
                items.append(row_item(answer, row_facts, index))
                rows.append(None)
            except GroundwireError as error:
                rows.append(outcome_row(self.method, BatchOutcome(index, None, error, 0), []))
        if items:
            self._send(items, rows)
        return [row for row in rows if row is not None]

    def _send(self, items: list[dict[str, Any]], rows: list[dict[str, Any] | None]) -> None:
        client = _client_for(self.client_arguments)
        with getattr(client, self.many)(items, **self.batch_options) as many:
            outcomes: list[BatchOutcome[Any]] = list(many)
        failure = batch_failure(outcomes)
        if failure is not None:
            raise failure  # the service is down or overloaded: Spark retries the task
        for item, outcome in zip(items, outcomes, strict=True):
            rows[item["id"]] = outcome_row(self.method, outcome, item["facts"])


def _batch_options(
    method: Rpc,
    concurrency: int,
    rate: float | None,
    citation_threshold: float | None,
    enable_claim_level_score: bool | None,
) -> dict[str, Any]:
    options: dict[str, Any] = {
        "concurrency": concurrency,
        "rate": rate,
        "citation_threshold": citation_threshold,
    }
    if enable_claim_level_score is not None:
        if not BATCHABLE[method].claim_score_options:
            raise TypeError(f"{method} takes no enable_claim_level_score")
        options["enable_claim_level_score"] = enable_claim_level_score
    return options


_CLIENTS: dict[str, GroundingClient] = {}
"""This process's clients, by their connection options (one per executor Python worker)."""
_CLIENTS_LOCK = threading.Lock()


def _check_arguments(arguments: Mapping[str, Any]) -> None:
    """Makes a client and closes it, so wrong options fail on the driver, not in every task.

    (A client connects lazily: making one only checks its options.)
    """
    from groundwire.client.sync import GroundingClient

    GroundingClient(**arguments).close()


def _client_for(arguments: Mapping[str, Any]) -> GroundingClient:
    """The process's client for these options, made on first use and closed at exit."""
    from groundwire.client.sync import GroundingClient

    key = repr(sorted(arguments.items()))
    with _CLIENTS_LOCK:
        client = _CLIENTS.get(key)
        if client is None:
            if not _CLIENTS:
                atexit.register(_close_clients)
            client = _CLIENTS[key] = GroundingClient(**arguments)
        return client


def _close_clients() -> None:
    with _CLIENTS_LOCK:
        for client in _CLIENTS.values():
            client.close()
        _CLIENTS.clear()


def _citation_indices(claim: Mapping[str, Any]) -> list[int]:
    """The facts a claim cites: a check's citations' indices, or a corroboration's."""
    if "fact_indexes" in claim:
        return [int(index) for index in claim["fact_indexes"]]
    cited = (citation["fact_index"] for citation in claim.get("citations", []))
    return sorted({int(index) for index in cited if index is not None})


def _is_sequence(value: object) -> bool:
    return hasattr(value, "__len__") and hasattr(value, "__iter__")


def _plain(value: object) -> object:
    """A numpy scalar or array as plain Python (pandas hands Spark arrays over as numpy)."""
    if hasattr(value, "tolist"):
        return value.tolist()
    return value


def _kind(value: object) -> str:
    if value is None:
        return "null"
    return type(value).__name__
