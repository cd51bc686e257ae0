"""Reads the facts once per request: their sentences, their terms, and where each term is."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import NamedTuple

from groundwire.emulator.engine.results import Fact
from groundwire.emulator.engine.rules import CACHE_FACTS
from groundwire.emulator.engine.sentences import split_sentences
from groundwire.emulator.engine.terms import NUMBER, cached_read, read, read_sentence


class FactSentence(NamedTuple):
    """One sentence of a fact: where it is in the fact's text, its terms, numbers and negation."""

    start: int
    end: int
    terms: frozenset[str]
    numbers: frozenset[str]
    negated: bool


class FactReading(NamedTuple):
    """A fact's sentences, and for each of its terms the sentences (from 0) that hold it."""

    sentences: tuple[FactSentence, ...]
    postings: dict[str, tuple[int, ...]]
    terms: frozenset[str]


@dataclass
class FactIndex:
    """Every fact sentence of a request, in order, and the sentences that hold each term.

    Example:
        >>> index = build_index([Fact("Rome is old. Rome is big.")])
        >>> index.postings["rom"]
        [0, 1]
    """

    facts: Sequence[Fact]
    sentences: list[FactSentence] = field(default_factory=list)
    sentence_fact: list[int] = field(default_factory=list)
    postings: dict[str, list[int]] = field(default_factory=dict)
    fact_sentences: list[range] = field(default_factory=list)
    fact_terms: list[frozenset[str]] = field(default_factory=list)
    attribute_terms: list[frozenset[str]] = field(default_factory=list)
    attribute_numbers: list[frozenset[str]] = field(default_factory=list)

    def window_text(self, fact_index: int, first: int, last: int) -> str:
        """The text of fact sentences ``first..last`` (inclusive), as the fact writes it."""
        text = self.facts[fact_index].text
        return text[self.sentences[first].start : self.sentences[last].end]

    def knows(self, term: str) -> bool:
        """Whether any fact, or any fact's attributes, holds the term."""
        return any(term in terms for terms in self.fact_terms)


def build_index(facts: Sequence[Fact], wanted: Collection[str] | None = None) -> FactIndex:
    """Read every fact into one index; postings are kept for the ``wanted`` terms (None: all).

    A fact's attributes count as evidence for every window of the fact.
    """
    index = FactIndex(facts)
    for fact_index, fact in enumerate(facts):
        reading = read_fact(fact.text)
        offset = len(index.sentences)
        index.sentences.extend(reading.sentences)
        index.sentence_fact.extend([fact_index] * len(reading.sentences))
        index.fact_sentences.append(range(offset, len(index.sentences)))
        kept = reading.terms if wanted is None else reading.terms.intersection(wanted)
        for term in kept:
            index.postings.setdefault(term, []).extend(offset + n for n in reading.postings[term])
        attributes = read(" . ".join(fact.attributes.values())).terms if fact.attributes else ()
        index.attribute_terms.append(frozenset(term for term, _ in attributes))
        index.attribute_numbers.append(frozenset(t for t, kind in attributes if kind == NUMBER))
        index.fact_terms.append(reading.terms | index.attribute_terms[-1])
    return index


@lru_cache(maxsize=CACHE_FACTS)
def read_fact(text: str) -> FactReading:
    """A fact's sentences and postings, cached by the fact's text."""
    sentences = []
    postings: dict[str, list[int]] = {}
    for number, (start, end) in enumerate(split_sentences(text)):
        reading = read_sentence(text[start:end])
        terms = frozenset(term for term, _ in reading.terms)
        numbers = frozenset(term for term, kind in reading.terms if kind == NUMBER)
        sentences.append(FactSentence(start, end, terms, numbers, reading.negated))
        for term in terms:
            postings.setdefault(term, []).append(number)
    return FactReading(
        tuple(sentences),
        {term: tuple(found) for term, found in postings.items()},
        frozenset(postings),
    )


def clear_caches() -> None:
    """Forget every cached reading of claims and facts (the bench's cold runs)."""
    cached_read.cache_clear()
    read_fact.cache_clear()
