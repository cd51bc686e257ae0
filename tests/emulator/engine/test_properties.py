"""Properties that hold for any answer and any facts, checked on generated examples."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from groundwire.emulator.engine import Fact, check_grounding, split_claims

WORDS = [
    "Mercury",
    "Venus",
    "orbits",
    "the",
    "Sun",
    "every",
    "88",
    "225",
    "days",
    "is",
    "not",
    "small",
    "hot",
    "planet",
    "1997",
    "December",
    "19",
    "defeated",
    "by",
    "Alice",
    "Bob",
]
sentences = st.lists(st.sampled_from(WORDS), min_size=1, max_size=9).map(
    lambda words: " ".join(words) + "."
)
texts = st.lists(sentences, min_size=1, max_size=4).map(" ".join)


@settings(max_examples=150, deadline=None)
@given(st.text(max_size=200))
def test_claims_are_byte_slices_of_any_answer_in_order(answer: str) -> None:
    encoded = answer.encode()
    claims = check_grounding(answer, [Fact("Paris is the capital of France.")]).claims
    previous_end = 0
    for claim in claims:
        assert previous_end <= claim.start_byte < claim.end_byte <= len(encoded)
        assert encoded[claim.start_byte : claim.end_byte].decode() == claim.text
        assert encoded[previous_end : claim.start_byte].decode().strip() == ""
        previous_end = claim.end_byte
    assert encoded[previous_end:].decode().strip() == ""
    assert [(c.start_byte, c.end_byte) for c in claims] == split_claims(answer)


@settings(max_examples=80, deadline=None)
@given(texts, st.lists(texts, min_size=1, max_size=4))
def test_raising_the_threshold_never_adds_a_citation(answer: str, fact_texts: list[str]) -> None:
    facts = [Fact(text) for text in fact_texts]
    previous: set[tuple[int, int]] | None = None
    for threshold in (0.0, 0.2, 0.4, 0.6, 0.8, 1.0):
        result = check_grounding(answer, facts, citation_threshold=threshold)
        cited = {
            (n, c.fact_index) for n, claim in enumerate(result.claims) for c in claim.citations
        }
        assert previous is None or cited <= previous
        previous = cited


@settings(max_examples=80, deadline=None)
@given(texts, st.lists(texts, min_size=1, max_size=4), st.floats(0.0, 1.0))
def test_grounded_means_cited_and_scored_at_or_above_the_threshold(
    answer: str, fact_texts: list[str], threshold: float
) -> None:
    result = check_grounding(answer, [Fact(t) for t in fact_texts], citation_threshold=threshold)
    for claim in result.claims:
        assert 0.0 <= claim.score <= 1.0
        assert claim.grounded == bool(claim.citations)
        if claim.grounded:
            assert claim.score >= threshold
            assert all(0 <= c.fact_index < len(fact_texts) for c in claim.citations)
            assert all(c.text in fact_texts[c.fact_index] for c in claim.citations)
