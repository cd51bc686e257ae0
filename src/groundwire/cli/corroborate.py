"""`groundwire corroborate`: how well facts corroborate content (Vertex AI)."""

from __future__ import annotations

import argparse
import json
from typing import IO, Any

from groundwire.cli.connection import open_client
from groundwire.cli.io import CONTENT_KEYS, add_input_options, gather_input, input_flags
from groundwire.cli.render import render_corroboration, style_for
from groundwire.features.records import corroboration_record

DESCRIPTION = """\
Corroborate content with facts. The content and facts come from flags and files, or from a
JSON object on stdin: {"content": "...", "facts": ["...", {"text": "...", "attributes":
{"title": "...", "uri": "..."}}], "citation_threshold": 0.6}."""


def configure(parser: argparse.ArgumentParser) -> None:
    """Adds the options of `corroborate` to its parser."""
    add_input_options(parser, "content")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")


def run(args: argparse.Namespace, stdin: IO[Any] | None, stdout: IO[str]) -> int:
    """Runs `corroborate`: prints the corroborated claims (or JSON); returns the exit code."""
    grounding = gather_input(input_flags(args), stdin, CONTENT_KEYS, "content")
    with open_client(args) as client:
        result = client.corroborate_content(
            grounding.text, grounding.facts, citation_threshold=grounding.citation_threshold
        )
    if args.json:
        print(json.dumps(corroboration_record(result), ensure_ascii=False, indent=2), file=stdout)
    else:
        print(render_corroboration(result, style_for(stdout)), file=stdout)
    return 0
