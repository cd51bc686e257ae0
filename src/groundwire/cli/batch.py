"""`groundwire batch`: many checks from a JSONL file, concurrent, rate-limited and resumable."""

from __future__ import annotations

import argparse
import json
import os
import queue
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType
from typing import IO, TYPE_CHECKING, Any

from groundwire.cli.batch_input import Line, count_input, parse_line, pending_lines
from groundwire.cli.connection import open_client
from groundwire.cli.errors import EXIT_FAILURE, EXIT_OK, InputError
from groundwire.cli.io import (
    ANSWER_KEYS,
    CONTENT_KEYS,
    GroundingInput,
)
from groundwire.cli.pacing import TokenBucket
from groundwire.cli.progress import Progress, ProgressMode
from groundwire.cli.records import check_record, corroboration_record, error_record
from groundwire.cli.resume import OutputState, OutputWriter, prepare_output
from groundwire.cli.summary import BatchStats, render_summary, summary_record
from groundwire.core.errors import GroundwireError, StatusCode

if TYPE_CHECKING:
    from groundwire.client import GroundingClient

DESCRIPTION = """\
Run one request per line of IN (JSON Lines) and append one line per input line to OUT:
{"line": N, "id": ..., "result": {...}} or {"line": N, "id": ..., "error": {"code", "message"}}.
Input lines are objects with "answer_candidate" (or "answer"; "content" for corroborate),
"facts", and optionally "citation_threshold" and "id"; blank lines are skipped. Run the same
command again after an interruption: lines already in OUT are skipped, a torn last line is
repaired. Exit status: 0 when every line succeeded, 1 when some failed (see OUT)."""

