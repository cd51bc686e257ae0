"""`groundwire serve`: the offline emulator as a standalone server, with optional faults."""

from __future__ import annotations

import argparse
import logging
import os
import sys
from typing import IO, TYPE_CHECKING, Any

from groundwire.cli.errors import CliError, InputError
from groundwire.contract.errors import StatusCode
from groundwire.emulator.limits import DEFAULT_JUDGE_CONCURRENCY, DEFAULT_JUDGE_TIMEOUT

if TYPE_CHECKING:
    from groundwire.emulator.control import ControlOptions
    from groundwire.emulator.recorder import RecordOptions
    from groundwire.emulator.replay import ReplayOptions

DESCRIPTION = """\
Serve the grounding APIs offline, over gRPC and REST, until Ctrl-C or SIGTERM. The second line
it prints is an `export GROUNDWIRE_EMULATOR_HOST=… GROUNDWIRE_EMULATOR_REST=…` for a shell;
clients also take --endpoint/--rest-endpoint. Faults (--fault-rate, --fault-codes, --latency)
show how your code copes with a failing API. Every client is held to the limits below, so a
stalled upload or an idle stream cannot stop the emulator answering the others. On loopback the
REST port also serves the admin API (/groundwire/v1/stubs and /groundwire/v1/requests) for
stubs and the request journal; see docs/testing.md. --judge puts a scorer of your own (an NLI
model, an LLM behind your endpoint) in the engine's place."""

LOG_LEVELS = ("debug", "info", "warning", "error")


def configure(parser: argparse.ArgumentParser) -> None:
    """Adds the options of `serve` to its parser."""
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (loopback)")
    _number(parser, "--grpc-port", int, "PORT", "gRPC port", 50051)
    _number(parser, "--http-port", int, "PORT", "REST port", 8080)
    _number(parser, "--workers", int, "N", "server worker processes or threads", 1)
    parser.add_argument(
        "--log-level",
        choices=LOG_LEVELS,
        default="warning",
        help="what to log to stderr; info: a line per request, never a body (default: warning)",
    )
    limits = parser.add_argument_group("limits")
    _number(limits, "--header-timeout", float, "S", "seconds for a request's head to arrive", 10.0)
    _number(limits, "--body-timeout", float, "S", "seconds for a request's body to arrive", 30.0)
    _number(limits, "--max-connections", int, "N", "open REST connections at once", 1024)
    _number(limits, "--max-streams", int, "N", "open gRPC streams at once", 256)
    _number(limits, "--stream-idle-timeout", float, "S", "seconds a gRPC stream may go quiet", 60.0)
    faults = parser.add_argument_group("faults")
    _number(faults, "--fault-rate", float, "0..1", "fraction of calls that fail", 0.0)
    faults.add_argument(
        "--fault-codes",
        default="UNAVAILABLE",
        metavar="CODE,...",
        help="status codes failing calls get, chosen at random (default: UNAVAILABLE)",
    )
    _number(faults, "--latency", int, "MS", "milliseconds added before every call", 0)
    faults.add_argument(
        "--fault-seed", type=int, metavar="N", help="makes the sequence of faults repeatable"
    )
    steering = parser.add_argument_group("stubs and journal")
    steering.add_argument(
        "--admin",
        action="store_true",
        help="serve the admin API (stubs, journal) on a non-loopback --host too; "
        "on loopback it is always served",
    )
    steering.add_argument(
        "--allowed-host",
        action="append",
        default=[],
        metavar="NAME",
        help="answer requests whose Host is NAME (repeatable), e.g. a compose service's "
        "name; IP addresses, localhost and the --host address are always answered",
    )
    steering.add_argument(
        "--journal",
        type=int,
        default=1000,
        metavar="N",
        help="requests the journal keeps in memory, bodies included (0: off; default: 1000)",
    )
    steering.add_argument(
        "--cors-origin",
        action="append",
        default=[],
        metavar="ORIGIN",
        help="let a web page from ORIGIN call the REST and admin paths (repeatable; * for any)",
    )
    steering.add_argument(
        "--stream-piece-chars",
        type=int,
        default=0,
        metavar="N",
        help="cut the engine's streamed answers into pieces of N characters (default: its own)",
    )
    _number(
        steering,
        "--stream-piece-delay-ms",
        int,
        "D",
        "wait D milliseconds between the pieces of the engine's streams",
        0,
    )

    cassettes = parser.add_argument_group("record and replay")
    cassettes.add_argument(
        "--record",
        metavar="FILE",
        help="forward every call to --upstream and write each exchange to FILE, a new "
        "cassette (loopback only: the recorder holds your Google access)",
    )
    cassettes.add_argument(
        "--upstream",
        metavar="google|HOST:PORT",
        help="where --record forwards: google (with Application Default Credentials), or "
        "the gRPC port of a server such as another emulator (no credentials)",
    )
    cassettes.add_argument(
        "--replay", metavar="FILE", help="answer from the cassette FILE, gRPC and REST alike"
    )
    cassettes.add_argument(
        "--replay-fallback",
        choices=("fail", "engine"),
        default="fail",
        help="a call the cassette does not hold: fail with FAILED_PRECONDITION naming the "
        "closest recorded one, or let the engine answer (default: fail)",
    )
    _number(
        cassettes,
        "--replay-speed",
        float,
        "X",
        "replay X times as fast as recorded; 0: at once",
        1.0,
    )

    judge = parser.add_argument_group("judge")
    judge.add_argument(
        "--judge",
        metavar="MODULE:CALLABLE",
        help="your judge(claim, passages) -> scores in [0, 1], imported by each worker; it "
        "replaces the engine's scores (see docs/judge.md)",
    )
    _number(
        judge,
        "--judge-timeout",
        float,
        "S",
        "seconds the judge has per request",
        DEFAULT_JUDGE_TIMEOUT,
    )
    _number(
        judge,
        "--judge-concurrency",
        int,
        "N",
        "judge calls in flight per worker",
        DEFAULT_JUDGE_CONCURRENCY,
    )


