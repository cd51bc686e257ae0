"""The `groundwire` command line: argument parsing, dispatch, and one-line errors with exit codes.

Each command lives in a module of its own (`check`, `corroborate`, `generate`, `batch`,
`serve`) with a `configure(parser)` and a `run(args, stdin, stdout) -> int`; this module wires
them up and turns every failure into one line on stderr.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from types import ModuleType
from typing import IO, TYPE_CHECKING, Any, NoReturn

from groundwire.cli.errors import EXIT_FAILURE, EXIT_INTERRUPTED, EXIT_USAGE, describe
from groundwire.contract.version import VERSION

if TYPE_CHECKING:
    from groundwire.cli.connection import ConnectsTo

DEBUG_ENV = "GROUNDWIRE_DEBUG"

RunFunction = Callable[[argparse.Namespace, "IO[Any] | None", "IO[str]"], int]

_EPILOG = """\
examples:
  groundwire check --local --answer "Paris is in France." --fact "Paris is France's capital."
  echo '{"answer": "...", "facts": ["..."]}' | groundwire check --json
  groundwire generate "Who wrote Faust?" --fact "Goethe wrote Faust." --stream
  groundwire batch questions.jsonl -o results.jsonl --rate 10 --concurrency 8
  groundwire serve --fault-rate 0.1 --fault-codes UNAVAILABLE,RESOURCE_EXHAUSTED

Connection: --project (default $GOOGLE_CLOUD_PROJECT) and Application Default Credentials;
--local runs an offline emulator for the command. Exit status: 0 ok, 1 service failure,
2 bad usage or input, 130 interrupted. NO_COLOR disables colors."""


class _Parser(argparse.ArgumentParser):
    """Reports usage errors as one line (not the usage block) and exits with status 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_USAGE, f"groundwire: error: {message} (see '{self.prog} --help')\n")


def _commands() -> list[tuple[str, str, ModuleType, ConnectsTo | None]]:
    """(name, summary, module, the API its connection options are for) of each command."""
    from groundwire.cli import batch, bigquery_endpoint, check, corroborate, generate, serve

    return [
        ("check", "check how well facts support an answer, claim by claim", check, "discovery"),
        ("corroborate", "score how well facts corroborate content", corroborate, "vertex"),
        ("generate", "generate a grounded answer", generate, "discovery"),
        ("batch", "check many answers from a JSONL file, resumably", batch, "either"),
        ("serve", "run the offline emulator (gRPC and REST)", serve, None),
        (
            "bigquery-endpoint",
            "serve a BigQuery remote function that checks rows",
            bigquery_endpoint,
            "either",
        ),
    ]


def build_parser() -> argparse.ArgumentParser:
    """The parser of the whole command line."""
    from groundwire.cli.connection import add_connection_options

    parser = _Parser(
        prog="groundwire",
        epilog=_EPILOG,
        description="A client and offline emulator for Google's grounding APIs.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"groundwire {VERSION}")
    subcommands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name, summary, module, connects_to in _commands():
        command = subcommands.add_parser(
            name,
            help=summary,
            description=module.DESCRIPTION,
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        module.configure(command)
        if connects_to is not None:
            add_connection_options(command, connects_to)
        command.set_defaults(run=module.run)
    return parser


def _tolerate_any_text(stream: IO[str]) -> None:
    """Keeps a stream whose encoding cannot show ✓ or 東京 from failing on them."""
    encoding = (getattr(stream, "encoding", None) or "").lower().replace("-", "")
    reconfigure = getattr(stream, "reconfigure", None)
    if encoding not in ("utf8", "utf8sig") and callable(reconfigure):
        reconfigure(errors="backslashreplace")


def _silence_stdout() -> None:
    """After a broken pipe, points stdout at /dev/null so the exit flush cannot fail."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass
    finally:
        os.close(devnull)


def main(argv: Sequence[str] | None = None) -> int:
    """Runs the command line with `argv` (default: `sys.argv[1:]`); returns the exit status.

    >>> main(["--version"])  # doctest: +SKIP
    groundwire 0.1.0
    0
    """
    for stream in (sys.stdout, sys.stderr):
        _tolerate_any_text(stream)
    try:
        args = build_parser().parse_args(None if argv is None else list(argv))
    except SystemExit as exit_:
        return exit_.code if isinstance(exit_.code, int) else EXIT_USAGE
    run: RunFunction = args.run
    try:
        return run(args, sys.stdin, sys.stdout)
    except KeyboardInterrupt as interrupt:
        signum = getattr(interrupt, "signum", None)  # set when SIGTERM stopped a batch
        return EXIT_INTERRUPTED if signum is None else 128 + int(signum)
    except BrokenPipeError:
        _silence_stdout()
        return EXIT_FAILURE
    except Exception as error:
        described = describe(error)
        if described is None:
            if os.environ.get(DEBUG_ENV):
                raise
            described = (
                f"internal error: {type(error).__name__}: {error} (set {DEBUG_ENV}=1 "
                "for the traceback, and please report it)",
                EXIT_FAILURE,
            )
        message, status = described
        print(f"groundwire: error: {message}", file=sys.stderr)
        return status
