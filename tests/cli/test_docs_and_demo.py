"""What the README says of `make demo` and the two commands is what the Makefile does."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from groundwire.cli import main

ROOT = Path(__file__).resolve().parents[2]
MAKEFILE = (ROOT / "Makefile").read_text(encoding="utf-8")
README = (ROOT / "README.md").read_text(encoding="utf-8")
NODE_WORDS = ("NODE_STAMP", "node_modules", "npm", "$(BUF)")


def rule(target: str) -> tuple[str, str]:
    """A Makefile rule's prerequisites and its recipe (continuation lines joined)."""
    found = re.search(
        rf"^{re.escape(target)}:(?P<prerequisites>.*)\n(?P<recipe>(?:\t.*\n)*)", MAKEFILE, re.M
    )
    assert found, f"no rule for {target} in the Makefile"
    recipe = found["recipe"].replace("\\\n", " ")
    return found["prerequisites"], recipe


def readme_section(title: str) -> str:
    start = README.index(f"## {title}\n")
    return README[start : README.index("\n## ", start + 1)]


def test_make_demo_shows_the_claim_scores_the_readme_promises(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert "with scores" in readme_section("Two commands")
    _, recipe = rule("demo")
    [command] = [line for line in recipe.splitlines() if "groundwire check" in line]
    argv = shlex.split(command.strip())
    assert argv[0] == "$(BIN)/groundwire"
    assert main(argv[1:]) == 0
    out = capsys.readouterr().out
    claims = out.split("\nClaims\n")[1].split("\n\n")[0].splitlines()
    scored = [line for line in claims if re.search(r"  score \d\.\d\d$", line)]
    assert len(scored) >= 3, out


def test_the_two_commands_need_no_node_and_the_readme_does_not_ask_for_it() -> None:
    for target in ("demo", "test", "$(PY_STAMP)"):
        prerequisites, recipe = rule(target)
        assert not [word for word in NODE_WORDS if word in prerequisites + recipe], target
    needs = readme_section("Two commands").split("```")[0]
    assert "Node" not in needs
    assert "npm" not in needs
