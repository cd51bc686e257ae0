"""Merges a streamed generated answer's pieces into one result, by rules written down once.

The grounding metadata may come on any piece. `merge_pieces` merges pieces already read;
`StreamMerge` is the running form a UI updates piece by piece. Both follow `MERGE_RULES`.

>>> from groundwire.contract.generation import GenerateResult, GroundingSupport
>>> from groundwire.contract.chunks import Chunk
>>> paris = Chunk("Paris is the capital of France.", "0")
>>> support = GroundingSupport("Paris is the capital.", 0, 0, 0, 0, (paris,), (0,), 0.9, True)
>>> pieces = [GenerateResult("Paris is ", None, (), (), (), None),
...           GenerateResult("the capital.", 0.9, (paris,), (support,), (), None)]
>>> merged = merge_pieces(pieces)
>>> merged.text, merged.grounding_score, merged.grounding_supports[0].start
('Paris is the capital.', 0.9, 0)
"""

from __future__ import annotations

from collections.abc import AsyncIterable, Iterable
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from groundwire.contract.chunks import Chunk
from groundwire.contract.generation import Candidate, GenerateResult, placed_supports
from groundwire.contract.lazy import Given


class MergeRule(NamedTuple):
    """One rule of the merge: its name, what it does, and the test that shows it."""

    name: str
    rule: str
    test: str


MERGE_RULES = (
    MergeRule(
        "text",
        "a candidate's text is its pieces' texts joined in order, candidates kept by `index`",
        "test_the_text_is_the_pieces_joined_per_candidate",
    ),
    MergeRule(
        "metadata anywhere",
        "grounding metadata is read from every piece, not only the last",
        "test_metadata_on_an_early_piece_is_kept",
    ),
    MergeRule(
        "later replaces",
        "a later support for the same claim text (the n-th of a piece for the n-th) replaces "
        "the earlier one, in the earlier one's place",
        "test_a_later_support_for_a_claim_replaces_the_earlier",
    ),
    MergeRule(
        "chunks numbered once",
        "support chunks equal in text, source, URI, title and domain get one number, in "
        "order of first appearance; supports' chunk indices are renumbered to it",
        "test_chunks_are_numbered_once_across_pieces",
    ),
    MergeRule(
        "last score",
        "the grounding score is the last one a piece sent",
        "test_the_last_score_sent_wins",
    ),
    MergeRule(
        "placed in the whole text",
        "supports are placed by searching their claim text in the whole text, in order",
        "test_supports_are_placed_in_the_whole_text",
    ),
)
"""The merge, rule by rule; `tests/core/test_stream_merge.py` has one test per rule."""


@dataclass
class _CandidateMerge:
    index: int
    texts: list[str] = field(default_factory=list)
    score: float | None = None
    supports: dict[tuple[str, int], tuple[str, tuple[int, ...], float | None]] = field(
        default_factory=dict
    )
    queries: dict[str, None] = field(default_factory=dict)


class StreamMerge:
    """A running merge of a generated stream: `add` each piece, read `text` or `result()`.

    >>> from groundwire.contract.generation import GenerateResult
    >>> merge = StreamMerge()
    >>> merge.add(GenerateResult("Bonjour ", None, (), (), (), None))
    'Bonjour '
    >>> merge.add(GenerateResult("👋", None, (), (), (), None)), merge.text
    ('👋', 'Bonjour 👋')
    """

    def __init__(self) -> None:
        self._candidates: dict[int, _CandidateMerge] = {}
        self._chunks: dict[tuple[str, str, str, str, str], tuple[int, Chunk]] = {}
        self._raw: Any = None
        self._merged: GenerateResult | None = None

    @property
    def text(self) -> str:
        """The first candidate's text merged so far."""
        first = self._first()
        return "".join(first.texts) if first is not None else ""

    def add(self, piece: GenerateResult) -> str:
        """Merges one more piece; returns the text it adds to the first candidate."""
        self._merged = None
        self._raw = piece.raw
        added = ""
        for candidate in piece.candidates or _as_candidates(piece):
            merged = self._candidates.get(candidate.index)
            if merged is None:
                merged = self._candidates[candidate.index] = _CandidateMerge(candidate.index)
            merged.texts.append(candidate.text)
            if merged is self._first():
                added = candidate.text
            if candidate.grounding_score is not None:
                merged.score = candidate.grounding_score
            numbers = [self._number(chunk) for chunk in candidate.support_chunks]
            seen: dict[str, int] = {}
            for support in candidate.grounding_supports:
                occurrence = seen[support.claim_text] = seen.get(support.claim_text, -1) + 1
                cited = tuple(numbers[i] for i in support.chunk_indices if 0 <= i < len(numbers))
                merged.supports[(support.claim_text, occurrence)] = (
                    support.claim_text,
                    cited,
                    support.score,
                )
            merged.queries.update(dict.fromkeys(candidate.web_search_queries))
        return added

    def result(self) -> GenerateResult:
        """The merged result (see `MERGE_RULES`); its `raw` is the last piece's response."""
        if self._merged is None:
            chunks = tuple(chunk for _, chunk in self._chunks.values())
            candidates = tuple(
                self._candidate(merged, chunks)
                for _, merged in sorted(self._candidates.items(), key=lambda item: item[0])
            )
            first = self._first()
            head = next((c for c in candidates if first and c.index == first.index), None)
            self._merged = GenerateResult(
                head.text if head else "",
                head.grounding_score if head else None,
                chunks if head else (),
                head.grounding_supports if head else (),
                candidates,
                self._raw,
            )
        return self._merged

    def _first(self) -> _CandidateMerge | None:
        return next(iter(self._candidates.values()), None)

    def _number(self, chunk: Chunk) -> int:
        key = (chunk.text, chunk.source, chunk.uri, chunk.title, chunk.domain)
        found = self._chunks.get(key)
        if found is None:
            found = self._chunks[key] = (len(self._chunks), chunk)
        return found[0]

    @staticmethod
    def _candidate(merged: _CandidateMerge, chunks: tuple[Chunk, ...]) -> Candidate:
        text = "".join(merged.texts)
        supports = merged.supports.values()
        return Candidate(
            merged.index,
            text,
            merged.score,
            chunks,
            placed_supports(
                text,
                [claim_text for claim_text, _, _ in supports],
                [cited for _, cited, _ in supports],
                chunks,
                [Given(support_score=score) for _, _, score in supports],
            ),
            tuple(merged.queries),
        )


def _as_candidates(piece: GenerateResult) -> tuple[Candidate, ...]:
    """A hand-built piece with no candidates, as candidate 0."""
    return (
        Candidate(
            0,
            piece.text,
            piece.grounding_score,
            piece.support_chunks,
            piece.grounding_supports,
            (),
        ),
    )


def merge_pieces(pieces: Iterable[GenerateResult]) -> GenerateResult:
    """Merges a generated stream's pieces into one result (see `MERGE_RULES`).

    >>> merge_pieces([]).text
    ''
    """
    merge = StreamMerge()
    for piece in pieces:
        merge.add(piece)
    return merge.result()


async def merge_async_pieces(pieces: AsyncIterable[GenerateResult]) -> GenerateResult:
    """Merges the pieces of an async stream, e.g. `AsyncGroundingClient.stream_...`'s."""
    merge = StreamMerge()
    async for piece in pieces:
        merge.add(piece)
    return merge.result()
