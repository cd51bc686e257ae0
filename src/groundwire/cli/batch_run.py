"""One `groundwire batch` run: the pending lines through the library batch, a record for each.

Sending, retrying, throttling and the dead-endpoint stop are `GroundingClient.*_many`'s;
this module only turns lines into its items and its outcomes into output records.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from groundwire.cli.batch_input import InputLine
from groundwire.cli.output_file import OutputWriter
from groundwire.cli.progress import Progress
from groundwire.cli.summary import BatchStats
from groundwire.contract.errors import InvalidArgument, StatusCode
from groundwire.features.batch_spec import BatchSpec
from groundwire.features.records import outcome_record

if TYPE_CHECKING:
    from groundwire.client.sync import GroundingClient
    from groundwire.features.batch_threads import Batch, BatchOutcome

# Failures that would fail every line alike: stop instead of writing them line after line.
FATAL_CODES = frozenset({StatusCode.UNAUTHENTICATED, StatusCode.PERMISSION_DENIED})


@dataclass(frozen=True)
class RunOptions:
    """How the run sends: the method's batch spec and the run's bounds."""

    batch: BatchSpec
    concurrency: int
    rate: float | None


def record_of(
    line: InputLine, outcome: BatchOutcome[Any], batch: BatchSpec
) -> tuple[dict[str, Any], float | None]:
    """The output record of a line and its outcome, and its score (None for a failure).

    The record is the one Beam emits too (`outcome_record`), after the line's `line` and
    `key`. A line that was no request keeps its own problem as the message, naming the line.
    """
    where = {"line": line.number, "key": line.key}
    if line.problem is not None:
        problem = InvalidArgument(line.problem)
        return {**where, **outcome_record(line.id, error=problem)}, None
    if outcome.error is not None:
        return {**where, **outcome_record(line.id, error=outcome.error)}, None
    result: Any = outcome.result  # set whenever error is None
    return {**where, **outcome_record(line.id, batch.record(result))}, batch.score_of(result)


def send_pending(
    client: GroundingClient,
    lines: Iterable[InputLine],
    options: RunOptions,
    writer: OutputWriter,
    stats: BatchStats,
    progress: Progress,
) -> None:
    """Does every line of `lines`, appending one record for each as its outcome arrives.

    A line that is no request goes through the batch too (the batch refuses it without
    sending anything), so every line gets its outcome in order. UNAUTHENTICATED and
    PERMISSION_DENIED stop the run (raised, not written: the next run does those lines); so
    does a dead endpoint (the batch raises `Unavailable`). On any stop the writer is closed
    first, so nothing lands after it; on Ctrl-C or SIGTERM the client is closed too, which
    ends the calls in flight at once (the next run does their lines).
    """
    waiting: dict[int, InputLine] = {}

    def items() -> Iterator[Mapping[str, Any] | None]:
        for index, line in enumerate(lines):
            waiting[index] = line
            yield line.item

    many = getattr(client, options.batch.many)
    batch: Batch[Any] = many(items(), concurrency=options.concurrency, rate=options.rate)
    try:
        for outcome in batch:
            line = waiting.pop(outcome.index)
            if outcome.error is not None and outcome.error.code in FATAL_CODES:
                raise outcome.error
            record, score = record_of(line, outcome, options.batch)
            if not writer.write(record):
                return
            if "error" in record:
                stats.failed_with(record["error"]["code"])
            else:
                stats.succeeded(score, line.characters)
            progress.update(stats.run.ok + stats.run.failed)
    except KeyboardInterrupt:
        writer.close()
        client.close()  # ends the calls in flight now, rather than after their timeouts
        raise
    finally:
        writer.close()
        stats.throttled_seconds = batch.throttled_seconds
        batch.close()
