"""Measures the grounding engine against hand-labelled cases, so quality is a number, not a hope.

Each line of a cases file is one case: ``{"id", "rule", "claim", "facts": [{"text",
"attributes"}], "expected": "grounded" | "not_grounded" | "no_check", "cited_facts": [...]}``.
The claim is checked as a whole answer: it is grounded when every sentence that needs a check
is grounded, and needs no check when none of its sentences does.

Run ``.venv/bin/python -m bench.quality.evaluate`` for the dev and held-out table and the
outside data (``bench.quality.outside``: the engine-dev data when found, see
``--engine-dev``, and the project's data-to-text set) and the pairwise proxies
(``bench.quality.pairwise``) beside the overlap baseline; pass cases
files and ``--failures`` to list the cases the engine gets wrong. The held-out file is frozen:
it was written before any tuning and is never used to tune.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bench.quality import outside, pairwise, responses
from bench.report import table
from groundwire.emulator.engine import Fact, check_grounding

HERE = Path(__file__).resolve().parent
DEV_CASES = HERE / "cases_dev.jsonl"
HELDOUT_CASES = HERE / "cases_heldout.jsonl"


def load_cases(path: Path | str) -> list[dict[str, Any]]:
    """Read a JSONL cases file.

    Example:
        >>> len(load_cases(DEV_CASES)) > 100
        True
    """
    with open(path, encoding="utf-8") as lines:
        return [json.loads(line) for line in lines if line.strip()]


def judge(case: dict[str, Any]) -> tuple[str, list[int]]:
    """Run the engine on one case: the verdict and the facts it cited.

    Example:
        >>> judge({"claim": "Hi!", "facts": [{"text": "Rome is old.", "attributes": {}}]})
        ('no_check', [])
    """
    facts = [Fact(f["text"], f.get("attributes") or {}) for f in case["facts"]]
    checked = [c for c in check_grounding(case["claim"], facts).claims if c.check_required]
    if not checked:
        return "no_check", []
    verdict = "grounded" if all(claim.grounded for claim in checked) else "not_grounded"
    cited = sorted({citation.fact_index for claim in checked for citation in claim.citations})
    return verdict, cited


def evaluate(path: Path | str) -> dict[str, Any]:
    """Score the engine on a cases file.

    Precision, recall and balanced accuracy are over cases that need a check (grounded is the
    positive class; a case wrongly judged as needing no check counts as not grounded).
    ``check_accuracy`` is how often "needs a check" is right, over all cases;
    ``citation_accuracy`` is how often the cited facts are exactly the expected ones, over cases
    both expected and judged grounded.

    Example:
        >>> evaluate(DEV_CASES)["cases"] > 100
        True
    """
    cases = load_cases(path)
    counts = {"tp": 0, "fp": 0, "tn": 0, "fn": 0}
    check_right = citations_right = citations_judged = 0
    failures: list[dict[str, Any]] = []
    for case in cases:
        verdict, cited = judge(case)
        expected = case["expected"]
        check_right += (verdict == "no_check") == (expected == "no_check")
        wrong = verdict != expected
        if expected != "no_check":
            positive, predicted = expected == "grounded", verdict == "grounded"
            key = ("t" if positive == predicted else "f") + ("p" if predicted else "n")
            counts[key] += 1
        if expected == "grounded" and verdict == "grounded":
            citations_judged += 1
            if cited == sorted(case["cited_facts"]):
                citations_right += 1
            else:
                wrong = True
        if wrong:
            failures.append(
                {
                    "id": case["id"],
                    "rule": case["rule"],
                    "claim": case["claim"],
                    "expected": expected,
                    "got": verdict,
                    "cited": cited,
                    "expected_cited": case["cited_facts"],
                }
            )
    tp, fp, tn, fn = counts["tp"], counts["fp"], counts["tn"], counts["fn"]
    recall = tp / (tp + fn) if tp + fn else 0.0
    specificity = tn / (tn + fp) if tn + fp else 0.0
    return {
        "cases": len(cases),
        "precision": tp / (tp + fp) if tp + fp else 0.0,
        "recall": recall,
        "specificity": specificity,
        "balanced_accuracy": (recall + specificity) / 2,
        "check_accuracy": check_right / len(cases) if cases else 0.0,
        "citation_accuracy": citations_right / citations_judged if citations_judged else 0.0,
        "confusion": counts,
        "failures": failures,
    }


def _table(results: Sequence[tuple[str, dict[str, Any]]]) -> str:
    columns = [
        "cases",
        "precision",
        "recall",
        "specificity",
        "balanced_accuracy",
        "check_accuracy",
        "citation_accuracy",
    ]
    rows = [f"{'set':<10}" + "".join(f"{c:>19}" for c in columns)]
    for name, result in results:
        cells = [f"{result[c]:>19}" if c == "cases" else f"{result[c]:>19.3f}" for c in columns]
        rows.append(f"{name:<10}" + "".join(cells))
    return "\n".join(rows)


def main(arguments: Sequence[str]) -> int:
    """Print the metrics tables (and, with ``--failures``, the wrongly judged cases).

    Example:
        >>> main([str(DEV_CASES), "--engine-dev", "/nonexistent"])  # doctest: +ELLIPSIS
        set ... cases ... balanced_accuracy ...
        dev ...
        | set | task | responses | ...
        | set | pairs | pairwise acc. engine | engine ties | overlap | overlap ties |
        ...
        0
    """
    parser = argparse.ArgumentParser(prog="python -m bench.quality.evaluate")
    parser.add_argument("cases", nargs="*", type=Path, help="cases files (default: dev, held-out)")
    parser.add_argument("--failures", action="store_true", help="list wrongly judged cases")
    parser.add_argument(
        "--engine-dev",
        type=Path,
        default=responses.default_engine_dev(),
        help=f"folder of ragtruth-train.jsonl (default: ${responses.ENGINE_DEV_VARIABLE}, "
        "else ../shared/engine-dev beside the repository)",
    )
    options = parser.parse_args(arguments)
    paths = options.cases or [DEV_CASES, HELDOUT_CASES]
    results = [(path.stem.removeprefix("cases_"), evaluate(path)) for path in paths]
    print(_table(results))
    if options.failures:
        for name, result in results:
            for failure in result["failures"]:
                print(name, json.dumps(failure, ensure_ascii=False))
    print()
    print(table(outside.HEADER, outside.table(outside.evaluate_outside(options.engine_dev))))
    print()
    print(table(pairwise.HEADER, pairwise.table(pairwise.evaluate_pairwise(options.engine_dev))))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