def _number(
    group: Any, flag: str, kind: type[float] | type[int], metavar: str, what: str, default: float
) -> None:
    """Adds a numeric option whose help ends with its default."""
    group.add_argument(
        flag, type=kind, default=default, metavar=metavar, help=f"{what} (default: {default:g})"
    )


def _control_options(args: argparse.Namespace) -> ControlOptions:
    """The stubs-and-journal options; the admin API is on for loopback or with --admin."""
    from groundwire.emulator.answering import Pacing
    from groundwire.emulator.control import ControlOptions

    for flag in ("journal", "stream_piece_chars", "stream_piece_delay_ms"):
        if getattr(args, flag) < 0:
            raise InputError(f"--{flag.replace('_', '-')} cannot be negative")
    return ControlOptions(
        admin=args.admin or is_loopback(args.host),
        journal_requests=args.journal,
        cors_origins=tuple(args.cors_origin),
        allowed_hosts=tuple(args.allowed_host),
        pacing=Pacing(args.stream_piece_chars, args.stream_piece_delay_ms / 1000),
        cassette=_cassette(args),
    )


def _cassette(args: argparse.Namespace) -> RecordOptions | ReplayOptions | None:
    """What --record or --replay asks for, checked before anything listens."""
    from groundwire.contract.errors import GroundwireError
    from groundwire.emulator.cassette import read_cassette
    from groundwire.emulator.recorder import LOOPBACK_ONLY, RecordOptions, Upstream
    from groundwire.emulator.replay import ReplayOptions

    if args.replay is None and (args.replay_fallback != "fail" or args.replay_speed != 1.0):
        raise InputError("--replay-fallback and --replay-speed go with --replay FILE")
    if (args.record is None) != (args.upstream is None):
        raise InputError("--record FILE and --upstream google|HOST:PORT go together")
    if args.record is not None and args.replay is not None:
        raise InputError("--record and --replay exclude each other: record first, then replay")
    try:
        if args.replay is not None:
            options = ReplayOptions(args.replay, args.replay_fallback, args.replay_speed)
            read_cassette(options.path)
            return options
        if args.record is None:
            return None
        if not is_loopback(args.host):
            raise InputError(f"--record refuses --host {args.host}: {LOOPBACK_ONLY}")
        if args.workers != 1:
            raise InputError("--record takes one worker: one process writes the cassette")
        if os.path.exists(args.record):
            raise InputError(f"--record {args.record}: exists; remove it or record to another file")
        upstream = Upstream.parse(args.upstream)
        upstream.transport("discoveryengine", "global").close()
        return RecordOptions(args.record, upstream)
    except GroundwireError as error:
        raise InputError(
            f"{'--replay' if args.replay else '--upstream'}: {error.message}"
        ) from None
    except ValueError as error:
        raise InputError(f"--replay-speed: {error}") from None


