"""What each engine rule is worth, against the overlap count, with a paired bootstrap interval.

Three figures, each on the same requests for every run:

- ``RAGTruth AUROC``: how well the support score ranks RAGTruth's training responses
  (``ragtruth-train.jsonl`` in the engine-dev folder) faithful above hallucinated;
- ``RAGTruth pairs``: pairwise accuracy over every (faithful, hallucinated) pair of responses
  to the same QA source (a tie is a loss);
- ``written pairs``: pairwise accuracy on the project's triples (``cases_pairwise.jsonl``);
- ``dev cases BAcc``: balanced accuracy on the project's hand-labelled dev cases
  (``cases_dev.jsonl``, the cases that need a check), as ``evaluate`` judges them.

Runs: the overlap scorer (``scorers.overlap_scorer``), the engine with every rule, and the
engine without each rule that can be turned off (``rules_off``: its ``off`` weight). Each
interval is the 95% percentile interval of a paired bootstrap (``metrics.paired_bootstrap``,
1,000 resamples, fixed seed) over sources (RAGTruth), triples or cases: for the engine, of engine
minus overlap; for a run without a rule, of that run minus the engine with every rule. A rule
*pays* on a figure when removing it lowers the figure and the interval stays below zero, *costs*
when removing it raises the figure beyond its interval, and is *noise* otherwise.

``python -m bench.quality.rule_worth`` prints the table; ``--write`` also puts it into
docs/engine.md (between its ``rule-worth`` marks) with the data file's sha256. Without the
engine-dev data it says so and leaves the page alone.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.quality import evaluate, metrics, pairwise, responses, scorers
from groundwire.emulator.engine.rules import RULES, rules_off

DOCS_PAGE = Path(__file__).resolve().parents[2] / "docs" / "engine.md"
START_MARK = "<!-- rule-worth:start (written by make bench SECTIONS=quality) -->"
END_MARK = "<!-- rule-worth:end -->"
FIGURES = ("RAGTruth AUROC", "RAGTruth pairs", "written pairs", "dev cases BAcc")


@dataclass(frozen=True)
class Readings:
    """One scorer's scores of every unit a figure is computed over.

    Per RAGTruth source its responses' (faithful, score); per triple (right, hallucinated);
    per dev case that needs a check (grounded as labelled, grounded as judged).
    """

    sources: tuple[tuple[tuple[bool, float], ...], ...]
    qa: tuple[bool, ...]
    triples: tuple[tuple[float, float], ...]
    cases: tuple[tuple[bool, bool], ...] = ()


def read_all(
    scorer: scorers.Scorer,
    dev: Sequence[responses.Response],
    triples: Sequence[pairwise.Triple],
    cases: tuple[tuple[bool, bool], ...] = (),
) -> Readings:
    """Score every RAGTruth response (grouped by source) and every written triple once.

    ``cases`` are the dev cases as the engine judged them (:func:`judge_cases`): the overlap
    scorer judges no cases.

    Example:
        >>> triple = pairwise.Triple("t", "absent", "Ada Vale founded Norn.", "?", "Ada Vale", "Ed")
        >>> read_all(scorers.overlap_scorer, [], [triple]).triples
        ((1.0, 0.0),)
    """
    grouped: dict[str, list[responses.Response]] = defaultdict(list)
    for answer in dev:
        grouped[answer.source_id].append(answer)
    sources = tuple(
        tuple((a.faithful, scorer(a.text, a.facts).score) for a in group)
        for group in grouped.values()
    )
    qa = tuple(group[0].task == "QA" for group in grouped.values())
    return Readings(sources, qa, tuple(pairwise.triple_pairs(triples, scorer)), cases)


def judge_cases(cases: Sequence[dict[str, Any]]) -> tuple[tuple[bool, bool], ...]:
    """Per dev case that needs a check: whether it is labelled grounded, and judged grounded.

    Example:
        >>> judge_cases([{"claim": "Rome is old.", "expected": "grounded",
        ...               "facts": [{"text": "Rome is old."}]}])
        ((True, True),)
    """
    return tuple(
        (case["expected"] == "grounded", evaluate.judge(case)[0] == "grounded")
        for case in cases
        if case["expected"] != "no_check"
    )


def balanced_accuracy(cases: Sequence[tuple[bool, bool]]) -> float | None:
    """The mean of the recall of grounded and of not-grounded cases.

    Example:
        >>> balanced_accuracy([(True, True), (False, True), (False, False)])
        0.75
    """
    grounded = [judged for labelled, judged in cases if labelled]
    ungrounded = [not judged for labelled, judged in cases if not labelled]
    if not grounded or not ungrounded:
        return None
    return (sum(grounded) / len(grounded) + sum(ungrounded) / len(ungrounded)) / 2


def figure(readings: Readings, name: str, chosen: Sequence[int]) -> float | None:
    """One figure over the chosen units (source, triple or case indices).

    Example:
        >>> readings = Readings((((True, 0.9), (False, 0.2)),), (True,), ((0.5, 0.5),))
        >>> figure(readings, "RAGTruth AUROC", [0]), figure(readings, "written pairs", [0])
        (1.0, 0.0)
    """
    if name == "written pairs":
        return pairwise.pair_share([readings.triples[i] for i in chosen])
    if name == "dev cases BAcc":
        return balanced_accuracy([readings.cases[i] for i in chosen])
    if name == "RAGTruth AUROC":
        return metrics.ranked_auroc([item for i in chosen for item in readings.sources[i]])
    pairs = [
        (right, wrong)
        for i in chosen
        if readings.qa[i]
        for faithful, right in readings.sources[i]
        if faithful
        for flawed, wrong in readings.sources[i]
        if not flawed
    ]
    return pairwise.pair_share(pairs)


def compare(run: Readings, base: Readings | None, name: str) -> dict[str, Any]:
    """A run's figure, and the paired bootstrap interval of run minus base (or of the run alone)."""
    count = {"written pairs": len(run.triples), "dev cases BAcc": len(run.cases)}.get(
        name, len(run.sources)
    )
    everything = range(count)

    def difference(chosen: Sequence[int]) -> float | None:
        mine = figure(run, name, chosen)
        theirs = 0.0 if base is None else figure(base, name, chosen)
        return None if mine is None or theirs is None else mine - theirs

    value = figure(run, name, everything)
    change = difference(everything) if base is not None else None
    return {
        "value": value,
        "change": change,
        "interval": metrics.paired_bootstrap(everything, difference),
    }


