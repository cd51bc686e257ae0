"""No import circle in `src/groundwire`: shared pieces live below the modules that use them.

The graph is read from the source, not from what an import happens to load: an import inside
a function counts as much as one at the top (a lazy import only hides a circle), and so does
an import under `if TYPE_CHECKING:` (it never runs, but the module cannot be read or checked
without the one it names). An edge goes to the module an import names; a package's `__init__`
run on the way is not an edge of its own.
"""

from __future__ import annotations

import ast
import textwrap
from collections.abc import Iterable, Iterator
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"

Graph = dict[str, dict[str, int]]
"""Each module's imports of the package's own modules, with the line of the first one."""


def module_names(root: Path, package: str) -> dict[str, Path]:
    """Every module of ``package`` under ``root``, by dotted name (a package by its own name)."""
    names = {}
    for path in sorted((root / package).rglob("*.py")):
        parts = path.relative_to(root).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        names[".".join(parts)] = path
    return names


def _imports(nodes: Iterable[ast.AST]) -> Iterator[ast.Import | ast.ImportFrom]:
    """Every import statement: at the top, inside functions and under `if TYPE_CHECKING:`."""
    for node in nodes:
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node
        else:
            yield from _imports(ast.iter_child_nodes(node))


def _targets(
    statement: ast.Import | ast.ImportFrom, importer: str, is_package: bool, modules: set[str]
) -> set[str]:
    """The modules a statement names.

    `from package import name` names the submodule `name` if there is one, else the package.
    """
    if isinstance(statement, ast.Import):
        return {alias.name for alias in statement.names}
    base = statement.module or ""
    if statement.level:
        anchor = importer.split(".") if is_package else importer.split(".")[:-1]
        anchor = anchor[: len(anchor) - statement.level + 1]
        base = ".".join([*anchor, base] if base else anchor)
    named = {f"{base}.{alias.name}" for alias in statement.names}
    return {name if name in modules else base for name in named}


def import_graph(root: Path, package: str) -> Graph:
    """The import graph of ``package``'s own modules, read from the source under ``root``."""
    modules = module_names(root, package)
    names = set(modules)
    graph: Graph = {}
    for name, path in modules.items():
        edges = graph.setdefault(name, {})
        is_package = path.name == "__init__.py"
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        for statement in _imports(tree.body):
            for target in _targets(statement, name, is_package, names):
                if target in names and target != name:
                    edges.setdefault(target, statement.lineno)
    return graph


def circles(graph: Graph) -> list[list[str]]:
    """The groups of modules that import each other round a circle (Tarjan's components)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        for target in graph.get(module, {}):
            if target not in index:
                visit(target)
                low[module] = min(low[module], low[target])
            elif target in stack:
                low[module] = min(low[module], index[target])
        if low[module] == index[module]:
            component: list[str] = []
            while not component or component[-1] != module:
                component.append(stack.pop())
            if len(component) > 1:
                found.append(sorted(component))

    for module in sorted(graph):
        if module not in index:
            visit(module)
    return sorted(found)


def describe(graph: Graph, circle: list[str]) -> str:
    """One circle as its imports, ``a:12 -> b`` each, for the failure message."""
    members = set(circle)
    return "; ".join(
        f"{module}:{line} -> {target}"
        for module in circle
        for target, line in sorted(graph[module].items())
        if target in members
    )


def test_groundwire_has_no_import_circle() -> None:
    graph = import_graph(SRC, "groundwire")
    assert len(graph) > 50, "the source was not found"
    found = [describe(graph, circle) for circle in circles(graph)]
    assert not found, "import circles:\n" + "\n".join(found)


def _package(root: Path, files: dict[str, str]) -> Path:
    for name, source in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(source), encoding="utf-8")
    return root


def test_the_check_finds_a_circle_closed_by_an_import_inside_a_function(tmp_path: Path) -> None:
    root = _package(
        tmp_path,
        {
            "toy/__init__.py": "",
            "toy/server.py": "from toy.workers import serve_workers\n",
            "toy/workers.py": """\
                def serve_workers() -> None:
                    from toy.server import start
            """,
            "toy/alone.py": "import toy.server\n",
        },
    )
    graph = import_graph(root, "toy")
    assert circles(graph) == [["toy.server", "toy.workers"]]
    assert describe(graph, ["toy.server", "toy.workers"]) == (
        "toy.server:1 -> toy.workers; toy.workers:2 -> toy.server"
    )


def test_the_check_counts_imports_made_only_for_type_checking(tmp_path: Path) -> None:
    root = _package(
        tmp_path,
        {
            "toy/__init__.py": "",
            "toy/model.py": """\
                from typing import TYPE_CHECKING
                if TYPE_CHECKING:
                    from toy.codec import decode
                else:
                    import json
            """,
            "toy/codec.py": "from toy import model\n",
        },
    )
    assert circles(import_graph(root, "toy")) == [["toy.codec", "toy.model"]]


def test_the_check_reads_relative_imports_and_names_given_by_a_package(tmp_path: Path) -> None:
    root = _package(
        tmp_path,
        {
            "toy/__init__.py": "from .sub import helper\n",
            "toy/sub/__init__.py": "from .helper import run\n",
            "toy/sub/helper.py": "def run() -> None:\n    from toy import VERSION\n",
        },
    )
    assert circles(import_graph(root, "toy")) == [["toy", "toy.sub.helper"]]
