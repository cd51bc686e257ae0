"""`groundwire check`: how well facts support an answer, claim by claim."""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterator
from typing import IO, TYPE_CHECKING, Any

from groundwire.cli.connection import open_client
from groundwire.cli.errors import InputError
from groundwire.cli.io import (
    ANSWER_KEYS,
    add_input_options,
    gather_input,
    input_flags,
    parse_fact_file,
    parse_labels,
    read_text_file,
)
from groundwire.cli.render import (
    NOT_CHECKED,
    SUPPORTED,
    UNSUPPORTED,
    Style,
    plural,
    render_check,
    score_text,
    style_for,
    width_for,
)
from groundwire.features.records import check_record

if TYPE_CHECKING:
    from groundwire.contract.requests import FactLike
    from groundwire.features.sentence_stream import SentenceCheck

DESCRIPTION = """\
Check an answer against facts. The answer and facts come from flags and files, or from a
JSON object on stdin: {"answer_candidate": "...", "facts": ["...", {"text": "...",
"attributes": {"author": "..."}}], "citation_threshold": 0.6}."""


def configure(parser: argparse.ArgumentParser) -> None:
    """Adds the options of `check` to its parser."""
    add_input_options(parser, "answer")
    parser.add_argument(
        "--claim-scores", action="store_true", help="also score each claim (v1 and v1beta)"
    )
    parser.add_argument(
        "--label",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a billing label (repeatable)",
    )
    parser.add_argument(
        "--stream",
        action="store_true",
        help="read the answer from stdin as it streams; print each sentence's verdict as it is "
        "checked (facts from --fact and --fact-file)",
    )
    parser.add_argument(
        "--json",
        action="store_true",
        help="print the result as JSON (with --stream: one JSON object per check)",
    )
    parser.add_argument(
        "--split",
        action="store_true",
        help="split an answer or facts past the API's limits into several calls and merge "
        "their results (claim scores on); see the docs' 'Long answers and large evidence'",
    )
    parser.add_argument(
        "--max-calls",
        type=int,
        default=16,
        metavar="N",
        help="with --split: refuse a split that needs more than N calls (default: 16)",
    )


def run(args: argparse.Namespace, stdin: IO[Any] | None, stdout: IO[str]) -> int:
    """Runs `check`: prints the marked answer (or JSON) and returns the exit code."""
    if args.stream:
        return _run_stream(args, stdin, stdout)
    grounding = gather_input(input_flags(args), stdin, ANSWER_KEYS, "answer")
    labels = parse_labels(args.label)
    with open_client(args) as client:
        result = client.check_grounding(
            grounding.text,
            grounding.facts,
            citation_threshold=grounding.citation_threshold,
            enable_claim_level_score=True if args.claim_scores else None,
            user_labels=labels or None,
            split=args.split,
            max_calls=args.max_calls,
        )
    from groundwire.features.split import SplitCheckResult  # protobuf: not for `--help`

    merged = result if isinstance(result, SplitCheckResult) else None
    if args.json:
        record = check_record(result)
        if merged is not None:
            record.update(calls=merged.calls, billed_characters=merged.billed_characters)
        print(json.dumps(record, ensure_ascii=False, indent=2), file=stdout)
    else:
        print(render_check(result, style_for(stdout), width_for(stdout)), file=stdout)
        if merged is not None:
            print(f"({plural(merged.calls, 'call')}, split and merged)", file=stdout)
    return 0


def _stdin_chunks(stdin: IO[Any]) -> Iterator[bytes | str]:
    """Stdin as it arrives: whatever is there at each read, not waiting for its end."""
    source = getattr(stdin, "buffer", stdin)
    read = getattr(source, "read1", None) or source.read
    while chunk := read(_READ_SIZE):
        yield chunk


_READ_SIZE = 65536


def _run_stream(args: argparse.Namespace, stdin: IO[Any] | None, stdout: IO[str]) -> int:
    """`check --stream`: one line (or JSON object) per sentence as it is checked, then a summary."""
    if args.text is not None or args.text_file is not None:
        raise InputError("--stream reads the answer from stdin: give no --answer or --answer-file")
    if stdin is None:
        raise InputError("--stream reads the answer from stdin, but there is no stdin")
    facts: list[FactLike] = list(args.facts)
    for path in args.fact_files:
        facts.extend(parse_fact_file(read_text_file(path), path))
    from groundwire.features.stream_events import check_event  # protobuf: not for `--help`

    style = style_for(stdout)
    with open_client(args) as client:
        stream = client.check_grounding_stream(
            _stdin_chunks(stdin),
            facts,
            citation_threshold=args.citation_threshold,
            enable_claim_level_score=True if args.claim_scores else None,
            user_labels=parse_labels(args.label) or None,
        )
        with stream:
            for check in stream:
                if args.json:
                    record = check_event(check)[1]
                    print(json.dumps(record, ensure_ascii=False), file=stdout, flush=True)
                    continue
                print(_verdict_line(check, style), file=stdout, flush=True)
    summary = stream.summary
    if summary is not None and not args.json:
        print(
            f"\n{style.bold('Support score')} {score_text(summary.support_score)} · "
            f"{plural(summary.calls, 'check')} · {summary.billed_characters} characters billed",
            file=stdout,
        )
    return 0


def _verdict_line(check: SentenceCheck, style: Style) -> str:
    """✓ when every claim that needed a check is supported, ✗ otherwise, · when none needed one."""
    checked = [claim for claim in check.claims if claim.grounding_check_required is not False]
    if check.support_score is None or not checked:
        mark = style.dim(NOT_CHECKED)
    elif all(claim.supported for claim in checked):
        mark = style.green(SUPPORTED)
    else:
        mark = style.red(UNSUPPORTED)
    score = style.dim(f"  {score_text(check.support_score)}")
    return f"{mark} {' '.join(check.text.split())}{score}"