def verdict(entry: dict[str, Any]) -> str:
    """What removing a rule did to one figure: ``pays``, ``costs`` or ``noise``.

    Example:
        >>> verdict({"change": -0.02, "interval": (-0.03, -0.01)})
        'pays'
    """
    low, high = entry["interval"]
    if high < 0:
        return "pays"
    if low > 0:
        return "costs"
    return "noise"


def measure(engine_dev: Path) -> dict[str, Any]:
    """Every run's figures and intervals, or ``{"skipped": why}`` without the engine-dev data."""
    data = engine_dev / "ragtruth-train.jsonl"
    dev = responses.read_engine_dev(engine_dev)
    if not dev:
        return {"skipped": f"no {data}"}
    triples = pairwise.read_triples()
    dev_cases = evaluate.load_cases(evaluate.DEV_CASES)
    overlap = read_all(scorers.overlap_scorer, dev, triples)
    engine = read_all(scorers.engine_scorer, dev, triples, judge_cases(dev_cases))
    runs: dict[str, dict[str, Any]] = {
        "overlap": {name: compare(overlap, None, name) for name in FIGURES[:-1]},
        "engine": {name: compare(engine, overlap, name) for name in FIGURES[:-1]},
    }
    runs["engine"]["dev cases BAcc"] = compare(engine, None, "dev cases BAcc")
    for rule in RULES:
        if rule.weight != rule.off:
            with rules_off(rule.name):
                without = read_all(scorers.engine_scorer, dev, triples, judge_cases(dev_cases))
            found = {name: compare(without, engine, name) for name in FIGURES}
            for entry in found.values():
                entry["verdict"] = verdict(entry)
            runs[f"without {rule.name}"] = found
    return {
        "data": data.name,
        "sha256": hashlib.sha256(data.read_bytes()).hexdigest(),
        "responses": len(dev),
        "sources": len(engine.sources),
        "triples": len(triples),
        "cases": len(engine.cases),
        "runs": runs,
    }


def _cell(entry: dict[str, Any] | None) -> str:
    if entry is None:
        return "-"
    low, high = entry["interval"]
    if entry["change"] is None:
        return f"{entry['value']:.3f} [{low:.3f}, {high:.3f}]"
    tail = f" {entry['verdict']}" if "verdict" in entry else ""
    return f"{entry['value']:.3f} ({entry['change']:+.3f} [{low:+.3f}, {high:+.3f}]){tail}"


def table(found: dict[str, Any]) -> str:
    """The worth table as Markdown: per run, each figure, its change and interval.

    Example:
        >>> entry = {"value": 0.8, "change": None, "interval": (0.7, 0.9)}
        >>> found = {"data": "d.jsonl", "sha256": "ab", "responses": 2, "sources": 1,
        ...          "triples": 1, "runs": {"overlap": dict.fromkeys(FIGURES, entry)}}
        >>> table(found).splitlines()[-1]  # doctest: +NORMALIZE_WHITESPACE
        '| overlap | 0.800 [0.700, 0.900] | 0.800 [0.700, 0.900] | 0.800 [0.700, 0.900]
        | 0.800 [0.700, 0.900] |'
    """
    lines = [
        f"Data: `{found['data']}` (sha256 `{found['sha256'][:16]}…`), {found['responses']}"
        f" responses to {found['sources']} sources; {found['triples']} written triples;"
        f" {found.get('cases', 0)} dev cases that need a check. Engine row: engine minus"
        " overlap (the overlap scorer judges no cases); `without` rows: that run minus the"
        " engine; [95% paired bootstrap interval].",
        "",
        "| run | " + " | ".join(FIGURES) + " |",
        "|---|" + "---|" * len(FIGURES),
    ]
    for run, entries in found["runs"].items():
        cells = (_cell(entries.get(name)) for name in FIGURES)
        lines.append(f"| {run} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def write_docs(found: dict[str, Any], page: Path = DOCS_PAGE) -> None:
    """Replace the table between the page's marks (the page is left alone when skipped)."""
    if "skipped" in found:
        return
    text = page.read_text(encoding="utf-8")
    start = text.index(START_MARK) + len(START_MARK)
    end = text.index(END_MARK)
    page.write_text(text[:start] + "\n" + table(found) + "\n" + text[end:], encoding="utf-8")


def main(arguments: list[str]) -> int:
    """Print the worth table (``--write``: also into docs/engine.md)."""
    parser = argparse.ArgumentParser(prog="python -m bench.quality.rule_worth")
    parser.add_argument("--engine-dev", type=Path, default=responses.default_engine_dev())
    parser.add_argument("--write", action="store_true", help="update docs/engine.md")
    options = parser.parse_args(arguments)
    found = measure(options.engine_dev)
    if "skipped" in found:
        print(f"rule worth skipped: {found['skipped']}")
        return 0
    print(table(found))
    if options.write:
        write_docs(found)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
