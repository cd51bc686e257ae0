"""A BigQuery remote-function endpoint under uvicorn on loopback, pointed at the test's emulator."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import httpx
import pytest

from groundwire.emulator import Emulator
from groundwire.integrations.bigquery import RemoteFunctionApp, create_app
from tests.support.asgi import served

uvicorn = pytest.importorskip("uvicorn")

WAIT = 60.0
"""Seconds a test waits for an answer: only catches a hang."""


@contextmanager
def serving(app: RemoteFunctionApp) -> Iterator[str]:
    """`app` served by uvicorn (lifespan on) on a free loopback port; yields its URL."""
    with served(app) as url:
        yield url + "/"


Endpoint = Callable[..., str]


@pytest.fixture
def endpoint(grounding_test_emulator: Emulator) -> Iterator[Endpoint]:
    """Starts endpoints on the test's emulator: `endpoint(time_budget=...)` gives a URL."""
    with_exits: list[Any] = []

    def start(**options: Any) -> str:
        app = create_app(
            project="local-project",
            endpoint=grounding_test_emulator.grpc_address,
            rest_endpoint=grounding_test_emulator.http_url,
            **options,
        )
        running = serving(app)
        with_exits.append(running)
        return running.__enter__()

    yield start
    for running in reversed(with_exits):
        running.__exit__(None, None, None)


def post(url: str, body: Any, *, raw: bytes | None = None) -> httpx.Response:
    """POSTs a BigQuery-format request (or `raw` bytes) to the endpoint."""
    with httpx.Client(timeout=WAIT) as http:
        if raw is not None:
            return http.post(url, content=raw, headers={"content-type": "application/json"})
        return http.post(url, json=body)


def request(calls: list[Any], context: dict[str, str] | None = None) -> dict[str, Any]:
    """A request as BigQuery sends it."""
    body: dict[str, Any] = {
        "requestId": "124ab1c",
        "caller": "//bigquery.googleapis.com/projects/p/jobs/j",
        "sessionUser": "tester@example.com",
        "calls": calls,
    }
    if context is not None:
        body["userDefinedContext"] = context
    return body
