"""The pytest plugin's judge: a session's from an option or a fixture, a test's from a marker."""

from __future__ import annotations

import textwrap

import pytest

import groundwire.emulator.in_process  # noqa: F401 - see below
from tests.support.inner_pytest import marked_test, run_inner

pytest_plugins = ["pytester"]
# The inner runs start emulators in this process, and pytester forgets the modules each run
# imports: the emulator's (protobuf's C extension among them) crash the process when imported
# a second time, so they are imported here, before any run.

JUDGES = '''
"""Judges for the plugin's tests."""
import threading


def prefers_bananas(claim, passages):
    return [0.9 if "Bananas" in passage else 0.0 for passage in passages]


def hangs(claim, passages):
    threading.Event().wait(5)
    return [1.0] * len(passages)
'''
CITED = """
FACTS = ["Paris is the capital of France.", "Bananas are yellow in Paris."]


def cited(client):
    result = client.check_grounding("Paris is the capital of France.", FACTS, retry=None)
    return [chunk.text for chunk in result.claims[0].citations]
"""


def _run(pytester: pytest.Pytester, tests: str, *args: str) -> pytest.RunResult:
    pytester.makepyfile(judges=JUDGES, test_judged=CITED + textwrap.dedent(tests))
    pytester.syspathinsert()
    return run_inner(pytester, *args)


def test_a_grounding_judge_marker_gives_the_test_an_emulator_judged_its_way(
    pytester: pytest.Pytester,
) -> None:
    result = _run(
        pytester,
        """
        import pytest
        from groundwire import DeadlineExceeded
        from judges import hangs, prefers_bananas

        @pytest.mark.grounding_judge(judge=prefers_bananas)
        def test_the_judge_cites(grounding_client):
            assert cited(grounding_client) == ["Bananas are yellow in Paris."]

        @pytest.mark.grounding_judge("judges:hangs", timeout=0.2, concurrency=1)
        def test_a_hanging_judge_times_out(grounding_client):
            with pytest.raises(DeadlineExceeded, match="judges:hangs gave no scores"):
                cited(grounding_client)

        def test_the_session_emulator_keeps_the_engine(grounding_client):
            assert cited(grounding_client) == ["Paris is the capital of France."]
        """,
    )
    result.assert_outcomes(passed=3)


@pytest.mark.parametrize(
    ("how", "args"),
    [
        ("option", ("--groundwire-judge", "judges:prefers_bananas")),
        ("ini", ("-o", "groundwire_judge=judges:prefers_bananas")),
    ],
)
def test_the_session_judge_comes_from_the_command_line_or_the_ini_file(
    pytester: pytest.Pytester, how: str, args: tuple[str, ...]
) -> None:
    result = _run(
        pytester,
        """
        import pytest

        def test_the_session_emulator_is_judged(grounding_client):
            assert cited(grounding_client) == ["Bananas are yellow in Paris."]

        @pytest.mark.grounding_faults(latency_ms=1)
        def test_an_emulator_with_faults_keeps_the_session_judge(grounding_client):
            assert cited(grounding_client) == ["Bananas are yellow in Paris."]

        @pytest.mark.grounding_judge(None)
        def test_a_marker_without_a_judge_gets_the_engine(grounding_client):
            assert cited(grounding_client) == ["Paris is the capital of France."]
        """,
        *args,
    )
    result.assert_outcomes(passed=3)


def test_a_conftest_fixture_gives_the_session_a_judge_function(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(
        """
        import pytest
        from judges import prefers_bananas

        @pytest.fixture(scope="session")
        def grounding_judge():
            return prefers_bananas
        """
    )
    result = _run(
        pytester,
        """
        def test_the_session_emulator_is_judged(grounding_client):
            assert cited(grounding_client) == ["Bananas are yellow in Paris."]
        """,
    )
    result.assert_outcomes(passed=1)


@pytest.mark.parametrize(
    ("marker", "message"),
    [
        ("grounding_judge()", "*ConfigurationError*missing 1 required positional argument*"),
        ("grounding_judge(None, timout=1)", "*unexpected keyword argument 'timout'; it takes*"),
        ('grounding_judge("judges:nothing")', "*ConfigurationError*nothing is called 'nothing'*"),
        ('grounding_judge("judges:hangs", timeout=0)', "*timeout must be a positive number*"),
    ],
)
def test_a_bad_grounding_judge_marker_is_a_configuration_error(
    pytester: pytest.Pytester, marker: str, message: str
) -> None:
    result = _run(pytester, marked_test(marker))
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines([message])
