"""Each direct dependency's resolved release beside the newest its range admits, and why not.

`make test-latest` prints this for each of its environments before it runs the tests, so that
a red run names the release that broke groundwire. Run it with the environment's Python and
the extras that environment installed: `build/venv-latest/bin/python tools/latest_versions.py
dev`. It asks PyPI only through pip (`pip index versions`, and `pip install --dry-run` for the
metadata of a newer release that was not chosen).
"""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib
from collections.abc import Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from functools import cache
from importlib import metadata
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parent.parent
PIP = [sys.executable, "-m", "pip", "--disable-pip-version-check"]
DRY_RUN = [
    *PIP,
    "install",
    "--quiet",
    "--dry-run",
    "--no-deps",
    "--ignore-installed",
    "--report",
    "-",
]
"""pip's report of what it would install, without installing: a release's metadata."""


def direct_requirements(extras: Iterable[str]) -> dict[str, Requirement]:
    """groundwire's base requirements and those of `extras` (and the extras they name)."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    found: dict[str, Requirement] = {}
    todo, seen = [None, *extras], set()
    while todo:
        extra = todo.pop()
        if extra in seen:
            continue
        seen.add(extra)
        texts = (
            project["dependencies"] if extra is None else project["optional-dependencies"][extra]
        )
        for text in texts:
            requirement = Requirement(text)
            if canonicalize_name(requirement.name) == "groundwire":
                todo.extend(requirement.extras)
            else:
                found.setdefault(canonicalize_name(requirement.name), requirement)
    return dict(sorted(found.items()))


@cache
def newest_admitted(requirement: Requirement) -> Version | None:
    """The newest release on the index that the requirement's range admits (for this Python)."""
    listed = subprocess.run(
        [*PIP, "index", "versions", "--json", requirement.name],
        capture_output=True,
        text=True,
        check=False,
    )
    if listed.returncode:
        return None
    versions = [Version(text) for text in json.loads(listed.stdout)["versions"]]
    admitted = [v for v in versions if not v.is_prerelease and v in requirement.specifier]
    return max(admitted, default=None)


def installed() -> dict[str, metadata.Distribution]:
    """The environment's distributions by canonical name."""
    return {canonicalize_name(d.metadata["Name"]): d for d in metadata.distributions()}


def _active_requirements(
    dists: dict[str, metadata.Distribution],
) -> Iterator[tuple[str, Requirement]]:
    """Each installed distribution's requirements that apply here, with the extras asked of it."""
    extras_asked: dict[str, set[str]] = {}
    for dist in dists.values():
        for text in dist.requires or []:
            requirement = Requirement(text)
            extras_asked.setdefault(canonicalize_name(requirement.name), set()).update(
                requirement.extras
            )
    for name, dist in dists.items():
        extras = {"", *extras_asked.get(name, ())}
        for text in dist.requires or []:
            requirement = Requirement(text)
            marker = requirement.marker
            if marker is None or any(marker.evaluate({"extra": extra}) for extra in extras):
                yield f"{name} {dist.version}", requirement


def holders(name: str, version: Version, dists: dict[str, metadata.Distribution]) -> list[str]:
    """What installed here refuses `name` at `version`: `apache-beam 2.78.0 needs protobuf<7`.

    Only the clauses of each range that refuse it are shown. A holder that is itself one of
    `HELD_BACK` (a direct dependency below its newest) is left out: its own line says why.
    """
    found = []
    for who, requirement in _active_requirements(dists):
        if canonicalize_name(requirement.name) != name or who.split()[0] in HELD_BACK:
            continue
        refusing = [
            str(s) for s in requirement.specifier if not s.contains(version, prereleases=True)
        ]
        if refusing:
            found.append(f"{who} needs {requirement.name}{','.join(refusing)}")
    return found


HELD_BACK: set[str] = set()
"""The direct dependencies resolved below the newest release their range admits (main fills it)."""


def unmet_by_newest(
    name: str, version: Version, dists: dict[str, metadata.Distribution]
) -> list[str]:
    """What the newer release itself asks that this environment does not give, and who holds it."""
    report = subprocess.run(
        [*DRY_RUN, f"{name}=={version}"],
        capture_output=True,
        text=True,
        check=False,
    )
    if report.returncode:
        return ["pip could not read its metadata"]
    meta = json.loads(report.stdout)["install"][0]["metadata"]
    reasons = []
    python = meta.get("requires_python")
    if python and not Requirement(f"python{python}").specifier.contains(sys.version.split()[0]):
        reasons.append(f"it needs Python {python}")
    for text in meta.get("requires_dist") or []:
        requirement = Requirement(text)
        if requirement.marker is not None and not requirement.marker.evaluate({"extra": ""}):
            continue
        have = dists.get(canonicalize_name(requirement.name))
        if have is None or requirement.specifier.contains(have.version, prereleases=True):
            continue
        wanted = newest_admitted(requirement)
        if wanted is None:
            held = ["no release on the index gives it"]
        else:
            held = holders(canonicalize_name(requirement.name), wanted, dists)
        reasons.append(
            f"it needs {requirement.name}{requirement.specifier} (here {have.version})"
            + (f", and {'; '.join(held)}" if held else "")
        )
    return reasons or ["pip's resolver chose the older release"]


def main(extras: list[str]) -> int:
    """Prints the table; always succeeds (the tests that follow say whether the releases work)."""
    requirements = direct_requirements(extras)
    dists = installed()
    with ThreadPoolExecutor(max_workers=8) as pool:
        newest = dict(
            zip(requirements, pool.map(newest_admitted, requirements.values()), strict=True)
        )
        resolved = {name: Version(dists[name].version) for name in requirements if name in dists}
        behind = {name for name in resolved if newest[name] and resolved[name] < newest[name]}
        HELD_BACK.update(behind)

        def why(name: str) -> str:
            best = newest[name]
            assert best is not None
            return "; ".join(holders(name, best, dists) or unmet_by_newest(name, best, dists))

        reasons = dict(zip(sorted(behind), pool.map(why, sorted(behind)), strict=True))
    print(
        f"Direct dependencies of groundwire[{','.join(extras)}] in {Path(sys.prefix).name}: "
        "resolved, and the newest release its range admits"
    )
    for name, requirement in requirements.items():
        version = resolved.get(name, "-")
        line = f"  {requirement.name:<28} {requirement.specifier!s:<16} {version!s:<12}"
        if name not in resolved:
            line += " not installed (its marker excludes this environment)"
        elif newest[name] is None:
            line += " (the index did not answer)"
        elif name in reasons:
            line += f" {newest[name]} is newer: {reasons[name]}"
        else:
            line += " newest"
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
