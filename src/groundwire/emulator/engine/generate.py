"""Answers a question from facts alone, extractively, with the grounding metadata to show for it.

The emulator's stand-in for a grounded model: it picks the fact sentences that share the most
(rarity-weighted) terms with the question, most relevant first, and joins them. Each sentence
comes with the facts that support it, as :func:`check_grounding` would cite them. With no
sentence sharing a term with the question, the answer is :data:`NO_ANSWER` and cites nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from groundwire.emulator.engine.index import FactIndex, build_index
from groundwire.emulator.engine.matching import RELATED_TERM_CREDIT
from groundwire.emulator.engine.results import AnswerSupport, Fact, GeneratedAnswer
from groundwire.emulator.engine.scoring import DEFAULT_BAR, support_claim
from groundwire.emulator.engine.text import content_terms

NO_ANSWER = "I could not find an answer to that in the provided facts."
"""What the answer says when no fact sentence shares a term with the question."""


def generate_answer(
    question: str,
    facts: Sequence[Fact],
    *,
    max_sentences: int = 3,
    judge: Callable[[list[tuple[str, list[str]]]], list[list[float]]] | None = None,
) -> GeneratedAnswer:
    """Answer with up to ``max_sentences`` fact sentences, most relevant first; deterministic.

    A ``judge`` scores each sentence against the facts' texts instead of the engine.

    Example:
        >>> facts = [Fact("Paris is the capital of France."), Fact("Rome is in Italy.")]
        >>> answer = generate_answer("What is the capital of France?", facts)
        >>> answer.text, answer.supports[0].fact_indices
        ('Paris is the capital of France.', (0,))
    """
    if max_sentences < 1:
        raise ValueError(f"max_sentences must be at least 1, got {max_sentences}")
    index = build_index(facts)
    chosen = _most_relevant_sentences(question, index, max_sentences)
    if not chosen:
        return GeneratedAnswer(text=NO_ANSWER, supports=())
    passages = [fact.text for fact in facts]
    judged = [] if judge is None else judge([(sentence, passages) for sentence in chosen])
    supports: list[AnswerSupport] = []
    byte_position = 0
    for number, sentence in enumerate(chosen):
        start_byte = byte_position
        end_byte = start_byte + len(sentence.encode())
        if judge is not None:
            scores = judged[number]
            fact_indices = tuple(i for i, score in enumerate(scores) if score >= DEFAULT_BAR)
            score = max(scores, default=0.0)
        else:
            support = support_claim(sentence, index)
            fact_indices = tuple(c.fact_index for c in support.citations(index, DEFAULT_BAR))
            score = support.score
        supports.append(AnswerSupport(sentence, start_byte, end_byte, fact_indices, score))
        byte_position = end_byte + 1
    return GeneratedAnswer(text=" ".join(chosen), supports=tuple(supports))


def _most_relevant_sentences(question: str, index: FactIndex, limit: int) -> list[str]:
    asked = content_terms(question)
    variants = {term: (term, *index.related_terms(term)) for term in asked}
    ranked: list[tuple[float, int, int]] = []
    for sentence, terms in enumerate(index.sentence_terms):
        relevance = 0.0
        for term, forms in variants.items():
            if term in terms:
                relevance += index.weight(term)
            elif any(form in terms for form in forms[1:]):
                relevance += RELATED_TERM_CREDIT * index.weight(term)
        if relevance > 0:
            ranked.append((-relevance, len(terms), sentence))
    chosen: list[str] = []
    seen: set[frozenset[str]] = set()
    for _, _, sentence in sorted(ranked):
        terms = index.sentence_terms[sentence]
        if terms in seen:
            continue
        seen.add(terms)
        chosen.append(index.sentence_text(sentence))
        if len(chosen) == limit:
            break
    return chosen