# Failures that would fail every line alike: stop instead of writing them line after line.
_FATAL_CODES = frozenset({StatusCode.UNAUTHENTICATED, StatusCode.PERMISSION_DENIED})


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised in the main thread so a batch stops the way Ctrl-C stops it."""

    def __init__(self, signum: int) -> None:
        super().__init__(f"terminated by signal {signum}")
        self.signum = signum


def configure(parser: argparse.ArgumentParser) -> None:
    """Adds the options of `batch` to its parser."""
    parser.add_argument("input", metavar="IN.jsonl", help="one request per line")
    parser.add_argument(
        "-o",
        "--output",
        required=True,
        metavar="OUT.jsonl",
        help="results, appended; the run resumes from what it holds",
    )
    parser.add_argument(
        "--method",
        choices=("check", "corroborate"),
        default="check",
        help="what to do with each line (default: check)",
    )
    parser.add_argument(
        "--concurrency",
        type=int,
        default=8,
        metavar="N",
        help="requests in flight at once (default: 8)",
    )
    parser.add_argument(
        "--rate",
        type=float,
        default=10.0,
        metavar="PER_SECOND",
        help="at most this many requests per second (default: 10; 0: no limit)",
    )
    parser.add_argument(
        "--citation-threshold", type=float, metavar="0..1", help="for lines that give none"
    )
    parser.add_argument("--claim-scores", action="store_true", help="also score each claim (check)")
    parser.add_argument(
        "--retry-failed", action="store_true", help="do again the lines whose output is an error"
    )
    parser.add_argument("--no-progress", action="store_true", help="show no progress")
    parser.add_argument(
        "--json-summary",
        action="store_true",
        help="print the summary as JSON on stdout instead of text on stderr",
    )


class BatchRun:
    """One run over the pending lines: a feeding main thread, worker threads, one writer."""

    def __init__(
        self,
        args: argparse.Namespace,
        client: GroundingClient,
        stats: BatchStats,
        writer: OutputWriter,
        progress: Progress,
    ) -> None:
        self.args = args
        self.client = client
        self.stats = stats
        self.writer = writer
        self.progress = progress
        self.text_keys = ANSWER_KEYS if args.method == "check" else CONTENT_KEYS
        self.bucket = TokenBucket(args.rate) if args.rate > 0 else None
        self.work: queue.Queue[Line | None] = queue.Queue(maxsize=2 * args.concurrency)
        self.lock = threading.Lock()
        self.fatal: BaseException | None = None
        self.stopping = threading.Event()
        self.workers = [
            threading.Thread(target=self._work, name=f"groundwire-batch-{i}", daemon=True)
            for i in range(args.concurrency)
        ]

    def run(self, lines: Iterator[Line]) -> None:
        """Does every line; on Ctrl-C or SIGTERM, stops writing at once and re-raises."""
        for worker in self.workers:
            worker.start()
        try:
            for line in lines:
                self._put(line)
            for _ in self.workers:
                self._put(None)
            for worker in self.workers:
                while worker.is_alive():
                    worker.join(0.1)
                    self._raise_fatal()
            self._raise_fatal()
        except BaseException:
            self.stop()
            raise
        finally:
            self.progress.finish()

    def stop(self) -> None:
        """Refuses every later write and sends nothing more.

        Lines still in flight are left for the next run to do.
        """
        self.stopping.set()
        with self.lock:
            self.writer.close()

    def _put(self, line: Line | None) -> None:
        while True:
            self._raise_fatal()
            try:
                self.work.put(line, timeout=0.1)
                return
            except queue.Full:
                continue

    def _raise_fatal(self) -> None:
        if self.fatal is not None:
            raise self.fatal

    def _work(self) -> None:
        while (line := self.work.get()) is not None:
            if self.fatal is not None or self.stopping.is_set():
                continue  # drain the queue without sending: the batch is ending
            try:
                self._do(line)
            except BaseException as error:  # anything unforeseen stops the batch, not a thread
                self.fatal = error
                self.stop()

    def _do(self, line: Line) -> None:
        parsed = parse_line(line, self.text_keys)
        base = {"line": line.number, "id": parsed.id}
        if parsed.grounding is None:
            problem = parsed.problem or "unreadable line"
            self._emit(
                {**base, "error": {"code": "INVALID_ARGUMENT", "message": problem}},
                lambda: self.stats.failed_with("INVALID_ARGUMENT"),
            )
            return
        grounding = parsed.grounding
        if self.bucket is not None:
            self.bucket.acquire()
        try:
            result, score = self._call(grounding)
        except (TypeError, ValueError) as error:  # the request could not be built from it
            self._emit(
                {**base, "error": {"code": "INVALID_ARGUMENT", "message": str(error)}},
                lambda: self.stats.failed_with("INVALID_ARGUMENT"),
            )
            return
        except GroundwireError as error:
            if error.code in _FATAL_CODES:
                raise
            code = error.code.name
            self._emit({**base, "error": error_record(error)}, lambda: self.stats.failed_with(code))
            return
        self._emit(
            {**base, "result": result}, lambda: self.stats.succeeded(score, grounding.characters)
        )

    def _call(self, grounding: GroundingInput) -> tuple[dict[str, Any], float | None]:
        threshold = grounding.citation_threshold
        if threshold is None:
            threshold = self.args.citation_threshold
        if self.args.method == "corroborate":
            corroboration = self.client.corroborate_content(
                grounding.text, grounding.facts, citation_threshold=threshold
            )
            return (
                corroboration_record(corroboration, include_content=False),
                corroboration.corroboration_score,
            )
        check = self.client.check_grounding(
            grounding.text,
            grounding.facts,
            citation_threshold=threshold,
            enable_claim_level_score=True if self.args.claim_scores else None,
        )
        return check_record(check, include_answer=False), check.support_score

    def _emit(self, record: dict[str, Any], count: Callable[[], None]) -> None:
        with self.lock:
            if self.writer.write(record):
                count()
                self.progress.update(self.stats.ok + self.stats.failed)


@contextmanager
def _sigterm_interrupts() -> Iterator[None]:
    """While active, SIGTERM raises `Terminated` in the main thread (as Ctrl-C would)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum: int, frame: FrameType | None) -> None:
        raise Terminated(signum)

    previous = signal.signal(signal.SIGTERM, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _check_args(args: argparse.Namespace) -> None:
    if args.concurrency < 1:
        raise InputError(f"--concurrency must be at least 1, got {args.concurrency}")
    if not args.rate >= 0 or args.rate == float("inf"):
        raise InputError(
            f"--rate must be a number of requests per second (0: no limit), got {args.rate}"
        )
    if not os.path.isfile(args.input):
        raise InputError(f"{args.input}: no such file")
    if os.path.exists(args.output) and os.path.samefile(args.input, args.output):
        raise InputError("IN and OUT are the same file")


def _progress_mode(args: argparse.Namespace, stream: IO[str]) -> ProgressMode:
    if args.no_progress:
        return "off"
    try:
        return "bar" if stream.isatty() else "lines"
    except (OSError, ValueError):
        return "lines"


def _report_state(
    state: OutputState, args: argparse.Namespace, lines: int, stderr: IO[str]
) -> None:
    if state.repaired_bytes:
        print(
            f"groundwire: {args.output}: dropped a torn last line ({state.repaired_bytes} "
            "bytes) from an interrupted run; its input line will be done again",
            file=stderr,
        )
    if state.unreadable:
        print(
            f"groundwire: {args.output}: ignoring {state.unreadable} lines that are not "
            "batch records",
            file=stderr,
        )
    if state.done and max(state.done) > lines:
        print(
            f"groundwire: {args.output}: answers lines beyond the end of {args.input}; is it "
            "the output of another input?",
            file=stderr,
        )


def run(args: argparse.Namespace, stdin: IO[Any] | None, stdout: IO[str]) -> int:
    """Runs `batch`: does the pending lines, prints the summary, returns the exit code."""
    _check_args(args)
    stderr = sys.stderr
    state = prepare_output(args.output, retry_failed=args.retry_failed)
    stats = BatchStats()
    counts = count_input(args.input, state.done)
    stats.records, stats.skipped = counts.records, counts.done
    _report_state(state, args, counts.lines, stderr)
    elapsed = 0.0
    interrupted: KeyboardInterrupt | None = None
    if stats.remaining:
        writer = OutputWriter(args.output)
        try:
            with _sigterm_interrupts(), open_client(args) as client:
                started = time.monotonic()
                progress = Progress(stats.remaining, stderr, _progress_mode(args, stderr))
                try:
                    BatchRun(args, client, stats, writer, progress).run(
                        pending_lines(args.input, state.done)
                    )
                except KeyboardInterrupt as interrupt:
                    interrupted = interrupt
                elapsed = time.monotonic() - started
        finally:
            writer.close()
    score_name = "support_score" if args.method == "check" else "corroboration_score"
    summary = summary_record(
        stats, score_name=score_name, elapsed=elapsed, interrupted=interrupted is not None
    )
    if args.json_summary:
        print(json.dumps(summary, ensure_ascii=False), file=stdout)
    else:
        print(render_summary(summary, score_name), file=stderr)
    if interrupted is not None:
        print(
            f"groundwire: interrupted with {stats.remaining} lines left; run the same "
            "command again to resume",
            file=stderr,
        )
        raise interrupted
    return EXIT_FAILURE if stats.failed else EXIT_OK
