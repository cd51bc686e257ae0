"""The pytest plugin's stubs: a test's stubs end with it, and it sees only its own requests."""

from __future__ import annotations

import pytest

from tests.support.inner_pytest import run_tests

pytest_plugins = ["pytester"]


def test_a_tests_stubs_are_removed_after_it_and_it_sees_only_its_requests(
    pytester: pytest.Pytester,
) -> None:
    result = run_tests(
        pytester,
        """
        FACTS = ["Paris is in France."]

        def test_first(grounding_client, grounding_stubs):
            grounding_client.check_grounding("Before the stub.", facts=FACTS)
            grounding_stubs.stub("CheckGrounding", response={"supportScore": 0.25})
            assert grounding_client.check_grounding("A.", facts=FACTS).support_score == 0.25
            assert len(grounding_stubs.requests("CheckGrounding")) == 2

        def test_second(grounding_client, grounding_stubs):
            assert grounding_client.check_grounding("A.", facts=FACTS).support_score != 0.25
            (entry,) = grounding_stubs.requests()
            assert entry["request"]["answerCandidate"] == "A."
            assert grounding_stubs.emulator.stubs() == []
        """,
    )
    result.assert_outcomes(passed=2)


def test_the_stub_marker_stubs_the_test_and_the_sequence_drives_retries(
    pytester: pytest.Pytester,
) -> None:
    result = run_tests(
        pytester,
        """
        import pytest

        UNAVAILABLE = {"error": {"code": "UNAVAILABLE"}}
        FACTS = ["Paris is in France."]

        @pytest.mark.grounding_stub(
            "CheckGrounding",
            sequence=[UNAVAILABLE, UNAVAILABLE, {"response": {"supportScore": 0.5}}],
        )
        def test_retried(grounding_client, grounding_stubs):
            assert grounding_client.check_grounding("A.", facts=FACTS).support_score == 0.5
            assert len(grounding_stubs.requests("CheckGrounding")) == 3

        @pytest.mark.grounding_faults(rate=0.0)
        @pytest.mark.grounding_stub("CheckGrounding", response={"supportScore": 0.75})
        def test_on_its_own_emulator_too(grounding_client):
            assert grounding_client.check_grounding("A.", facts=FACTS).support_score == 0.75

        def test_then_gone(grounding_client, grounding_emulator):
            assert grounding_emulator.stubs() == []
        """,
    )
    result.assert_outcomes(passed=3)
