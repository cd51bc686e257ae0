"""What each engine rule is worth: every figure with all rules, then with each rule turned off.

``python -m bench.quality.rule_worth`` prints one Markdown row per run: AUROC and balanced
accuracy on the engine-dev tune and measure parts (when ``../shared/engine-dev`` or
``$GROUNDWIRE_ENGINE_DEV`` holds the data) and on the data-to-text set, pairwise accuracy on the
tune and measure QA answers and on the written triples, and balanced accuracy on the dev and
held-out cases. A rule is turned off by setting its weight to its ``off`` weight
(``groundwire.emulator.engine.rules.rules_off``); a rule whose worth shows on the tune part and
not on the measure part goes.
"""

from __future__ import annotations

from typing import Any

from bench.quality import evaluate, metrics, pairwise, responses, scorers
from groundwire.emulator.engine.rules import RULES, rules_off

COLUMNS = (
    "tune AUROC",
    "tune BAcc",
    "tune QA pairs",
    "measure AUROC",
    "measure BAcc",
    "measure QA pairs",
    "data-to-text AUROC",
    "data-to-text BAcc",
    "written pairs",
    "dev BAcc",
    "held-out BAcc",
)


def figures(sets: dict[str, list[responses.Response]]) -> dict[str, float | None]:
    """Every figure of the engine as it is now configured, keyed by ``COLUMNS``.

    Example:
        >>> found = figures({"data-to-text": responses.read_data_to_text()})
        >>> found["data-to-text AUROC"] > 0.5, found["tune AUROC"]
        (True, None)
    """
    found: dict[str, float | None] = dict.fromkeys(COLUMNS)
    for name, answers in sets.items():
        summary = metrics.summary([scorers.judge(r, scorers.engine_scorer) for r in answers])
        found[f"{name} AUROC"] = summary["auroc"]
        found[f"{name} BAcc"] = summary["balanced_accuracy"]
        if name != "data-to-text":
            pairs = pairwise.source_pairs(answers, scorers.engine_scorer)
            found[f"{name} QA pairs"] = pairwise.pair_share(pairs)
    triples = pairwise.triple_pairs(pairwise.read_triples(), scorers.engine_scorer)
    found["written pairs"] = pairwise.pair_share(triples)
    found["dev BAcc"] = evaluate.evaluate(evaluate.DEV_CASES)["balanced_accuracy"]
    found["held-out BAcc"] = evaluate.evaluate(evaluate.HELDOUT_CASES)["balanced_accuracy"]
    return found


def measure() -> dict[str, dict[str, Any]]:
    """The figures with every rule, then without each rule that can be turned off."""
    sets = {
        name: answers
        for name, answers in {
            **_engine_dev_parts(),
            "data-to-text": responses.read_data_to_text(),
        }.items()
        if answers
    }
    runs = {"all rules": figures(sets)}
    for rule in RULES:
        if rule.weight != rule.off:
            with rules_off(rule.name):
                runs[f"without {rule.name}"] = figures(sets)
    return runs


def _engine_dev_parts() -> dict[str, list[responses.Response]]:
    dev = responses.read_engine_dev(responses.default_engine_dev())
    return {
        "tune": [r for r in dev if not responses.in_measure_part(r.source_id)],
        "measure": [r for r in dev if responses.in_measure_part(r.source_id)],
    }


def main() -> None:
    """Print the runs as a Markdown table."""
    print("| run | " + " | ".join(COLUMNS) + " |")
    print("|---|" + "---|" * len(COLUMNS))
    for name, found in measure().items():
        cells = ("-" if found[c] is None else f"{found[c]:.3f}" for c in COLUMNS)
        print(f"| {name} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
