"""The connection options every client command shares, and the client they open."""

from __future__ import annotations

import argparse
import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import TYPE_CHECKING, Literal, cast

from groundwire.cli.errors import InputError

if TYPE_CHECKING:
    from groundwire.client.sync import GroundingClient
    from groundwire.contract.calls import TransportName

LOCAL_PROJECT = "local-project"
PROJECT_ENV = "GOOGLE_CLOUD_PROJECT"
CONNECT_ATTEMPTS = 3
"""Attempts a command makes to reach an endpoint that takes no connection, before it says so."""


def positive_float(text: str) -> float:
    """An argparse type: a number greater than zero."""
    value = float(text)
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"expected a positive number, got {text!r}")
    return value


ConnectsTo = Literal["discovery", "vertex", "either"]
"""The API a command calls: Discovery Engine (check, generate), Vertex AI (corroborate), or
either as its options say (batch)."""

_API_VERSION_HELP: Mapping[str, str] = {
    "discovery": "Discovery Engine API version (default: v1)",
    "vertex": "Vertex AI API version: v1, the one groundwire speaks for corroborate",
    "either": "Discovery Engine API version for check (default: v1); corroborate takes v1 only",
}


def add_connection_options(parser: argparse.ArgumentParser, connects_to: ConnectsTo) -> None:
    """Adds the connection options every client command shares, for the API it calls."""
    group = parser.add_argument_group("connection")
    group.add_argument(
        "--project",
        help=f"Google Cloud project (default: ${PROJECT_ENV}; {LOCAL_PROJECT!r} with --local)",
    )
    group.add_argument(
        "--location",
        default="global",
        help="global (default), us or eu; a Vertex AI region for corroborate",
    )
    group.add_argument(
        "--api-version",
        default="v1",
        choices=("v1",) if connects_to == "vertex" else ("v1", "v1beta", "v1alpha"),
        help=_API_VERSION_HELP[connects_to],
    )
    group.add_argument(
        "--transport",
        default="auto",
        choices=("auto", "grpc", "rest"),
        help="auto (gRPC, REST when gRPC cannot connect), grpc or rest",
    )
    group.add_argument(
        "--endpoint",
        metavar="HOST:PORT",
        help="gRPC endpoint instead of Google's (e.g. an emulator on 127.0.0.1:50051); "
        "Application Default Credentials go only to Google's hosts",
    )
    group.add_argument(
        "--rest-endpoint",
        metavar="URL",
        help="REST base URL instead of Google's (e.g. http://127.0.0.1:8080)",
    )
    group.add_argument(
        "--local",
        action="store_true",
        help="start the embedded emulator for this command and use it",
    )
    group.add_argument(
        "--timeout",
        type=positive_float,
        default=60.0,
        metavar="SECONDS",
        help="overall deadline of each call, retries included (default: 60)",
    )


def project_for(args: argparse.Namespace, environ: Mapping[str, str]) -> str:
    """The project to call: --project, else $GOOGLE_CLOUD_PROJECT, else a placeholder.

    The placeholder is only given for an emulator, which accepts any project.
    """
    project = cast("str | None", args.project) or environ.get(PROJECT_ENV)
    if project:
        return project
    if args.local or _points_at_an_emulator(args, environ):
        return LOCAL_PROJECT
    raise InputError(
        f"no project: pass --project or set ${PROJECT_ENV} "
        "(or use --local for the offline emulator)"
    )


def _client(
    args: argparse.Namespace, project: str, endpoint: str | None, rest_endpoint: str | None
) -> GroundingClient:
    from groundwire.client.sync import GroundingClient
    from groundwire.contract.retry import RetryPolicy

    return GroundingClient(
        project,
        cast(str, args.location),
        transport=cast("TransportName", args.transport),
        api_version=cast(str, args.api_version),
        endpoint=endpoint,
        rest_endpoint=rest_endpoint,
        timeout=cast(float, args.timeout),
        # A command is interactive: a port nobody listens on is reported at once, with what
        # to check, not after the whole timeout. A reachable server's UNAVAILABLE is retried.
        retry=RetryPolicy(connect_attempts=CONNECT_ATTEMPTS),
    )


def _points_at_an_emulator(args: argparse.Namespace, environ: Mapping[str, str]) -> bool:
    """Whether --endpoint, --rest-endpoint or the emulator variables name an emulator.

    The client's own rules decide (`describes_emulator`), so the CLI cannot disagree.
    """
    from groundwire.client.endpoints import describes_emulator

    return describes_emulator(args.endpoint, args.rest_endpoint, environ)


@contextmanager
def open_client(
    args: argparse.Namespace, environ: Mapping[str, str] = os.environ
) -> Iterator[GroundingClient]:
    """The client the connection options describe; with --local, an emulator runs around it.

    A call in the block that could make no connection at all ends the command with the
    one-line `cannot reach ...` error, which says what to check.
    """
    project = project_for(args, environ)
    if not args.local:
        with (
            _unreachable_explained(args),
            _client(args, project, args.endpoint, args.rest_endpoint) as client,
        ):
            yield client
        return
    if args.endpoint or args.rest_endpoint:
        raise InputError("--local starts its own emulator; drop --endpoint and --rest-endpoint")
    from groundwire.emulator import emulator

    with (
        emulator() as running,
        _client(args, project, running.grpc_address, running.http_url) as client,
    ):
        yield client


@contextmanager
def _unreachable_explained(args: argparse.Namespace) -> Iterator[None]:
    from groundwire.transports.base import ConnectionFailure

    try:
        yield
    except ConnectionFailure as failure:
        from groundwire.client.endpoints import endpoint_of
        from groundwire.features.pacing import cannot_reach

        where = endpoint_of(args.endpoint, args.rest_endpoint, cast(str, args.transport))
        raise cannot_reach(where, failure.message) from None
