"""groundwire's pytest plugin loads for free and gives tests an emulator and connected clients."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from groundwire import AsyncGroundingClient, GroundingClient
from groundwire.emulator import Emulator
from tests.support.inner_pytest import marked_test, run_tests

pytest_plugins = ["pytester"]

HEAVY: tuple[str, ...] = (
    "grpc",
    "google.protobuf",
    "h11",
    "groundwire.client",
    "groundwire.features",
)
HEAVY += ("groundwire.emulator.server", "groundwire.emulator.in_process", "groundwire.transports")


def test_importing_the_plugin_loads_no_grpc_emulator_or_client() -> None:
    code = (
        "import sys\n"
        "import groundwire.integrations.pytest_plugin\n"
        f"print(sorted(m for m in sys.modules if m.startswith({HEAVY!r})))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert result.stdout.strip() == "[]"


def test_pytest_loads_the_plugin_from_its_entry_point_and_stays_light(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(
        f"""
        import sys

        def test_light(request):
            assert request.config.pluginmanager.has_plugin("groundwire")
            assert sorted(m for m in sys.modules if m.startswith({HEAVY!r})) == []
        """
    )
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)


def test_grounding_client_checks_against_the_session_emulator(pytester: pytest.Pytester) -> None:
    result = run_tests(
        pytester,
        """
        ADDRESSES = []
        FACTS = ["Paris is in France."]

        def test_first(grounding_client, grounding_emulator):
            result = grounding_client.check_grounding("Paris is in France.", FACTS)
            assert result.claims[0].supported
            ADDRESSES.append(grounding_emulator.grpc_address)

        def test_second(grounding_client, grounding_test_emulator):
            grounding_client.check_grounding("Paris is in France.", FACTS)
            assert ADDRESSES == [grounding_test_emulator.grpc_address]
        """,
    )
    result.assert_outcomes(passed=2)


def test_a_grounding_faults_marker_gives_the_test_a_faulty_emulator_of_its_own(
    pytester: pytest.Pytester,
) -> None:
    result = run_tests(
        pytester,
        """
        import time
        import pytest
        from groundwire import ResourceExhausted, Unavailable

        FACTS = ["Paris is in France."]

        @pytest.mark.grounding_faults(rate=1.0, codes=["UNAVAILABLE"])
        def test_every_call_fails(grounding_client, grounding_test_emulator, request):
            with pytest.raises(Unavailable, match="fault injected"):
                grounding_client.check_grounding("Paris is in France.", FACTS, retry=None)
            assert "grounding_emulator" not in request.fixturenames

        @pytest.mark.grounding_faults(rate=1.0, codes=[8], latency_ms=200)
        def test_codes_by_number_and_latency(grounding_client):
            started = time.monotonic()
            with pytest.raises(ResourceExhausted):
                grounding_client.check_grounding("Paris is in France.", FACTS, retry=None)
            assert time.monotonic() - started >= 0.2

        def test_the_session_emulator_stays_fault_free(grounding_client):
            assert grounding_client.check_grounding("Paris is in France.", FACTS, retry=None)
        """,
    )
    result.assert_outcomes(passed=3)


@pytest.mark.parametrize(
    ("marker", "message"),
    [
        ('grounding_faults(rate=0.5, codes=["NOPE"])', "'NOPE' is not a status code"),
        ("grounding_faults(rate=2.0)", "rate must be between 0 and 1"),
        ("grounding_faults(0.5)", "takes keyword arguments only"),
        ("grounding_faults(rates=0.5)", "no keyword 'rates'; its keywords are rate, codes*"),
    ],
)
def test_a_bad_grounding_faults_marker_is_a_configuration_error(
    pytester: pytest.Pytester, marker: str, message: str
) -> None:
    result = run_tests(pytester, marked_test(marker))
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines([f"*ConfigurationError*{message}*"])


def test_async_grounding_client_works_under_pytest_asyncio(pytester: pytest.Pytester) -> None:
    result = run_tests(
        pytester,
        """
        import pytest

        @pytest.mark.asyncio
        async def test_async(async_grounding_client):
            result = await async_grounding_client.check_grounding(
                "Paris is in France.", ["Paris is in France."]
            )
            assert result.support_score is not None
        """,
    )
    result.assert_outcomes(passed=1)


def test_without_pytest_asyncio_only_the_async_fixture_fails(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        def test_sync(grounding_client):
            assert grounding_client.check_grounding("Paris is in France.", ["Paris is in France."])

        def test_async(async_grounding_client):
            pass
        """
    )
    result = pytester.runpytest("-p", "no:asyncio", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, errors=1)
    result.stdout.fnmatch_lines(["*async_grounding_client needs pytest-asyncio*"])


@pytest.mark.official
def test_official_grounding_client_talks_to_the_emulator(pytester: pytest.Pytester) -> None:
    result = run_tests(
        pytester,
        """
        from google.cloud import discoveryengine_v1 as de

        from groundwire.integrations.pytest_plugin import official_grounding_client_for

        CONFIG = "projects/p/locations/global/groundingConfigs/default_grounding_config"

        def check(client):
            return client.check_grounding(request=de.CheckGroundingRequest(
                grounding_config=CONFIG,
                answer_candidate="Paris is in France.",
                facts=[de.GroundingFact(fact_text="Paris is in France.")],
            ))

        def test_grpc(official_grounding_client):
            assert check(official_grounding_client).cited_chunks[0].source == "0"

        def test_rest(grounding_emulator):
            with official_grounding_client_for(grounding_emulator, transport="rest") as client:
                assert check(client).claims[0].citation_indices == [0]
        """,
    )
    result.assert_outcomes(passed=2)


def test_the_repos_own_suite_runs_with_the_plugin_active(
    request: pytest.FixtureRequest, grounding_client: GroundingClient, grounding_emulator: Emulator
) -> None:
    assert request.config.pluginmanager.has_plugin("groundwire")
    assert grounding_client.check_grounding("Paris is in France.", ["Paris is in France."])
    assert grounding_emulator.grpc_address.startswith("127.0.0.1:")


async def test_the_async_client_fixture_runs_in_the_suites_auto_mode(
    async_grounding_client: AsyncGroundingClient,
) -> None:
    result = await async_grounding_client.check_grounding(
        "Paris is in France.", ["Paris is in France."]
    )
    assert result.claims[0].supported


def test_the_docs_example_passes_in_pytest_asyncios_default_strict_mode(
    pytester: pytest.Pytester,
) -> None:
    page = (Path(__file__).resolve().parents[1] / "docs" / "emulator.md").read_text(
        encoding="utf-8"
    )
    section = page[page.index("## Testing with groundwire") :]
    example = section.split("```python\n", 1)[1].split("```", 1)[0]
    assert "async def test_async" in example
    result = run_tests(pytester, example, "-o", "asyncio_mode=strict")
    result.assert_outcomes(passed=3)
