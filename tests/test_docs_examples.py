"""Every Python example in the README and docs/ runs as shown, against the embedded emulator."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

pytestmark = pytest.mark.timeout(120)

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
NO_RUN = re.compile(r"<!-- no-run: (?P<reason>[^>]+) -->")
# Optional extras: an example that imports one is skipped where the extra is not installed.
EXTRAS = ("apache_beam", "google.cloud", "langchain_core", "opentelemetry", "pyspark")


class Example:
    """One fenced Python block: where it is, its code, and why it must not run (if so)."""

    def __init__(self, page: Path, line: int, code: str, no_run: str | None) -> None:
        self.page = page
        self.line = line
        self.code = code
        self.no_run = no_run

    def name(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}"


def examples() -> list[Example]:
    found = []
    for page in PAGES:
        tokens = MarkdownIt("commonmark").parse(page.read_text(encoding="utf-8"))
        for before, token in zip([None, *tokens], tokens, strict=False):
            if token.type != "fence" or token.info.split()[:1] != ["python"]:
                continue
            marked = (
                NO_RUN.search(before.content) if before and before.type == "html_block" else None
            )
            line = token.map[0] + 1 if token.map else 0
            found.append(Example(page, line, token.content, marked and marked["reason"]))
    return found


EXAMPLES = examples()


def test_every_page_of_the_docs_is_found_and_has_examples() -> None:
    pages = {example.page.name for example in EXAMPLES}
    assert {"README.md", "client.md", "citations.md", "batch.md", "emulator.md"} <= pages
    assert [example for example in EXAMPLES if example.no_run is None]


@pytest.mark.parametrize("example", EXAMPLES, ids=Example.name)
def test_the_example_compiles(example: Example) -> None:
    compile(example.code, example.name(), "exec")


@pytest.mark.parametrize(
    "example", [example for example in EXAMPLES if example.no_run is None], ids=Example.name
)
def test_the_example_runs_against_the_emulator(
    example: Example, capsys: pytest.CaptureFixture[str]
) -> None:
    code = compile(example.code, example.name(), "exec")
    try:
        exec(code, {"__name__": "docs_example"})
    except ImportError as missing:  # `from google.cloud import x` is not a ModuleNotFoundError
        if not (missing.name or "").startswith(EXTRAS):
            raise
        pytest.skip(f"needs {missing.name}, an optional extra")


def test_the_examples_that_talk_to_google_type_check(tmp_path: Path) -> None:
    api = pytest.importorskip("mypy.api", reason="mypy is in the dev environment only")
    files = []
    for number, example in enumerate(EXAMPLES):
        reason = example.no_run or ""
        if reason.startswith("talks to Google") and not any(x in example.code for x in EXTRAS):
            path = tmp_path / f"example_{number}.py"
            path.write_text(f"# {example.name()}\n{example.code}", encoding="utf-8")
            files.append(str(path))
    assert len(files) >= 3
    config = tmp_path / "mypy.ini"  # not the project's strict settings: examples are unannotated
    config.write_text(
        f"[mypy]\nmypy_path = {ROOT / 'src'}:{ROOT / 'generated'}\n"
        "check_untyped_defs = True\nignore_missing_imports = True\n"
    )
    report, errors, status = api.run([f"--config-file={config}", "--no-incremental", *files])
    assert status == 0, report + errors
