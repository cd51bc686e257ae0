"""`groundwire batch`: many checks from a JSONL file, concurrent, rate-limited and resumable."""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType
from typing import IO, Any

from groundwire.cli.batch_input import RequestShape, input_lines
from groundwire.cli.batch_run import RunOptions, send_pending
from groundwire.cli.connection import open_client
from groundwire.cli.errors import EXIT_FAILURE, EXIT_OK, InputError
from groundwire.cli.output_file import OutputWriter, prepare_output, read_output
from groundwire.cli.progress import Progress, ProgressMode
from groundwire.cli.resume import OutputState, ResumePlan, counted, foreign_problem, plan_resume
from groundwire.cli.summary import BatchStats, render_summary, summary_record
from groundwire.features.batch_spec import BY_COMMAND

DESCRIPTION = """\
Run one request per line of IN (JSON Lines) and append one record per input line to OUT:
{"line": N, "key": K, "id": ..., "result": {...}} or {..., "error": {"code", "message"}}.
Input lines are objects with "answer_candidate" (or "answer"; "content" for corroborate),
"facts", and optionally "citation_threshold" and "id"; blank lines are skipped, and a line that
is no request (or over 16 MiB, read past unheld) gets a final INVALID_ARGUMENT. K is a hash of
the line's request and id. Run the same command again to resume: lines whose record in OUT
is a result or a final failure are skipped (matched by K, so lines may move), transient
failures (UNAVAILABLE, DEADLINE_EXCEEDED, RESOURCE_EXHAUSTED) are done again, and a torn last
line is repaired; an OUT holding records of other requests is refused. The summary and the
exit status describe all of OUT: 0 when every line has a result, 1 otherwise."""


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
        choices=tuple(BY_COMMAND),
        default="check",
        help="what to do with each line (default: check)",
    )
    parser.add_argument(
        "--concurrency",
        type=int,
        default=8,
        metavar="N",
        help="at most this many requests in flight (default: 8); fewer while the service throttles",
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
        "--retry-failed",
        action="store_true",
        help="do again every line whose record is a failure (transient failures are done "
        "again anyway)",
    )
    parser.add_argument("--no-progress", action="store_true", help="show no progress")
    parser.add_argument(
        "--json-summary",
        action="store_true",
        help="print the summary as JSON on stdout instead of text on stderr",
    )


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
    _check_api_version(args)
    for path in (args.input, args.output):
        if os.path.isdir(path):
            raise InputError(f"{path}: is a directory, not a file")
    if not os.path.isfile(args.input):
        raise InputError(f"{args.input}: no such file")
    directory = os.path.dirname(args.output) or os.curdir
    if not os.path.isdir(directory):
        raise InputError(f"{args.output}: no such directory: {directory}")
    if os.path.exists(args.output) and os.path.samefile(args.input, args.output):
        raise InputError("IN and OUT are the same file")


def _check_api_version(args: argparse.Namespace) -> None:
    """Refuses an API version the method's API does not have (read from its spec)."""
    from groundwire.contract.spec import SPECS  # loads protobuf: not while building --help

    batch = BY_COMMAND[args.method]
    versions = SPECS[batch.rpc].versions
    if args.api_version not in versions:
        raise InputError(
            f"--api-version {args.api_version}: "
            f"{args.method} ({batch.service}) takes {' or '.join(versions)} only"
        )


def _progress_mode(args: argparse.Namespace, stream: IO[str]) -> ProgressMode:
    if args.no_progress:
        return "off"
    try:
        return "bar" if stream.isatty() else "lines"
    except (OSError, ValueError):
        return "lines"


def _shape(args: argparse.Namespace) -> RequestShape:
    return RequestShape(
        args.method, citation_threshold=args.citation_threshold, claim_scores=args.claim_scores
    )


def _score_name(args: argparse.Namespace) -> str:
    return BY_COMMAND[args.method].score


def _resume(args: argparse.Namespace, shape: RequestShape) -> tuple[OutputState, ResumePlan]:
    """Matches OUT against IN; refuses an OUT of other requests before changing anything."""
    state = read_output(args.output, retry_failed=args.retry_failed, score_name=_score_name(args))
    if state.keyless:
        raise InputError(
            f"{args.output}: holds {counted(state.keyless, 'record')} without a request key, "
            "written by an older groundwire; write to a new output file"
        )
    plan = plan_resume(state, input_lines(args.input, shape))
    problem = foreign_problem(plan, args.output, args.input)
    if problem is not None:
        raise InputError(problem)
    prepare_output(
        args.output,
        state,
        plan,
        retry_failed=args.retry_failed,
        score_name=_score_name(args),
    )
    return state, plan


def _report(state: OutputState, plan: ResumePlan, args: argparse.Namespace, err: IO[str]) -> None:
    notices = []
    if state.torn_bytes:
        notices.append(
            f"dropped a torn last line ({state.torn_bytes} bytes) from an interrupted run; "
            "its input line will be done again"
        )
    if state.unreadable:
        notices.append(f"ignoring {counted(state.unreadable, 'line')} that are not batch records")
    if state.redo:
        what = "failed" if args.retry_failed else "transiently failed"
        notices.append(f"doing again {counted(state.redo, what + ' line')}")
    if plan.moved:
        notices.append(f"{counted(plan.moved, 'line')} moved in {args.input}: records renumbered")
    for notice in notices:
        print(f"groundwire: {args.output}: {notice}", file=err)


def _stats(state: OutputState, plan: ResumePlan) -> BatchStats:
    stats = BatchStats(lines=plan.lines, done_before=plan.done, retried=state.redo)
    for record in plan.done_kept:
        if record.code is None:
            stats.whole.succeeded(record.score)
        else:
            stats.whole.failed_with(record.code)
    return stats


def run(args: argparse.Namespace, stdin: IO[Any] | None, stdout: IO[str]) -> int:
    """Runs `batch`: does the pending lines, prints the summary, returns the exit code.

    The exit code is 0 only when every input line has a result in OUT, whichever run wrote it.
    """
    _check_args(args)
    stderr = sys.stderr
    shape = _shape(args)
    state, plan = _resume(args, shape)
    _report(state, plan, args, stderr)
    stats = _stats(state, plan)
    elapsed = 0.0
    interrupted: KeyboardInterrupt | None = None
    if plan.pending:
        options = RunOptions(shape.batch, args.concurrency, args.rate or None)
        writer = OutputWriter(args.output)
        try:
            with _sigterm_interrupts(), open_client(args) as client:
                started = time.monotonic()
                progress = Progress(plan.pending, stderr, _progress_mode(args, stderr))
                pending = input_lines(args.input, shape, skip=plan.is_done)
                try:
                    send_pending(client, pending, options, writer, stats, progress)
                except KeyboardInterrupt as interrupt:
                    interrupted = interrupt
                finally:
                    progress.finish()
                elapsed = time.monotonic() - started
        finally:
            writer.close()
    summary = summary_record(
        stats, score_name=_score_name(args), elapsed=elapsed, interrupted=interrupted is not None
    )
    if args.json_summary:
        print(json.dumps(summary, ensure_ascii=False), file=stdout)
    else:
        print(render_summary(summary, _score_name(args)), file=stderr)
    if interrupted is not None:
        print(
            f"groundwire: interrupted with {stats.remaining} lines left; run the same "
            "command again to resume",
            file=stderr,
        )
        raise interrupted
    return EXIT_OK if stats.whole.ok == stats.lines else EXIT_FAILURE
