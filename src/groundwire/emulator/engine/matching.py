"""A claim's terms as bits, so that finding and scoring the windows that cover it is cheap.

Coverage is the share of the claim's term weight (rarity over the request's facts) that a
window contains; a term found only with another ending counts ``RELATED_TERM_CREDIT``. The
fact's attributes (author, title, uri) count as part of each of its windows. The matcher also
counts the claim's added details: specific words (:mod:`rarity`) that no fact holds.
"""

from __future__ import annotations

import heapq
import operator
from collections.abc import Sequence
from dataclasses import dataclass

from groundwire.emulator.engine.analysis import Analysis, Token, analyse, may_negate
from groundwire.emulator.engine.checks import OPPOSABLE_TERMS, negated_base
from groundwire.emulator.engine.index import FactIndex, Window
from groundwire.emulator.engine.rarity import specific_terms
from groundwire.emulator.engine.relations import compares
from groundwire.emulator.engine.text import TOKEN_PATTERN

RELATED_TERM_CREDIT = 0.8
_CANDIDATE_SENTENCES = 16
_COMMON_TERM_MIN = 50
_COMMON_TERM_SHARE = 100
_NAME_SAMPLES = 32


@dataclass(frozen=True, slots=True)
class ScoredWindow:
    """A window and how much of the claim it holds.

    The claim terms it holds (exactly, and only with another ending) as bits, and the share
    of the claim's weight they cover.
    """

    window: Window
    exact: int
    related: int
    coverage: float


