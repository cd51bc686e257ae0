"""The merge of a generated stream's pieces: one test per rule of `MERGE_RULES`, then live."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from groundwire.contract.chunks import Chunk
from groundwire.contract.generation import Candidate, GenerateResult, GroundingSupport
from groundwire.contract.offsets import offsets_in
from groundwire.emulator import Emulator
from groundwire.features.stream_merge import (
    MERGE_RULES,
    StreamMerge,
    merge_async_pieces,
    merge_pieces,
)

PARIS = Chunk("Paris is the capital of France.", "0")
SEINE = Chunk("The Seine flows through Paris.", "1")


def support(claim: str, indices: tuple[int, ...], score: float | None) -> GroundingSupport:
    return GroundingSupport(claim, 0, 0, 0, 0, (), indices, score, True)


def piece(
    text: str,
    chunks: tuple[Chunk, ...] = (),
    supports: tuple[GroundingSupport, ...] = (),
    score: float | None = None,
    index: int = 0,
) -> GenerateResult:
    candidate = Candidate(index, text, score, chunks, supports, ())
    return GenerateResult(text, score, chunks, supports, (candidate,), None)  # type: ignore[arg-type]


def test_every_rule_names_its_test() -> None:
    names = set(globals())
    assert [rule.test for rule in MERGE_RULES if rule.test not in names] == []


def test_the_text_is_the_pieces_joined_per_candidate() -> None:
    merged = merge_pieces(
        [piece("東京は", index=0), piece("Other ", index=1), piece("首都です。😀", index=0)]
    )
    assert merged.text == "東京は首都です。😀"
    assert [c.text for c in merged.candidates] == ["東京は首都です。😀", "Other "]


def test_metadata_on_an_early_piece_is_kept() -> None:
    merged = merge_pieces(
        [
            piece(
                "Paris is the capital.", (PARIS,), (support("Paris is the capital.", (0,), 0.9),)
            ),
            piece(" More text."),
        ]
    )
    assert merged.support_chunks == (PARIS,)
    assert [(s.claim_text, s.chunk_indices) for s in merged.grounding_supports] == [
        ("Paris is the capital.", (0,))
    ]


def test_a_later_support_for_a_claim_replaces_the_earlier() -> None:
    merged = merge_pieces(
        [
            piece(
                "Paris is the capital. ", (PARIS,), (support("Paris is the capital.", (0,), 0.4),)
            ),
            piece("Seine.", (SEINE,), (support("Paris is the capital.", (0,), 0.8),)),
        ]
    )
    assert len(merged.grounding_supports) == 1
    only = merged.grounding_supports[0]
    assert (only.score, only.chunks) == (0.8, (SEINE,))


def test_chunks_are_numbered_once_across_pieces() -> None:
    merged = merge_pieces(
        [
            piece("A. ", (PARIS,), (support("A.", (0,), None),)),
            piece("B. ", (SEINE, PARIS), (support("B.", (0, 1), None),)),
            piece("C.", (PARIS,), (support("C.", (0,), None),)),
        ]
    )
    assert merged.support_chunks == (PARIS, SEINE)
    assert [s.chunk_indices for s in merged.grounding_supports] == [(0,), (1, 0), (0,)]


def test_the_last_score_sent_wins() -> None:
    assert (
        merge_pieces([piece("a", score=0.2), piece("b", score=0.7), piece("c")]).grounding_score
        == 0.7
    )


def test_supports_are_placed_in_the_whole_text() -> None:
    text = "👋 東京は首都です。 Paris is the capital."
    merged = merge_pieces(
        [
            piece("👋 東京は首"),
            piece("都です。 Paris is", (PARIS,)),
            piece(
                " the capital.",
                (PARIS,),
                (
                    support("東京は首都です。", (0,), 0.5),
                    support("Paris is the capital.", (0,), 0.9),
                ),
            ),
        ]
    )
    assert merged.text == text
    first, second = merged.grounding_supports
    assert text[first.start : first.end] == "東京は首都です。"
    assert text[second.start : second.end] == "Paris is the capital."
    assert (second.start_utf16, second.end_utf16) == (second.start + 1, second.end + 1)
    assert offsets_in(text, second.start, second.end).start_byte == len(
        text[: second.start].encode()
    )


def test_a_running_merge_reports_what_each_piece_adds() -> None:
    merge = StreamMerge()
    assert [merge.add(piece(t)) for t in ("Bon", "jour ", "👋")] == ["Bon", "jour ", "👋"]
    assert merge.text == "Bonjour 👋"
    assert merge.result().text == "Bonjour 👋"


FACTS = ["東京は日本の首都です。", "Paris is the capital of France 🇫🇷."]


def _check_live(merged: GenerateResult, pieces: list[GenerateResult]) -> None:
    assert len(pieces) > 1
    assert merged.text == "".join(p.text for p in pieces)
    assert merged.grounding_supports
    for found in merged.grounding_supports:
        assert merged.text[found.start : found.end] == found.claim_text
        assert all(0 <= i < len(merged.support_chunks) for i in found.chunk_indices)
    keys = [(c.text, c.source) for c in merged.support_chunks]
    assert len(keys) == len(set(keys))
    assert merged.grounding_score == pieces[-1].grounding_score


@pytest.mark.parametrize("transport", ["grpc", "rest"])
def test_a_live_stream_merges_over_each_transport(
    grounding_emulator: Emulator, transport: str
) -> None:
    with grounding_emulator.client(transport=transport) as client:
        pieces = list(
            client.stream_generate_grounded_content("東京は首都ですか? Paris?", facts=FACTS)
        )
    _check_live(merge_pieces(pieces), pieces)


@pytest.mark.parametrize("transport", ["grpc", "rest"])
async def test_a_live_async_stream_merges_over_each_transport(
    grounding_emulator: Emulator, transport: str
) -> None:
    async with grounding_emulator.async_client(transport=transport) as client:
        pieces = [
            p
            async for p in client.stream_generate_grounded_content(
                "東京は首都ですか? Paris?", facts=FACTS
            )
        ]
        merged = await merge_async_pieces(_replay(pieces))
    _check_live(merged, pieces)


async def _replay(pieces: list[GenerateResult]) -> AsyncIterator[GenerateResult]:
    for each in pieces:
        yield each
