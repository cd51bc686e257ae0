"""`groundwire serve`: the offline emulator as a standalone server, with optional faults."""

from __future__ import annotations

import argparse
from typing import IO, Any

from groundwire.cli.errors import InputError
from groundwire.core.errors import StatusCode

DESCRIPTION = """\
Serve the grounding APIs offline, over gRPC and REST, until Ctrl-C or SIGTERM. Point clients
at it with --endpoint/--rest-endpoint or $GROUNDWIRE_EMULATOR_HOST/$GROUNDWIRE_EMULATOR_REST.
Faults (--fault-rate, --fault-codes, --latency) show how your code copes with a failing API."""


def configure(parser: argparse.ArgumentParser) -> None:
    """Adds the options of `serve` to its parser."""
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (loopback)")
    parser.add_argument(
        "--grpc-port", type=int, default=50051, metavar="PORT", help="gRPC port (default: 50051)"
    )
    parser.add_argument(
        "--http-port", type=int, default=8080, metavar="PORT", help="REST port (default: 8080)"
    )
    parser.add_argument(
        "--workers",
        type=int,
        default=1,
        metavar="N",
        help="server worker processes or threads (default: 1)",
    )
    faults = parser.add_argument_group("faults")
    faults.add_argument(
        "--fault-rate",
        type=float,
        default=0.0,
        metavar="0..1",
        help="fraction of calls that fail (default: 0)",
    )
    faults.add_argument(
        "--fault-codes",
        default="UNAVAILABLE",
        metavar="CODE,...",
        help="status codes failing calls get, chosen at random (default: UNAVAILABLE)",
    )
    faults.add_argument(
        "--latency",
        type=int,
        default=0,
        metavar="MS",
        help="milliseconds added before every call (default: 0)",
    )
    faults.add_argument(
        "--fault-seed", type=int, metavar="N", help="makes the sequence of faults repeatable"
    )


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
    if args.workers < 1:
        raise InputError(f"--workers must be at least 1, got {args.workers}")
    codes = parse_codes(args.fault_codes)
    faults = None
    if args.fault_rate or args.latency:
        faults = FaultPolicy(
            rate=args.fault_rate, codes=codes, latency_ms=args.latency, seed=args.fault_seed
        )
    from groundwire.emulator.server import serve

    serve(
        host=args.host,
        grpc_port=args.grpc_port,
        http_port=args.http_port,
        workers=args.workers,
        faults=faults,
    )
    return 0
