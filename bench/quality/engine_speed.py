"""Times the grounding engine in-process on a small request and on the largest legal one.

Targets (issue 24): a small request (5 facts of about 1 KB, a 5-sentence answer) in 5 ms or
less at the median on every generator; the largest (200 facts of 10,000 characters, an answer of
4,096 tokens) in one second or less at warm p99 on every generator. The generators, all seeded:

* ``zipf``: shaped like prose: Zipf-distributed words, names, numbers and dates, and an answer
  that mixes copied, altered and invented sentences;
* ``uniform``: words drawn uniformly from a vocabulary of 50,000, so that every word is rare
  (the adversarial case for an index over words);
* ``acronyms``: runs of dotted capitals (``U.S.A.B.C.D.``), which the sentence splitter and the
  name reader must not take for abbreviations without end;
* ``cjk``: Chinese and Japanese without spaces, every character a token;
* ``rtl``: Arabic and Hebrew words with right-to-left marks and Arabic-Indic digits;
* ``numbers``: sentences made mostly of numbers, decimals, percentages, dates and ranges.

``bench/engine.py`` sends the same requests to a fresh ``groundwire serve`` over gRPC.
Run alone: ``PYTHONPATH=src .venv/bin/python -m bench.quality.engine_speed``.
"""

from __future__ import annotations

import random
import statistics
import time
from collections.abc import Callable
from functools import partial

from groundwire.contract.validation import MAX_ANSWER_TOKENS, MAX_FACT_CHARACTERS, MAX_FACTS
from groundwire.emulator.engine import Fact, check_grounding, split_claims
from groundwire.emulator.engine.index import clear_caches
from groundwire.emulator.engine.sentences import split_sentences

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
ADVERSARIAL_GENERATORS = ("acronyms", "cjk", "rtl", "numbers")
GENERATORS = ("zipf", "uniform", *ADVERSARIAL_GENERATORS)

_CAPITALS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
_CJK_CHARACTERS = [chr(code) for code in range(0x4E00, 0x4E00 + 3000)] + list("のはをにがでと")
_RTL_LETTERS = [*"ابتثجحخدذرزسشصضطظعغفقكلمنهوي", *"אבגדהוזחטיכלמנסעפצקרשת"]
_RTL_DIGITS = "٠١٢٣٤٥٦٧٨٩"
_RIGHT_TO_LEFT_MARK = "\u200f"


def _acronym(rng: random.Random) -> str:
    """Dotted capitals, two to twenty-six of them: ``U.S.A.B.C.D.``."""
    return "".join(f"{rng.choice(_CAPITALS)}." for _ in range(rng.randint(2, 26)))


def _rtl_word(rng: random.Random) -> str:
    """A word of two to seven Arabic or Hebrew letters, or Arabic-Indic digits."""
    if rng.random() < 0.1:
        return "".join(rng.choice(_RTL_DIGITS) for _ in range(rng.randint(1, 4)))
    return "".join(rng.choice(_RTL_LETTERS) for _ in range(rng.randint(2, 7)))


def _number(rng: random.Random) -> str:
    """An integer, a decimal, a grouped thousand, a percentage, a date or a range."""
    kind = rng.randrange(6)
    if kind == 0:
        return str(rng.randint(1, 2030))
    if kind == 1:
        return f"{rng.uniform(0, 1000):.{rng.randint(1, 3)}f}"
    if kind == 2:
        return f"{rng.randint(1000, 99_999_999):,}"
    if kind == 3:
        return f"{rng.uniform(0, 100):.1f}%"
    if kind == 4:
        return f"{rng.randint(1900, 2030)}-{rng.randint(1, 12):02}-{rng.randint(1, 28):02}"
    low = rng.randint(1, 500)
    return f"{low}–{low + rng.randint(1, 50)}"


def _adversarial_word(rng: random.Random, generator: str) -> str:
    if generator == "acronyms":
        return _acronym(rng)
    if generator == "cjk":
        return "".join(rng.choice(_CJK_CHARACTERS) for _ in range(rng.randint(1, 4)))
    if generator == "rtl":
        return _rtl_word(rng)
    return _number(rng)


def _adversarial_sentence(rng: random.Random, generator: str) -> str:
    if generator == "cjk":
        return "".join(rng.choice(_CJK_CHARACTERS) for _ in range(rng.randint(12, 40))) + "。"
    if generator == "acronyms":
        return " ".join(_acronym(rng) for _ in range(rng.randint(4, 12)))
    if generator == "rtl":
        words = [_rtl_word(rng) for _ in range(rng.randint(8, 20))]
        return _RIGHT_TO_LEFT_MARK + " ".join(words) + "."
    words = [
        _number(rng) if rng.random() < 0.7 else rng.choice(_FUNCTION_WORDS)
        for _ in range(rng.randint(8, 20))
    ]
    return " ".join(words).capitalize() + "."


def _vocabulary(rng: random.Random, size: int) -> list[str]:
    words: set[str] = set()
    while len(words) < size:
        words.add("".join(rng.choice(_SYLLABLES) for _ in range(rng.randint(2, 5))))
    return sorted(words)


class _Words:
    """Draws the words of one generator's sentences."""

    def __init__(self, rng: random.Random, generator: str) -> None:
        self.rng = rng
        self.generator = generator
        self.uniform = generator == "uniform"
        self.vocabulary = _vocabulary(rng, UNIFORM_VOCABULARY if self.uniform else 6000)
        self.weights = [1.0 / (rank + 1) for rank in range(len(self.vocabulary))]

    def word(self) -> str:
        """One content word, Zipf-weighted, uniform or the adversarial generator's."""
        if self.generator in ADVERSARIAL_GENERATORS:
            return _adversarial_word(self.rng, self.generator)
        if self.uniform:
            return self.rng.choice(self.vocabulary)
        return self.rng.choices(self.vocabulary, self.weights)[0]

    def sentence(self) -> str:
        """One sentence of 10 to 22 words."""
        rng = self.rng
        if self.generator in ADVERSARIAL_GENERATORS:
            return _adversarial_sentence(rng, self.generator)
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
        separator = "" if self.generator == "cjk" else " "
        sentences: list[str] = []
        length = 0
        while length < size:
            sentences.append(self.sentence())
            length += len(sentences[-1]) + len(separator)
        return separator.join(sentences)[:size]

    def sentences_of(self, text: str) -> list[str]:
        """The sentences of a fact this generator wrote."""
        if self.generator in ADVERSARIAL_GENERATORS:
            return [text[start:end] for start, end in split_sentences(text)]
        return [sentence.rstrip(".") + "." for sentence in text.split(". ")]


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
    from groundwire.contract.validation import count_tokens

    rng = random.Random(seed)
    words = _Words(rng, generator)
    facts = [Fact(words.text(fact_size), {"title": f"Source {i}"}) for i in range(fact_count)]
    answer: list[str] = []
    tokens = 0
    for _ in range(answer_sentences):
        sentence = rng.choice(words.sentences_of(rng.choice(facts).text))
        roll = rng.random()
        if roll < 0.3:
            written = sentence.split()
            written[rng.randrange(len(written))] = words.word()
            sentence = " ".join(written)
        elif roll < 0.5:
            sentence = words.sentence()
        if answer and generator != "cjk":
            sentence = " " + sentence
        cost = count_tokens(sentence)
        if max_answer_tokens is not None and tokens + cost > max_answer_tokens:
            break
        answer.append(sentence)
        tokens += cost
    return "".join(answer), facts


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
