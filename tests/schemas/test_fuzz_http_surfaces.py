"""Every HTTP surface we own, fuzzed from its OpenAPI document against a live server on loopback.

Schemathesis makes requests that fit each operation's schema and requests that do not. Whatever
it sends, the server answers no 5xx, answers only statuses, content types and bodies its
document describes, and still serves a plain call afterwards. The BigQuery endpoint's rows also
get any JSON at all, which no schema would send. The default suite runs a bounded,
reproducible number of examples; `slow` runs many more, each run new ones.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from hypothesis.errors import Unsatisfiable

from groundwire.emulator import Emulator, emulator

schemathesis = pytest.importorskip("schemathesis")
pytest.importorskip("uvicorn")

from schemathesis.checks import (  # noqa: E402 (only once schemathesis is known to be there)
    content_type_conformance,
    not_a_server_error,
    response_schema_conformance,
    status_code_conformance,
)
from schemathesis.generation import GenerationMode  # noqa: E402

from tests.support.asgi import served  # noqa: E402

pytestmark = pytest.mark.timeout(600)

DOCS = Path(__file__).parents[2] / "docs"
CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
]
EXAMPLES = 10
"""Examples per operation and mode in the default suite (each surface well under 30 s)."""
SLOW_EXAMPLES = 100
FACT = "Paris is the capital of France."


def fuzz(document: str, base_url: str, examples: int, *, reproducible: bool) -> None:
    """Sends `examples` generated requests per operation and mode of `document` to `base_url`."""
    schema = schemathesis.openapi.from_path(DOCS / document)
    host = httpx.URL(base_url).netloc.decode()  # 127.0.0.1:PORT, a Host every server allows
    operations = [result.ok() for result in schema.get_all_operations()]
    assert operations
    for operation in operations:
        modes = [GenerationMode.POSITIVE]
        if operation.body or operation.query or operation.path_parameters:
            modes.append(GenerationMode.NEGATIVE)  # there is something to get wrong
        for mode in modes:
            strategy = operation.as_strategy(generation_mode=mode)

            @settings(
                max_examples=examples,
                derandomize=reproducible,
                database=None,
                deadline=None,
                phases=[Phase.generate, Phase.target, Phase.shrink],
                suppress_health_check=list(HealthCheck),
            )
            @given(case=strategy)
            def one(case: Any) -> None:
                response = case.call(base_url=base_url, headers={"Host": host}, timeout=60)
                case.validate_response(response, checks=CHECKS)

            try:
                one()
            except Unsatisfiable:
                # No request can break this schema (a path's free string, say): nothing to send.
                assert mode is GenerationMode.NEGATIVE, operation.label


@pytest.fixture(scope="module")
def admin_emulator() -> Iterator[Emulator]:
    """An in-process emulator, its admin API on (as every in-process emulator has it)."""
    with emulator() as running:
        yield running


def assert_admin_still_serves(emu: Emulator) -> None:
    """The admin API lists stubs; cleared, the emulator checks a plain call."""
    with httpx.Client(timeout=60) as http:
        assert http.get(emu.http_url + "/groundwire/v1/stubs").status_code == 200
    emu.reset()
    with emu.client() as client:
        assert client.check_grounding("Paris is in France.", facts=[FACT]).claims


@pytest.fixture(scope="module")
def bigquery_endpoint() -> Iterator[str]:
    """The BigQuery endpoint under uvicorn on loopback, on an emulator of its own."""
    from groundwire.integrations.bigquery import create_app

    with emulator() as running:
        app = create_app(
            project="local-project",
            endpoint=running.grpc_address,
            rest_endpoint=running.http_url,
            time_budget=30.0,
        )
        with served(app) as url:
            yield url


def assert_endpoint_still_serves(url: str) -> None:
    """A plain BigQuery call gets its reply."""
    with httpx.Client(timeout=60) as http:
        response = http.post(url + "/", json={"calls": [["Paris is in France.", [FACT]]]})
    assert response.status_code == 200, response.text
    assert response.json()["replies"][0]["support_score"] == 1.0


JSON_KEYS = st.sampled_from(["text", "fact_text", "attributes", "author"]) | st.text(max_size=5)
JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(JSON_KEYS, inner, max_size=3),
    max_leaves=12,
)
FACT_OBJECTS = st.fixed_dictionaries(
    {"text": st.text(max_size=20)}, optional={"attributes": JSON_VALUES}
)
FACTS = st.lists(
    st.one_of(st.text(max_size=20), FACT_OBJECTS, FACT_OBJECTS, JSON_VALUES), max_size=3
)
"""Facts as BigQuery's rows hold them, and often not: objects are drawn twice as often."""
ROWS = st.lists(
    st.one_of(
        st.tuples(st.text(min_size=1, max_size=30), FACTS | FACTS.map(json.dumps)).map(list),
        st.lists(JSON_VALUES | JSON_VALUES.map(json.dumps), max_size=3),
    ),
    max_size=6,
)


def assert_each_row_answered(url: str, rows: list[Any]) -> None:
    """Sends `rows` as one call: a 200 with a reply per row, whatever the rows hold."""
    with httpx.Client(timeout=60) as http:
        response = http.post(url + "/", json={"calls": rows})
    assert response.status_code == 200, response.text
    assert len(response.json()["replies"]) == len(rows)


# The schema describes BigQuery's rows; these send what no schema would: any JSON at all, where
# the answer, the facts and their attributes go, as values or as strings holding them.
@settings(max_examples=EXAMPLES * 6, derandomize=True, database=None, deadline=None)
@given(rows=ROWS)
def test_rows_of_any_json_get_a_reply_each_and_never_a_5xx(
    bigquery_endpoint: str, rows: list[Any]
) -> None:
    assert_each_row_answered(bigquery_endpoint, rows)


@pytest.mark.slow
@settings(max_examples=SLOW_EXAMPLES * 2, database=None, deadline=None)
@given(rows=ROWS)
def test_many_new_rows_of_any_json_get_a_reply_each_and_never_a_5xx(
    bigquery_endpoint: str, rows: list[Any]
) -> None:
    assert_each_row_answered(bigquery_endpoint, rows)


Surface = tuple[str, Callable[[], str], Callable[[], None]]


@pytest.fixture(params=["admin", "bigquery"])
def surface(
    request: pytest.FixtureRequest,
) -> Surface:
    """(document, the live server's URL, the plain call it must still answer) of one surface."""
    if request.param == "admin":
        emu: Emulator = request.getfixturevalue("admin_emulator")
        return (
            "admin-api.openapi.json",
            lambda: emu.http_url,
            lambda: assert_admin_still_serves(emu),
        )
    url: str = request.getfixturevalue("bigquery_endpoint")
    return "bigquery-endpoint.openapi.json", lambda: url, lambda: assert_endpoint_still_serves(url)


def test_no_request_its_schema_allows_or_refuses_gets_a_5xx_or_an_undescribed_answer(
    surface: Surface,
) -> None:
    document, url, still_serves = surface

    fuzz(document, url(), EXAMPLES, reproducible=True)

    still_serves()


@pytest.mark.slow
def test_many_new_requests_from_the_schema_get_no_5xx_nor_an_undescribed_answer(
    surface: Surface,
) -> None:
    document, url, still_serves = surface

    fuzz(document, url(), SLOW_EXAMPLES, reproducible=False)

    still_serves()
