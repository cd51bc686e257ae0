"""`groundwire check`: how well facts support an answer, claim by claim."""

from __future__ import annotations

import argparse
import json
from typing import IO, Any

from groundwire.cli.connection import open_client
from groundwire.cli.io import (
    ANSWER_KEYS,
    add_input_options,
    gather_input,
    input_flags,
    parse_labels,
)
from groundwire.cli.render import render_check, style_for, width_for
from groundwire.core.records import check_record

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
    parser.add_argument("--json", action="store_true", help="print the result as JSON")


def run(args: argparse.Namespace, stdin: IO[Any] | None, stdout: IO[str]) -> int:
    """Runs `check`: prints the marked answer (or JSON) and returns the exit code."""
    grounding = gather_input(input_flags(args), stdin, ANSWER_KEYS, "answer")
    labels = parse_labels(args.label)
    with open_client(args) as client:
        result = client.check_grounding(
            grounding.text,
            grounding.facts,
            citation_threshold=grounding.citation_threshold,
            enable_claim_level_score=True if args.claim_scores else None,
            user_labels=labels or None,
        )
    if args.json:
        print(json.dumps(check_record(result), ensure_ascii=False, indent=2), file=stdout)
    else:
        print(render_check(result, style_for(stdout), width_for(stdout)), file=stdout)
    return 0
