"""Indexes a request's facts by sentence, so a claim meets only the sentences that share its words.

Each fact is split into sentences; a window is one to three consecutive sentences of one fact
(what a citation quotes). A sentence whose subject is a pronoun also holds the names it stands
for, and a record's title counts for each of its lines, as attributes do (:mod:`reference`).
Term weights are inverse sentence frequencies over the request's facts, so words found
everywhere (``the``, ``movie`` in a request about one film) weigh little and a claim cannot be
carried by them.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from groundwire.emulator.engine.analysis import Analysis, analyse
from groundwire.emulator.engine.caches import text_cache
from groundwire.emulator.engine.layout import strip_layout
from groundwire.emulator.engine.rarity import is_general
from groundwire.emulator.engine.reference import antecedents, record_title, surname_antecedents
from groundwire.emulator.engine.results import Fact
from groundwire.emulator.engine.sentences import split_sentences
from groundwire.emulator.engine.text import MAX_CACHED_TEXT, clear_text_caches, content_terms

MAX_WINDOW_SENTENCES = 3
"""The most consecutive sentences of one fact that a window (and so a citation) spans."""

_PREFIX_LENGTH = 5
_LONGEST_RELATED = 40
"""Longer terms are no words with endings to relate (and their prefixes would cost n²)."""
_READINGS_PER_TERM = 8
"""How many sentences holding a relation word are read to see whom the facts give it to."""
_NEGATING_ENDINGS = ("less", "free")


@dataclass(frozen=True, slots=True)
class Window:
    """Consecutive sentences ``first``..``last`` of one fact (global numbers, inclusive)."""

    fact_index: int
    first: int
    last: int

    @property
    def size(self) -> int:
        """How many sentences the window spans."""
        return self.last - self.first + 1


@dataclass(frozen=True)
class FactIndex:
    """The facts of one request, split into sentences, with an inverted index over their terms.

    Example:
        >>> index = build_index([Fact("Bees pollinate flowers. Wasps sting.")])
        >>> index.sentence_count, index.postings["bee"]
        (2, [0])
    """

    facts: tuple[Fact, ...]
    sentence_fact: list[int]
    sentence_spans: list[tuple[int, int]]
    sentence_terms: list[frozenset[str]]
    fact_first_sentence: list[int]
    attribute_terms: list[frozenset[str]]
    postings: dict[str, list[int]]
    vocabulary: list[str]
    """Every indexed word of five letters or more, sorted (to find the longer forms of one)."""
    shorter_keys: dict[str, list[str]]
    """Those words by their prefix that a longer form must share (to find the shorter forms)."""
    is_record: list[bool] = field(default_factory=list)
    """Per fact, whether it is a record of ``key: value`` lines."""
    related_cache: dict[str, tuple[str, ...]] = field(default_factory=dict)

    def said_together(self, name: frozenset[str], term: str) -> bool:
        """Whether some sentence of the facts holds ``term`` and a word of ``name``.

        Example:
            >>> index = build_index([Fact("Ada sang it. Bo read it.")])
            >>> sang = analyse("sang").tokens[0].term
            >>> index.said_together(frozenset({"ada"}), sang), index.said_together(
            ...     frozenset({"bo"}), sang)
            (True, False)
        """
        terms = self.sentence_terms
        return any(not name.isdisjoint(terms[s]) for s in self.postings.get(term, ()))

    def said_as_one(self, words: tuple[str, ...]) -> bool:
        """Whether some sentence of the facts writes ``words`` as one name (adjacent name words).

        Example:
            >>> index = build_index([Fact("Ada Kerr sang. Bo met Ada in Lund.")])
            >>> index.said_as_one(("ada", "kerr")), index.said_as_one(("ada", "lund"))
            (True, False)
        """
        if not words:
            return False
        terms = self.sentence_terms
        chosen = [s for s in self.postings.get(words[0], ()) if terms[s].issuperset(words)]
        for sentence in chosen[:_READINGS_PER_TERM]:
            tokens = analyse(strip_layout(self.sentence_text(sentence))).tokens
            run: set[str] = set()
            last = -2
            for token in tokens:
                if not token.name_like or token.numeric:
                    continue
                run = run | {token.term} if token.word_index in (last, last + 1) else {token.term}
                last = token.word_index
                if run.issuperset(words):
                    return True
        return False

    def readings_with(self, term: str) -> list[Analysis]:
        """The first few sentences of the facts that hold ``term``, read closely.

        Example:
            >>> index = build_index([Fact("Ada sang it. Bo read it.")])
            >>> [len(reading.tokens) for reading in index.readings_with("bo")]
            [3]
        """
        chosen = self.postings.get(term, ())[:_READINGS_PER_TERM]
        return [analyse(strip_layout(self.sentence_text(s))) for s in chosen]

    @property
    def sentence_count(self) -> int:
        """How many sentences the facts hold in all."""
        return len(self.sentence_terms)

    def weight(self, term: str) -> float:
        """How much a term says: high when few sentences contain it.

        A term no fact contains weighs as one found once: it is unsupported, but a rare word
        of the claim should not outweigh everything the facts do support.

        Example:
            >>> index = build_index([Fact("Rome is old."), Fact("Rome has ruins.")])
            >>> index.weight("ruin") > index.weight("rom")
            True
        """
        frequency = max(1, len(self.postings.get(term, ())))
        return math.log(1.0 + (self.sentence_count + 1) / (frequency + 1))

    def sentence_text(self, sentence: int) -> str:
        """The text of one sentence, as written in its fact.

        Example:
            >>> build_index([Fact("Rome is old. It has ruins.")]).sentence_text(1)
            'It has ruins.'
        """
        start, end = self.sentence_spans[sentence]
        return self.facts[self.sentence_fact[sentence]].text[start:end]

    def window_text(self, window: Window) -> str:
        """The text a window quotes from its fact (its sentences and what lies between them).

        Example:
            >>> build_index([Fact("Rome is old.  It has ruins.")]).window_text(Window(0, 0, 1))
            'Rome is old.  It has ruins.'
        """
        start = self.sentence_spans[window.first][0]
        end = self.sentence_spans[window.last][1]
        return self.facts[window.fact_index].text[start:end]

    def windows_around(self, sentence: int) -> list[Window]:
        """Every window of the sentence's fact that contains the sentence.

        Example:
            >>> index = build_index([Fact("A b. C d. E f.")])
            >>> [(w.first, w.last) for w in index.windows_around(0)]
            [(0, 0), (0, 1), (0, 2)]
        """
        fact_index = self.sentence_fact[sentence]
        first_of_fact = self.fact_first_sentence[fact_index]
        last_of_fact = self.fact_first_sentence[fact_index + 1] - 1
        windows = []
        for size in range(1, MAX_WINDOW_SENTENCES + 1):
            for first in range(max(first_of_fact, sentence - size + 1), sentence + 1):
                last = first + size - 1
                if last <= last_of_fact:
                    windows.append(Window(fact_index, first, last))
        return windows

    def related_terms(self, term: str) -> tuple[str, ...]:
        """Other indexed terms that are the same word with another ending.

        ``invent`` and ``inventor`` are: they share a prefix of five letters or more that is
        all of the shorter term, give or take its last letter.

        Example:
            >>> build_index([Fact("The inventor was Bell.")]).related_terms("invent")
            ('inventor',)
        """
        if not _PREFIX_LENGTH <= len(term) <= _LONGEST_RELATED or not term.isalpha():
            return ()
        known = self.related_cache.get(term)
        if known is not None:
            return known
        candidates: list[str] = []
        for length in range(_PREFIX_LENGTH, len(term)):
            candidates.extend(
                o for o in self.shorter_keys.get(term[:length], ()) if len(o) < len(term)
            )
        prefix = term[: max(_PREFIX_LENGTH, len(term) - 1)]
        position = bisect.bisect_left(self.vocabulary, prefix)
        while position < len(self.vocabulary) and self.vocabulary[position].startswith(prefix):
            if len(self.vocabulary[position]) >= len(term):
                candidates.append(self.vocabulary[position])
            position += 1
        found = tuple(sorted(o for o in set(candidates) if o != term and _same_word(term, o)))
        self.related_cache[term] = found
        return found


def build_index(facts: Sequence[Fact]) -> FactIndex:
    """Split facts into sentences and index every sentence's content terms.

    Example:
        >>> index = build_index([Fact("A."), Fact("Rome is old. It has ruins.")])
        >>> index.fact_first_sentence, index.sentence_fact
        ([0, 1, 3], [0, 1, 1])
    """
    sentence_fact: list[int] = []
    sentence_spans: list[tuple[int, int]] = []
    sentence_terms: list[frozenset[str]] = []
    fact_first_sentence: list[int] = []
    titles: list[frozenset[str]] = []
    fact_words: list[frozenset[str]] = []
    for fact_index, fact in enumerate(facts):
        fact_first_sentence.append(len(sentence_terms))
        spans, term_sets, title, words_of_fact = _fact_sentences(fact.text)
        titles.append(title)
        fact_words.append(words_of_fact)
        sentence_fact.extend([fact_index] * len(spans))
        sentence_spans.extend(spans)
        sentence_terms.extend(term_sets)
    fact_first_sentence.append(len(sentence_terms))
    postings: dict[str, list[int]] = {}
    for sentence, terms in enumerate(sentence_terms):
        for term in terms:
            postings.setdefault(term, []).append(sentence)
    attribute_terms = [
        content_terms(" ; ".join(fact.attributes.values())) | title
        for fact, title in zip(facts, titles, strict=True)
    ]
    words = sorted(set().union(*fact_words, *map(_words, attribute_terms)))
    shorter_keys: dict[str, list[str]] = {}
    for word in words:
        shorter_keys.setdefault(word[: max(_PREFIX_LENGTH, len(word) - 1)], []).append(word)
    return FactIndex(
        facts=tuple(facts),
        sentence_fact=sentence_fact,
        sentence_spans=sentence_spans,
        sentence_terms=sentence_terms,
        fact_first_sentence=fact_first_sentence,
        attribute_terms=attribute_terms,
        postings=postings,
        vocabulary=words,
        shorter_keys=shorter_keys,
        is_record=[bool(title) for title in titles],
    )


@text_cache(max_characters=8_000_000, max_key_characters=MAX_CACHED_TEXT)
def _fact_sentences(
    text: str,
) -> tuple[tuple[tuple[int, int], ...], tuple[frozenset[str], ...], frozenset[str], frozenset[str]]:
    """A fact's sentences and what each is about.

    Each sentence's terms (with the names its pronoun stands for), the terms of the record's
    title when the fact is a record, and the :func:`_words` among all of those (kept with the
    fact, so that a request does not sift its facts' terms again: 1.7 million on CJK text).
    """
    spans = tuple(split_sentences(text))
    terms = [content_terms(strip_layout(text[start:end])) for start, end in spans]
    for number, names in enumerate(antecedents(text, spans)):
        if names:
            terms[number] = terms[number] | content_terms(" ".join(names))
    for number, names in enumerate(surname_antecedents(text, spans)):
        if names:
            terms[number] = terms[number] | content_terms(" ".join(names))
    title = content_terms(record_title(text, spans))
    return spans, tuple(terms), title, _words(title.union(*terms))


def _words(terms: Iterable[str]) -> frozenset[str]:
    """The terms that may have longer or shorter forms: words of five letters or more."""
    return frozenset(term for term in terms if len(term) >= _PREFIX_LENGTH and term.isalpha())


def _same_word(term: str, other: str) -> bool:
    shorter, longer = sorted((term, other), key=len)
    common = 0
    for left, right in zip(shorter, longer, strict=False):
        if left != right:
            break
        common += 1
    if common < len(shorter) - 1 or longer[common:].endswith(_NEGATING_ENDINGS):
        return False
    return common >= _PREFIX_LENGTH


def clear_caches() -> None:
    """Forget every cached reading of text, so that the next request starts cold (benchmarks).

    Example:
        >>> clear_caches()
    """
    clear_text_caches()
    is_general.cache_clear()
    analyse.cache_clear()
    _fact_sentences.cache_clear()
