"""Times the grounding engine on a small request and on the largest legal one.

Targets: a small request (5 facts of about 1 KB, a 5-sentence answer) in 5 ms or less at the
median; the largest (200 facts of 10,000 characters, an answer of about 300 sentences) in one
second or less. Text is synthetic but shaped like prose: Zipf-distributed words, names,
numbers and dates, and an answer that mixes copied, altered and invented sentences.

Run: ``PYTHONPATH=src python bench/quality/engine_speed.py``.
"""

from __future__ import annotations

import random
import statistics
import time
from collections.abc import Callable
from functools import partial

from groundwire.emulator.engine import Fact, check_grounding, split_claims
from groundwire.emulator.engine.index import clear_caches

_SYLLABLES = [
    "ka",
    "to",
    "ri",
    "men",
    "sa",
    "lo",
    "vin",
    "der",
    "pa",
    "qua",
    "el",
    "mor",
    "ti",
    "nus",
    "ber",
    "gal",
    "ora",
    "fen",
    "dru",
    "li",
]
_FUNCTION_WORDS = ["the", "of", "and", "in", "to", "a", "was", "is", "for", "by", "with", "on"]


def _vocabulary(rng: random.Random, size: int) -> list[str]:
    words = {"".join(rng.choice(_SYLLABLES) for _ in range(rng.randint(2, 4))) for _ in range(size)}
    return sorted(words)


def _sentence(rng: random.Random, vocabulary: list[str], weights: list[float]) -> str:
    words: list[str] = []
    for _ in range(rng.randint(10, 22)):
        roll = rng.random()
        if roll < 0.35:
            words.append(rng.choice(_FUNCTION_WORDS))
        elif roll < 0.42:
            words.append(rng.choice(vocabulary[:400]).capitalize())
        elif roll < 0.46:
            words.append(str(rng.randint(1, 2030)))
        else:
            words.append(rng.choices(vocabulary, weights)[0])
    return " ".join(words).capitalize() + "."


def _fact_text(rng: random.Random, vocabulary: list[str], weights: list[float], size: int) -> str:
    sentences: list[str] = []
    while sum(len(s) + 1 for s in sentences) < size:
        sentences.append(_sentence(rng, vocabulary, weights))
    return " ".join(sentences)[:size]


def make_request(
    seed: int, fact_count: int, fact_size: int, answer_sentences: int
) -> tuple[str, list[Fact]]:
    """A synthetic request: the answer copies, alters or invents each of its sentences.

    Example:
        >>> answer, facts = make_request(seed=1, fact_count=5, fact_size=1000, answer_sentences=5)
        >>> len(facts), all(len(fact.text) == 1000 for fact in facts)
        (5, True)
    """
    rng = random.Random(seed)
    vocabulary = _vocabulary(rng, 6000)
    weights = [1.0 / (rank + 1) for rank in range(len(vocabulary))]
    facts = [
        Fact(_fact_text(rng, vocabulary, weights, fact_size), {"title": f"Source {i}"})
        for i in range(fact_count)
    ]
    answer: list[str] = []
    for _ in range(answer_sentences):
        source = rng.choice(facts).text.split(". ")
        sentence = rng.choice(source).rstrip(".") + "."
        roll = rng.random()
        if roll < 0.3:
            words = sentence.split()
            words[rng.randrange(len(words))] = rng.choice(vocabulary)
            sentence = " ".join(words)
        elif roll < 0.5:
            sentence = _sentence(rng, vocabulary, weights)
        answer.append(sentence)
    return " ".join(answer), facts


def _time(run: Callable[[], object], repeats: int, cold: bool) -> list[float]:
    timings: list[float] = []
    for _ in range(repeats):
        if cold:
            clear_caches()
        started = time.perf_counter()
        run()
        timings.append(time.perf_counter() - started)
    return timings


def main() -> None:
    """Print the median (and worst) time of each request size, cold and warm caches.

    Example:
        >>> main()  # doctest: +SKIP
        largest: 287 answer sentences, 4663 words; 200 facts, 1999997 chars
           small cold: median     4.71 ms, worst    11.31 ms over 200 runs
    """
    small_answer, small_facts = make_request(1, 5, 1000, 5)
    large_answer, large_facts = make_request(2, 200, 10_000, 300)
    fact_characters = sum(len(f.text) for f in large_facts)
    print(
        f"largest: {len(split_claims(large_answer))} answer sentences, "
        f"{len(large_answer.split())} words; {len(large_facts)} facts, {fact_characters} chars"
    )
    for name, answer, facts, repeats in (
        ("small", small_answer, small_facts, 200),
        ("largest", large_answer, large_facts, 5),
    ):
        for cold in (True, False):
            timings = _time(partial(check_grounding, answer, facts), repeats, cold)
            label = "cold" if cold else "warm"
            print(
                f"{name:>8} {label}: median {statistics.median(timings) * 1000:8.2f} ms, "
                f"worst {max(timings) * 1000:8.2f} ms over {repeats} runs"
            )


if __name__ == "__main__":
    main()