class ClaimMatcher:
    """A claim's terms as bits, so that covering a window is OR-ing a few integers."""

    def __init__(
        self, claim: Analysis, index: FactIndex, named_facts: frozenset[int] = frozenset()
    ) -> None:
        self.claim = claim
        self.index = index
        self.named_facts = named_facts
        """The facts the claim names as its sources (``(Passage 2)``), if any."""
        self.terms = list(dict.fromkeys(token.term for token in claim.content_tokens))
        self.weights = [index.weight(term) for term in self.terms]
        self.total = sum(self.weights)
        self.related = [index.related_terms(term) for term in self.terms]
        self._exact_bits = {term: 1 << bit for bit, term in enumerate(self.terms)}
        self._related_bits: dict[str, int] = {}
        for bit, others in enumerate(self.related):
            for other in others:
                self._related_bits[other] = self._related_bits.get(other, 0) | 1 << bit
        self._sentence_masks: dict[int, tuple[int, int]] = {}
        self._named_by_last_word: dict[tuple[str, ...], bool] = {}
        self.added_details = self._added_details()
        self._claim_needs_readings = (
            bool(claim.negated_clauses)
            or sum(token.name_like for token in claim.tokens) >= 2
            or any(
                token.term in OPPOSABLE_TERMS or negated_base(token.term) for token in claim.tokens
            )
            or any(token.numeric for token in claim.tokens)
            or compares(claim)
        )

    def _added_details(self) -> int:
        """How many specific words of the claim no fact holds in any form (:mod:`rarity`)."""
        found = self.index.postings
        attributes = self.index.attribute_terms
        novel = frozenset(
            term
            for bit, term in enumerate(self.terms)
            if term not in found
            and not self.related[bit]
            and not any(term in terms for terms in attributes)
        )
        return len(specific_terms(self.claim, novel)) if novel else 0

    def named_by_last_word(self, name: tuple[str, ...]) -> bool:
        """Whether this name's last word names it alone in these facts.

        It does when some fact sentence writes the name whole, in this order, and no fact
        writes that last word after another name word (``Marie Curie`` against ``Pierre
        Curie``: then ``Curie`` alone is ambiguous). Then a passage that holds only the last
        word (``Glanz`` for ``Sheriff Stanley Glanz``) still names it. Computed once per
        name, over a bounded number of sentences.
        """
        known = self._named_by_last_word.get(name)
        if known is not None:
            return known
        texts = [
            self.index.sentence_text(sentence)
            for sentence in self.index.postings.get(name[-1], ())[:_NAME_SAMPLES]
        ]
        readings = [analyse(text).content_tokens for text in texts]
        whole = any(_holds_run([t.term for t in tokens], name) for tokens in readings)
        found = whole and not any(
            _after_other_name(text, tokens, name)
            for text, tokens in zip(texts, readings, strict=True)
        )
        self._named_by_last_word[name] = found
        return found

    def bits(self, terms: Sequence[str]) -> int:
        """The bits of some of the claim's terms."""
        mask = 0
        for term in terms:
            mask |= self._exact_bits.get(term, 0)
        return mask

    def masks(self, terms: frozenset[str]) -> tuple[int, int]:
        """The claim terms found in a set of terms: exactly, and only with another ending."""
        exact = related = 0
        for term in terms.intersection(self._exact_bits):
            exact |= self._exact_bits[term]
        for term in terms.intersection(self._related_bits):
            related |= self._related_bits[term]
        return exact, related & ~exact

    def needs_readings(self, evidence_texts: Sequence[str]) -> bool:
        """Whether the checks that read sentences closely could object.

        They could when the claim has a negation, names, a quantity or a word with an
        opposite, or when the evidence may negate.
        """
        return self._claim_needs_readings or any(may_negate(text) for text in evidence_texts)

    def has_idle_edge(self, window: Window) -> bool:
        """Whether the first or last sentence adds none of the claim's terms to the rest.

        Then the smaller window covers as much, and is the better citation.
        """
        masks = [self.sentence_masks(s) for s in range(window.first, window.last + 1)]
        merged = [exact | related for exact, related in masks]
        inner_first = _union(merged[1:])
        inner_last = _union(merged[:-1])
        return merged[0] & ~inner_first == 0 or merged[-1] & ~inner_last == 0

    def sentence_masks(self, sentence: int) -> tuple[int, int]:
        """The masks of one indexed sentence, computed once."""
        if sentence not in self._sentence_masks:
            self._sentence_masks[sentence] = self.masks(self.index.sentence_terms[sentence])
        return self._sentence_masks[sentence]

    def coverage(self, exact: int, related: int) -> float:
        """The share of the claim's term weight that the masks cover."""
        found = 0.0
        for bit, weight in enumerate(self.weights):
            if exact >> bit & 1:
                found += weight
            elif related >> bit & 1:
                found += RELATED_TERM_CREDIT * weight
        return found / self.total if self.total else 0.0

    def score_window(self, window: Window) -> ScoredWindow:
        """A window's masks and coverage, its fact's attributes included."""
        exact, related = self.masks(self.index.attribute_terms[window.fact_index])
        for sentence in range(window.first, window.last + 1):
            sentence_exact, sentence_related = self.sentence_masks(sentence)
            exact, related = exact | sentence_exact, related | sentence_related
        return ScoredWindow(window, exact, related, self.coverage(exact, related))

    def candidate_sentences(self) -> list[int]:
        """Sentences sharing the claim's rarer terms, best first.

        A term found in more than a small share of sentences only gathers candidates when no
        rarer term has any.
        """
        postings = self.index.postings
        common = max(_COMMON_TERM_MIN, self.index.sentence_count // _COMMON_TERM_SHARE)
        scores: dict[int, float] = {}
        variants = [
            (variant, self.weights[bit] * (1.0 if variant == term else RELATED_TERM_CREDIT))
            for bit, term in enumerate(self.terms)
            for variant in (term, *self.related[bit])
            if variant in postings
        ]
        variants.sort(key=lambda variant: (len(postings[variant[0]]), variant[0]))
        used = 0
        for variant, gain in variants:
            sentences = postings[variant]
            if len(sentences) > common and scores:
                break
            used += 1
            if used == 1:
                scores = dict.fromkeys(sentences, gain)
                continue
            for sentence in sentences:
                scores[sentence] = scores.get(sentence, 0.0) + gain
        if used == 1:  # all scored alike: the earliest sentences
            return postings[variants[0][0]][:_CANDIDATE_SENTENCES]
        # Tuples compare in C: no key function called per sentence (ties: the earlier sentence).
        ranked = zip(scores.values(), map(operator.neg, scores), strict=True)
        return [-negated for _, negated in heapq.nlargest(_CANDIDATE_SENTENCES, ranked)]


def _union(masks: Sequence[int]) -> int:
    merged = 0
    for mask in masks:
        merged |= mask
    return merged


def _holds_run(terms: Sequence[str], run: tuple[str, ...]) -> bool:
    """Whether ``run`` appears in ``terms`` as consecutive items."""
    width = len(run)
    return any(tuple(terms[i : i + width]) == run for i in range(len(terms) - width + 1))


def _after_other_name(text: str, tokens: Sequence[Token], name: tuple[str, ...]) -> bool:
    """Whether the sentence writes the name's last word right after a word of another name.

    Right after: the next word, with nothing but space between (``Pierre Curie``; not ``On
    Monday, Curie``).
    """
    words = TOKEN_PATTERN.finditer(text)
    spans = [(match.start(), match.end()) for match in words]
    for place in range(1, len(tokens)):
        token, before = tokens[place], tokens[place - 1]
        if token.term != name[-1] or not before.name_like:
            continue
        if before.term in name or before.word_index != token.word_index - 1:
            continue
        gap = text[spans[before.word_index][1] : spans[token.word_index][0]]
        if not gap.strip():
            return True
    return False