def admin_warning(host: str, admin: bool) -> str | None:
    """The start-up warning when the admin API is open beyond loopback, else None.

    >>> admin_warning("127.0.0.1", True) is None, "--allowed-host" in admin_warning("0.0.0.0", True)
    (True, True)
    """
    if not admin or is_loopback(host):
        return None
    return (
        f"groundwire serve: warning: the admin API is open to the network on {host}: whoever "
        "reaches the REST port can set stubs and read the journal, request bodies included. "
        "It answers only IP addresses, localhost and the names given with --allowed-host NAME "
        "in the Host header; reach it by name (e.g. a compose service) with --allowed-host."
    )


def is_loopback(host: str) -> bool:
    """Whether `host` is a loopback address (or `localhost`), where the admin API is on.

    >>> is_loopback("127.0.0.1"), is_loopback("::1"), is_loopback("0.0.0.0")
    (True, True, False)
    """
    import ipaddress

    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def parse_codes(text: str) -> tuple[StatusCode, ...]:
    """Status codes from a comma-separated list of names (or numbers).

    >>> [code.name for code in parse_codes("unavailable, 8")]
    ['UNAVAILABLE', 'RESOURCE_EXHAUSTED']
    """
    codes = []
    for item in (part.strip() for part in text.split(",")):
        if not item:
            continue
        if item.isdigit() and 0 < int(item) <= 16:
            codes.append(StatusCode(int(item)))
        elif item.upper() in StatusCode.__members__ and item.upper() != "OK":
            codes.append(StatusCode[item.upper()])
        else:
            names = ", ".join(c.name for c in StatusCode if c != StatusCode.OK)
            raise InputError(f"--fault-codes: {item!r} is not a failure status code ({names})")
    return tuple(codes)


def run(args: argparse.Namespace, stdin: IO[Any] | None, stdout: IO[str]) -> int:
    """Runs `serve` until the server is told to stop."""
    from groundwire.emulator.faults import FaultPolicy

    for name in ("grpc_port", "http_port"):
        port = getattr(args, name)
        if not 0 <= port <= 65535:
            raise InputError(f"--{name.replace('_', '-')} must be a port number, got {port}")
    if args.grpc_port == args.http_port != 0:
        raise InputError(
            f"--grpc-port and --http-port must differ (both are {args.grpc_port}): gRPC and "
            "REST each listen on a port of their own"
        )
    if args.workers < 1:
        raise InputError(f"--workers must be at least 1, got {args.workers}")
    codes = parse_codes(args.fault_codes)
    faults = None
    if args.fault_rate or args.latency:
        faults = FaultPolicy(
            rate=args.fault_rate, codes=codes, latency_ms=args.latency, seed=args.fault_seed
        )
    from groundwire.contract.errors import ConfigurationError
    from groundwire.emulator.judges import Judge
    from groundwire.emulator.limits import Limits
    from groundwire.emulator.server import ServeError, serve

    try:
        limits = Limits(
            header_timeout=args.header_timeout,
            body_timeout=args.body_timeout,
            max_connections=args.max_connections,
            max_streams=args.max_streams,
            max_rpcs=max(Limits.max_rpcs, 4 * args.max_streams),
            stream_idle_timeout=args.stream_idle_timeout,
        )
    except ValueError as error:
        raise InputError(f"serve: {error}") from None
    control = _control_options(args)
    warning = admin_warning(args.host, control.admin)
    if warning is not None:
        print(warning, file=sys.stderr, flush=True)
    judge = None
    if args.judge is not None:
        try:
            judge = Judge(
                args.judge, timeout=args.judge_timeout, concurrency=args.judge_concurrency
            )
        except ConfigurationError as error:
            raise InputError(f"serve: {error.message}") from None
    try:
        serve(
            host=args.host,
            grpc_port=args.grpc_port,
            http_port=args.http_port,
            workers=args.workers,
            faults=faults,
            limits=limits,
            log_level=getattr(logging, args.log_level.upper()),
            control=control,
            judge=judge,
        )
    except ConfigurationError as error:  # only the judge is configured in `serve`
        raise InputError(f"--judge: {error.message}") from None
    except ServeError as error:
        raise CliError(str(error)) from None
    return 0
