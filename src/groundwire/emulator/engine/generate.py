"""Answers a question from facts alone, extractively, with the grounding metadata to show for it.

The emulator's stand-in for a grounded model: it picks the fact sentences that hold the most
weight of the question's terms (names and numbers weigh more, as in checking), most relevant
first, and joins them. Each sentence comes with the facts that support it, as
:func:`check_grounding` would cite them. With no sentence sharing a term with the question,
the answer is :data:`NO_ANSWER` and cites nothing.
"""

from __future__ import annotations

from collections.abc import Sequence

from groundwire.emulator.engine.grounding import (
    NO_SUPPORT,
    BatchJudge,
    candidate_windows,
    judged_supports,
    support_of,
)
from groundwire.emulator.engine.index import build_index
from groundwire.emulator.engine.results import AnswerSupport, Fact, GeneratedAnswer
from groundwire.emulator.engine.rules import DEFAULT_BAR, rule_weight
from groundwire.emulator.engine.terms import NUMBER, read

NO_ANSWER = "I could not find an answer to that in the provided facts."
"""What the answer says when no fact sentence shares a term with the question."""


def generate_answer(
    question: str, facts: Sequence[Fact], *, max_sentences: int = 3, judge: BatchJudge | None = None
) -> GeneratedAnswer:
    """Answer with up to ``max_sentences`` fact sentences, most relevant first; deterministic.

    With a ``judge``, the judge scores each sentence's support, as in :func:`check_grounding`.

    Example:
        >>> facts = [Fact("Paris is the capital of France."), Fact("Rome is in Italy.")]
        >>> answer = generate_answer("What is the capital of France?", facts)
        >>> answer.text, answer.supports[0].fact_indices
        ('Paris is the capital of France.', (0,))
    """
    if max_sentences < 1:
        raise ValueError(f"max_sentences must be at least 1, got {max_sentences}")
    index = build_index(facts)
    asked = read(question)
    weights = {
        term: rule_weight("numbers") if kind == NUMBER else 1.0 for term, kind in asked.terms
    }
    ranked = []
    for number, sentence in enumerate(index.sentences):
        relevance = sum(weights.get(term, 0.0) for term in sentence.terms)
        if relevance > 0:
            ranked.append((-relevance, len(sentence.terms), number))
    chosen: list[str] = []
    seen: set[frozenset[str]] = set()
    for _, _, number in sorted(ranked):
        sentence = index.sentences[number]
        if sentence.terms not in seen and len(chosen) < max_sentences:
            seen.add(sentence.terms)
            chosen.append(index.window_text(index.sentence_fact[number], number, number))
    if not chosen:
        return GeneratedAnswer(text=NO_ANSWER, supports=())
    windows = [candidate_windows(read(text), index, vetoes=judge is None) for text in chosen]
    if judge is None:
        found = [support_of(each, index, DEFAULT_BAR) for each in windows]
    else:
        to_judge = {number: each for number, each in enumerate(windows) if each}
        judged = judged_supports(judge, chosen, to_judge, index, DEFAULT_BAR)
        found = [judged.get(number, NO_SUPPORT) for number in range(len(chosen))]
    supports: list[AnswerSupport] = []
    byte_position = 0
    for text, support in zip(chosen, found, strict=True):
        end_byte = byte_position + len(text.encode())
        fact_indices = tuple(citation.fact_index for citation in support.citations)
        supports.append(AnswerSupport(text, byte_position, end_byte, fact_indices, support.score))
        byte_position = end_byte + 1
    return GeneratedAnswer(text=" ".join(chosen), supports=tuple(supports))
