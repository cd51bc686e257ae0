"""`groundwire bigquery-endpoint`: serves the BigQuery remote function with uvicorn."""

from __future__ import annotations

import argparse
import logging
import os
from collections.abc import Mapping
from typing import IO, Any, cast

from groundwire.cli.connection import positive_float, project_for
from groundwire.cli.errors import CliError, InputError
from groundwire.contract.addresses import is_loopback

DESCRIPTION = """\
Serve a BigQuery remote function that checks grounding (or corroborates, as the function's
user_defined_context says) until Ctrl-C or SIGTERM. It listens on loopback unless --public
(for Cloud Run, where only BigQuery's connection may invoke it); the port is --port, else
$PORT, else 8080. It never logs rows. See docs/bigquery.md for the CREATE FUNCTION statement."""

PORT_ENV = "PORT"
DEFAULT_PORT = 8080
LOOPBACK = "127.0.0.1"
PUBLIC = "0.0.0.0"  # only with --public, for a container's network
DEFAULT_BODY_TIMEOUT = 30.0
DEFAULT_MAX_CONNECTIONS = 100  # above Cloud Run's default of 80 requests per instance


def configure(parser: argparse.ArgumentParser) -> None:
    """Adds the options of `bigquery-endpoint` to its parser."""
    parser.add_argument(
        "--host",
        help=f"address to listen on: a loopback one unless --public (default: {LOOPBACK}; "
        f"{PUBLIC} with --public)",
    )
    parser.add_argument(
        "--port", type=int, metavar="PORT", help=f"port (default: ${PORT_ENV}, else {DEFAULT_PORT})"
    )
    parser.add_argument(
        "--public",
        action="store_true",
        help=f"listen on every interface ({PUBLIC}), as Cloud Run needs",
    )
    parser.add_argument(
        "--time-budget",
        type=positive_float,
        default=120.0,
        metavar="SECONDS",
        help="seconds a call's rows may take, retries included, before it answers a status "
        "BigQuery retries (default: 120)",
    )
    parser.add_argument(
        "--concurrency",
        type=int,
        default=16,
        metavar="N",
        help="rows in flight at once per call (default: 16)",
    )
    parser.add_argument(
        "--body-timeout",
        type=positive_float,
        default=DEFAULT_BODY_TIMEOUT,
        metavar="SECONDS",
        help="seconds a request's body may take to arrive; slower: 408 and the connection is "
        f"closed (default: {DEFAULT_BODY_TIMEOUT:g})",
    )
    parser.add_argument(
        "--max-connections",
        type=int,
        default=DEFAULT_MAX_CONNECTIONS,
        metavar="N",
        help="connections open at once; a request on one more gets 503, which BigQuery "
        f"resends (default: {DEFAULT_MAX_CONNECTIONS})",
    )
    parser.add_argument(
        "--log-level",
        choices=("debug", "info", "warning", "error"),
        default="info",
        help="uvicorn's log level; info logs a line per call, never a row (default: info)",
    )


def listen_address(args: argparse.Namespace, environ: Mapping[str, str]) -> tuple[str, int]:
    """The (host, port) to listen on: loopback unless --public; --port, else $PORT, else 8080.

    --host must name a loopback address unless --public is given.

    Example:
        >>> args = argparse.Namespace(host=None, port=None, public=True)
        >>> listen_address(args, {"PORT": "9000"})
        ('0.0.0.0', 9000)
        >>> listen_address(argparse.Namespace(host="::1", port=8081, public=False), {})
        ('::1', 8081)
    """
    host = cast("str | None", args.host) or (PUBLIC if args.public else LOOPBACK)
    if not args.public and not is_loopback(host):
        raise InputError(
            f"--host {host} is not a loopback address and the endpoint holds credentials; "
            "add --public to listen beyond this machine"
        )
    port = cast("int | None", args.port)
    if port is None:
        text = environ.get(PORT_ENV, str(DEFAULT_PORT))
        if not text.isdigit():
            raise InputError(f"${PORT_ENV} must be a port number, not {text!r}")
        port = int(text)
    if not 0 <= port <= 65535:
        raise InputError(f"the port must be 0-65535, not {port}")
    return host, port


def run(args: argparse.Namespace, stdin: IO[Any] | None, stdout: IO[str]) -> int:
    """Serves the endpoint until interrupted; returns the exit status."""
    try:
        import uvicorn
    except ImportError:
        raise CliError(
            "bigquery-endpoint needs uvicorn: pip install 'groundwire[bigquery]'"
        ) from None
    if args.concurrency < 1:
        raise InputError(f"--concurrency must be at least 1, not {args.concurrency}")
    if args.max_connections < 1:
        raise InputError(f"--max-connections must be at least 1, not {args.max_connections}")
    host, port = listen_address(args, os.environ)
    project = project_for(args, os.environ)
    if args.local and (args.endpoint or args.rest_endpoint):
        raise InputError("--local starts its own emulator; drop --endpoint and --rest-endpoint")
    from groundwire.integrations.bigquery import create_app

    _log_calls(cast(str, args.log_level))

    def serve(endpoint: str | None, rest_endpoint: str | None) -> None:
        app = create_app(
            project=project,
            location=cast(str, args.location),
            api_version=cast(str, args.api_version),
            transport=args.transport,
            endpoint=endpoint,
            rest_endpoint=rest_endpoint,
            timeout=cast(float, args.timeout),
            time_budget=cast(float, args.time_budget),
            concurrency=cast(int, args.concurrency),
            body_timeout=cast(float, args.body_timeout),
        )
        where = f"http://{host}:{port}/" if port else f"a free port of {host} (uvicorn names it)"
        print(f"serving the BigQuery remote function on {where}", file=stdout)
        stdout.flush()
        uvicorn.run(
            app,
            host=host,
            port=port,
            log_level=args.log_level,
            access_log=False,
            # uvicorn counts the connection asking among those open: N + 1 serves N at once.
            limit_concurrency=cast(int, args.max_connections) + 1,
        )

    if not args.local:
        serve(args.endpoint, args.rest_endpoint)
        return 0
    from groundwire.emulator import emulator

    with emulator() as running:
        serve(running.grpc_address, running.http_url)
    return 0


def _log_calls(level: str) -> None:
    """Sends the endpoint's per-call lines (counts and statuses, never rows) to stderr."""
    handler = logging.StreamHandler()
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    logger = logging.getLogger("groundwire.bigquery")
    logger.addHandler(handler)
    logger.setLevel(level.upper())
