"""Times the grounding engine in-process on a small request and on the largest legal one.

Targets: a small request (5 facts of about 1 KB, a 5-sentence answer) in 8 ms or less at the
median; the largest (200 facts of 10,000 characters, an answer of 4,096 tokens) in one second
or less at p99. Two generators of varied text, both seeded:

* ``zipf``: shaped like prose: Zipf-distributed words, names, numbers and dates, and an answer
  that mixes copied, altered and invented sentences;
* ``uniform``: words drawn uniformly from a vocabulary of 50,000, so that every word is rare
  (the adversarial case for an index over words).

``bench/engine.py`` sends the same requests to a fresh ``groundwire serve`` over gRPC.
Run alone: ``PYTHONPATH=src .venv/bin/python -m bench.quality.engine_speed``.
"""

from __future__ import annotations

import random
import statistics
import time
from collections.abc import Callable
from functools import partial

from groundwire.core.validation import MAX_ANSWER_TOKENS, MAX_FACT_CHARACTERS, MAX_FACTS
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
UNIFORM_VOCABULARY = 50_000
GENERATORS = ("zipf", "uniform")


def _vocabulary(rng: random.Random, size: int) -> list[str]:
    words: set[str] = set()
    while len(words) < size:
        words.add("".join(rng.choice(_SYLLABLES) for _ in range(rng.randint(2, 5))))
    return sorted(words)


class _Words:
    """Draws the words of one generator's sentences."""

    def __init__(self, rng: random.Random, generator: str) -> None:
        self.rng = rng
        self.uniform = generator == "uniform"
        self.vocabulary = _vocabulary(rng, UNIFORM_VOCABULARY if self.uniform else 6000)
        self.weights = [1.0 / (rank + 1) for rank in range(len(self.vocabulary))]

    def word(self) -> str:
        """One content word, Zipf-weighted or uniform."""
        if self.uniform:
            return self.rng.choice(self.vocabulary)
        return self.rng.choices(self.vocabulary, self.weights)[0]

    def sentence(self) -> str:
        """One sentence of 10 to 22 words."""
        rng = self.rng
        if self.uniform:
            return " ".join(self.word() for _ in range(rng.randint(10, 22))).capitalize() + "."
        words: list[str] = []
        for _ in range(rng.randint(10, 22)):
            roll = rng.random()
            if roll < 0.35:
                words.append(rng.choice(_FUNCTION_WORDS))
            elif roll < 0.42:
                words.append(rng.choice(self.vocabulary[:400]).capitalize())
            elif roll < 0.46:
                words.append(str(rng.randint(1, 2030)))
            else:
                words.append(self.word())
        return " ".join(words).capitalize() + "."

    def text(self, size: int) -> str:
        """Sentences up to exactly ``size`` characters."""
        sentences: list[str] = []
        length = 0
        while length < size:
            sentences.append(self.sentence())
            length += len(sentences[-1]) + 1
        return " ".join(sentences)[:size]


def make_request(
    seed: int,
    fact_count: int,
    fact_size: int,
    answer_sentences: int,
    generator: str = "zipf",
    max_answer_tokens: int | None = None,
) -> tuple[str, list[Fact]]:
    """A synthetic request: the answer copies, alters or invents each of its sentences.

    With ``max_answer_tokens``, the answer stops before the sentence that would pass it.

    Example:
        >>> answer, facts = make_request(seed=1, fact_count=5, fact_size=1000, answer_sentences=5)
        >>> len(facts), all(len(fact.text) == 1000 for fact in facts)
        (5, True)
    """
    from groundwire.core.validation import count_tokens

    rng = random.Random(seed)
    words = _Words(rng, generator)
    facts = [Fact(words.text(fact_size), {"title": f"Source {i}"}) for i in range(fact_count)]
    answer: list[str] = []
    tokens = 0
    for _ in range(answer_sentences):
        source = rng.choice(facts).text.split(". ")
        sentence = rng.choice(source).rstrip(".") + "."
        roll = rng.random()
        if roll < 0.3:
            written = sentence.split()
            written[rng.randrange(len(written))] = words.word()
            sentence = " ".join(written)
        elif roll < 0.5:
            sentence = words.sentence()
        cost = count_tokens(sentence)
        if max_answer_tokens is not None and tokens + cost > max_answer_tokens:
            break
        answer.append(sentence)
        tokens += cost
    return " ".join(answer), facts


def small_request(generator: str) -> tuple[str, list[Fact]]:
    """The small request: 5 facts of 1,000 characters and a 5-sentence answer."""
    return make_request(1, 5, 1000, 5, generator)


def largest_request(generator: str) -> tuple[str, list[Fact]]:
    """The largest legal request: 200 facts of 10,000 characters, a 4,096-token answer."""
    return make_request(
        2, MAX_FACTS, MAX_FACT_CHARACTERS, 10_000, generator, max_answer_tokens=MAX_ANSWER_TOKENS
    )


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
    """Print the median (and worst) time of each request size and generator, cold and warm.

    Example:
        >>> main()  # doctest: +SKIP
        zipf largest: 287 answer sentences, 4096 words; 200 facts, 2000000 chars
    """
    for generator in GENERATORS:
        small_answer, small_facts = small_request(generator)
        large_answer, large_facts = largest_request(generator)
        print(
            f"{generator} largest: {len(split_claims(large_answer))} answer sentences, "
            f"{len(large_answer.split())} words; {len(large_facts)} facts, "
            f"{sum(len(f.text) for f in large_facts)} chars"
        )
        for name, answer, facts, repeats in (
            ("small", small_answer, small_facts, 100),
            ("largest", large_answer, large_facts, 3),
        ):
            for cold in (True, False):
                timings = _time(partial(check_grounding, answer, facts), repeats, cold)
                print(
                    f"{generator:>8} {name:>8} {'cold' if cold else 'warm'}: median "
                    f"{statistics.median(timings) * 1000:8.2f} ms, worst "
                    f"{max(timings) * 1000:8.2f} ms over {repeats} runs"
                )


if __name__ == "__main__":
    main()
