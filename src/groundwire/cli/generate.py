"""`groundwire generate`: an answer generated from facts or Google Search, with its grounding."""

from __future__ import annotations

import argparse
import json
from typing import IO, TYPE_CHECKING, Any

from groundwire.cli.connection import open_client
from groundwire.cli.errors import InputError
from groundwire.cli.io import add_fact_options, decode, parse_fact_file, read_bytes, read_text_file
from groundwire.cli.render import render_grounding, style_for, width_for
from groundwire.features.records import generate_record

if TYPE_CHECKING:
    from groundwire.contract.requests import FactLike

DESCRIPTION = """\
Generate an answer grounded in the given facts (--fact, --fact-file) and/or Google Search
(--google-search), then show which sources support which claims. PROMPT - reads the prompt
from stdin."""


def configure(parser: argparse.ArgumentParser) -> None:
    """Adds the options of `generate` to its parser."""
    parser.add_argument("prompt", metavar="PROMPT", help="the question (- reads stdin)")
    add_fact_options(parser, "a fact to ground the answer in")
    parser.add_argument("--system", metavar="TEXT", help="a system instruction")
    parser.add_argument("--model", metavar="MODEL_ID", help="the model (service default)")
    parser.add_argument("--temperature", type=float, metavar="T", help="sampling temperature")
    parser.add_argument(
        "--google-search", action="store_true", help="ground in Google Search as well"
    )
    parser.add_argument("--stream", action="store_true", help="print the answer as it is generated")
    parser.add_argument(
        "--json", action="store_true", help="print JSON (with --stream: one JSON object per piece)"
    )


def _options(args: argparse.Namespace) -> dict[str, Any]:
    facts: list[FactLike] = list(args.facts)
    for path in args.fact_files:
        facts.extend(parse_fact_file(read_text_file(path), path))
    options: dict[str, Any] = {}
    if facts:
        options["facts"] = facts
    if args.google_search:
        options["google_search"] = True
    for name, value in (
        ("system_instruction", args.system),
        ("model_id", args.model),
        ("temperature", args.temperature),
    ):
        if value is not None:
            options[name] = value
    return options


def _prompt(args: argparse.Namespace, stdin: IO[Any] | None) -> str:
    prompt: str = args.prompt
    if prompt == "-":
        if stdin is None:
            raise InputError("PROMPT is -, but there is no stdin to read it from")
        prompt = decode(read_bytes(stdin), "stdin").strip()
    return prompt  # an empty one is refused by the client, as every empty text is


def run(args: argparse.Namespace, stdin: IO[Any] | None, stdout: IO[str]) -> int:
    """Runs `generate`: prints the answer (streaming it with --stream), then its grounding."""
    from groundwire.features.stream_merge import StreamMerge  # protobuf: not for `--help`

    prompt = _prompt(args, stdin)
    options = _options(args)
    style = style_for(stdout)
    with open_client(args) as client:
        if not args.stream:
            result = client.generate_grounded_content(prompt, **options)
            if args.json:
                print(
                    json.dumps(generate_record(result), ensure_ascii=False, indent=2), file=stdout
                )
            else:
                print(result.text, file=stdout)
                print("\n" + render_grounding(result, style, width_for(stdout)), file=stdout)
            return 0
        merge = StreamMerge()
        for piece in client.stream_generate_grounded_content(prompt, **options):
            merge.add(piece)
            if args.json:
                record = generate_record(piece, merge.text)
                stdout.write(json.dumps(record, ensure_ascii=False) + "\n")
            else:
                stdout.write(piece.text)
            stdout.flush()
    if not args.json:
        print("\n\n" + render_grounding(merge.result(), style, width_for(stdout)), file=stdout)
    return 0
