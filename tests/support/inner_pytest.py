"""Runs a pytest session inside a test (pytester), as the pytest plugin's tests do."""

from __future__ import annotations

import textwrap

import pytest

OPTIONS: tuple[str, ...] = ("-p", "no:cacheprovider", "--strict-markers")
OPTIONS += ("-o", "asyncio_default_fixture_loop_scope=function")
"""No cache left behind, markers checked, and pytest-asyncio's loop scope set (it warns)."""


def run_inner(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    """Runs pytest in `pytester`'s directory with the plugin tests' options, then `args`."""
    return pytester.runpytest(*OPTIONS, *args)


def run_tests(pytester: pytest.Pytester, source: str, *args: str) -> pytest.RunResult:
    """Writes `source` (dedented) as a test module and runs it."""
    pytester.makepyfile(textwrap.dedent(source))
    return run_inner(pytester, *args)


def marked_test(marker: str) -> str:
    """A test module with one test of `grounding_client` marked `@pytest.mark.<marker>`."""
    return f"""
import pytest

@pytest.mark.{marker}
def test_marked(grounding_client):
    pass
"""
