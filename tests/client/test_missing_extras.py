"""A module of an optional extra, imported without it, says which extra to install."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest


def import_without(hidden: str, statement: str) -> str:
    """Runs `statement` in a fresh interpreter where `hidden` cannot be imported; its error."""
    code = textwrap.dedent(
        f"""
        import sys
        sys.modules[{hidden!r}] = None  # as if the package were not installed
        try:
            {statement}
        except ModuleNotFoundError as error:
            print(f"ModuleNotFoundError {{error.name}}: {{error}}")
        """
    )
    finished = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
    )
    assert finished.returncode == 0, finished.stderr[-2000:]
    return finished.stdout.strip()


@pytest.mark.parametrize(
    ("hidden", "statement", "extra"),
    [
        ("opentelemetry", "import groundwire.otel", "otel"),
        ("langchain_core", "import groundwire.langchain", "langchain"),
        ("apache_beam", "from groundwire.beam import CheckGrounding", "beam"),
    ],
)
def test_importing_a_module_without_its_extra_names_the_extra(
    hidden: str, statement: str, extra: str
) -> None:
    said = import_without(hidden, statement)

    assert said.startswith(f"ModuleNotFoundError {hidden}"), said
    assert f"pip install 'groundwire[{extra}]'" in said
