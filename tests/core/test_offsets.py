"""Claim positions: UTF-8 byte offsets become str indices and UTF-16 offsets, never wrongly."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from groundwire.contract import offsets
from groundwire.contract.offsets import (
    ClaimPosition,
    OffsetUnit,
    Span,
    resolve_byte_spans,
    resolve_spans,
)
from tests.core import eager_results

FAMILY = "👩\u200d👩\u200d👧 family"


def utf8_length(text: str) -> int:
    return len(text.encode("utf-8"))


def utf16_length(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def test_a_two_byte_letter_counts_once_in_str_indices() -> None:
    text = "Café au lait"
    cafe, au = resolve_byte_spans(text, [(0, 5, "Café"), (6, 8, "au")])
    assert text[cafe.start : cafe.end] == "Café"
    assert (au.start, au.end, au.start_byte, au.end_byte) == (5, 7, 6, 8)
    assert not cafe.adjusted
    assert not au.adjusted


def test_japanese_characters_are_three_bytes_each() -> None:
    text = "東京は日本の首都です。"
    (span,) = resolve_byte_spans(text, [(9, 15, "日本")])
    assert (span.start, span.end) == (3, 5)
    assert (span.start_utf16, span.end_utf16) == (3, 5)
    assert text[span.start : span.end] == "日本"


def test_an_emoji_zwj_sequence_is_five_code_points_and_eight_utf16_units() -> None:
    family_bytes = utf8_length("👩\u200d👩\u200d👧")
    (span,) = resolve_byte_spans(FAMILY, [(family_bytes + 1, family_bytes + 7, "family")])
    assert FAMILY[span.start : span.end] == "family"
    assert (span.start, span.end) == (6, 12)
    assert (span.start_utf16, span.end_utf16) == (9, 15)


def test_an_offset_inside_an_emoji_snaps_outward_and_is_flagged() -> None:
    (span,) = resolve_byte_spans(FAMILY, [(2, 6, "👩")])
    assert (span.start, span.end) == (0, 2)
    assert FAMILY[span.start : span.end] == "👩\u200d"
    assert span.adjusted
    assert not span.located
    assert (span.start_byte, span.end_byte) == (2, 6)


def test_an_offset_between_a_letter_and_its_combining_accent_is_kept() -> None:
    text = "e\u0301"
    (letter,) = resolve_byte_spans(text, [(0, 1, "e")])
    assert (letter.start, letter.end, letter.adjusted) == (0, 1, False)


def test_an_end_inside_a_combining_accent_snaps_to_the_end_of_the_accent() -> None:
    text = "e\u0301"
    (span,) = resolve_byte_spans(text, [(0, 2, "e\u0301")])
    assert (span.start, span.end, span.adjusted) == (0, 2, True)


def test_an_end_past_the_text_clamps_to_the_end() -> None:
    (span,) = resolve_byte_spans("Café", [(2, 99, "fé")])
    assert (span.start, span.end, span.adjusted) == (2, 4, True)


def test_a_negative_start_clamps_to_zero() -> None:
    (span,) = resolve_byte_spans("Café", [(-4, 3, "Caf")])
    assert (span.start, span.end, span.adjusted) == (0, 3, True)


def test_a_start_after_its_end_is_ignored_and_the_claim_is_searched() -> None:
    (span,) = resolve_byte_spans("Paris is in France.", [(12, 3, "France")])
    assert (span.start, span.end) == (12, 18)
    assert span.located
    assert span.adjusted


def test_omitted_positions_are_found_after_the_previous_claim() -> None:
    text = "the cat and the cat"
    first, second = resolve_byte_spans(text, [(None, None, "the cat"), (None, None, "the cat")])
    assert (first.start, first.end, second.start, second.end) == (0, 7, 12, 19)
    assert first.located
    assert second.located
    assert not first.adjusted
    assert not second.adjusted
    assert first.start_byte is None
    assert first.end_byte is None


def test_a_claim_missing_after_the_previous_one_is_searched_from_the_start() -> None:
    text = "the cat and the dog"
    _, earlier = resolve_byte_spans(text, [(12, 19, "the dog"), (None, None, "cat")])
    assert (earlier.start, earlier.end, earlier.adjusted) == (4, 7, False)


def test_a_claim_that_cannot_be_found_is_an_empty_flagged_span_at_the_previous_end() -> None:
    _, missing = resolve_byte_spans("Paris is in France.", [(0, 5, "Paris"), (None, 9, "Rome")])
    assert (missing.start, missing.end) == (5, 5)
    assert missing.located
    assert missing.adjusted


def test_a_claim_without_positions_or_text_cannot_be_placed() -> None:
    (span,) = resolve_byte_spans("Paris", [(None, None, "")])
    assert (span.start, span.end, span.located, span.adjusted) == (0, 0, True, True)


def test_spans_come_back_in_the_order_given() -> None:
    text = "one two three"
    spans = resolve_byte_spans(text, [(8, 13, "three"), (0, 3, "one"), (4, 7, "two")])
    assert [text[span.start : span.end] for span in spans] == ["three", "one", "two"]


def test_no_spans_resolve_to_an_empty_list() -> None:
    assert resolve_byte_spans("Café", []) == []


def test_the_text_is_encoded_once_however_many_claims() -> None:
    class CountingStr(str):
        encodings = 0

        def encode(self, encoding: str = "utf-8", errors: str = "strict") -> bytes:
            CountingStr.encodings += 1
            return super().encode(encoding, errors)

    text = CountingStr("東京は日本の首都です。" * 100)
    spans = [(index * 3, index * 3 + 6, "") for index in range(50)]
    resolve_byte_spans(text, spans)
    assert CountingStr.encodings == 1


def test_code_point_offsets_need_no_snapping() -> None:
    (span,) = resolve_spans(FAMILY, [(6, 12, "family")], unit="codepoint")
    assert (span.start, span.end, span.start_utf16, span.adjusted) == (6, 12, 9, False)


def test_utf16_offsets_inside_a_surrogate_pair_snap_outward() -> None:
    (span,) = resolve_spans("a😀b", [(2, 3, "😀")], unit="utf16")
    assert (span.start, span.end, span.start_utf16, span.end_utf16) == (1, 2, 1, 3)
    assert span.adjusted


def test_utf16_offsets_map_back_to_str_indices() -> None:
    (span,) = resolve_spans(FAMILY, [(9, 15, "family")], unit="utf16")
    assert (span.start, span.end, span.adjusted) == (6, 12, False)


def test_span_is_immutable() -> None:
    (span,) = resolve_byte_spans("Café", [(0, 5, "Café")])
    with pytest.raises(AttributeError):
        span.start = 1  # type: ignore[misc]


PIECES = st.one_of(
    st.characters(exclude_categories=["Cs"]),
    st.sampled_from(["東京", "👩\u200d👩\u200d👧", "e\u0301", "😀", "é", " ", "ß", "\U0010ffff"]),
)
TEXTS = st.lists(PIECES, max_size=40).map("".join)


@st.composite
def text_and_character_boundaries(draw: st.DrawFn) -> tuple[str, list[tuple[int, int]]]:
    text = draw(TEXTS)
    index = st.integers(0, len(text))
    pairs = draw(st.lists(st.tuples(index, index).map(sorted), max_size=8))
    return text, [(start, end) for start, end in pairs]


@st.composite
def text_and_byte_offsets(draw: st.DrawFn) -> tuple[str, list[tuple[int, int]]]:
    text = draw(TEXTS)
    offset = st.integers(0, utf8_length(text))
    pairs = draw(st.lists(st.tuples(offset, offset).map(sorted), min_size=1, max_size=8))
    return text, [(start, end) for start, end in pairs]


@given(text_and_character_boundaries())
def test_byte_offsets_on_character_starts_slice_the_same_text(
    case: tuple[str, list[tuple[int, int]]],
) -> None:
    text, pairs = case
    encoded = text.encode("utf-8")
    byte_pairs = [(utf8_length(text[:start]), utf8_length(text[:end])) for start, end in pairs]
    spans = resolve_byte_spans(text, [(start, end, "") for start, end in byte_pairs])
    for (start_byte, end_byte), span in zip(byte_pairs, spans, strict=True):
        assert encoded[start_byte:end_byte].decode("utf-8") == text[span.start : span.end]
        assert span.start_utf16 == utf16_length(text[: span.start])
        assert span.end_utf16 == utf16_length(text[: span.end])
        assert not span.adjusted
        assert not span.located


@given(text_and_byte_offsets())
def test_any_byte_offsets_give_the_smallest_whole_character_span_covering_them(
    case: tuple[str, list[tuple[int, int]]],
) -> None:
    text, pairs = case
    encoded = text.encode("utf-8")
    starts = {utf8_length(text[:index]) for index in range(len(text) + 1)}
    for (start_byte, end_byte), span in zip(
        pairs, resolve_byte_spans(text, [(s, e, "") for s, e in pairs]), strict=True
    ):
        covered_start, covered_end = utf8_length(text[: span.start]), utf8_length(text[: span.end])
        assert covered_start == max(b for b in starts if b <= start_byte)
        assert covered_end == min(b for b in starts if b >= end_byte)
        assert span.adjusted == (start_byte not in starts or end_byte not in starts)
        assert encoded[start_byte:end_byte] in text[span.start : span.end].encode("utf-8")


@given(text_and_character_boundaries())
def test_utf16_offsets_round_trip_through_str_indices(
    case: tuple[str, list[tuple[int, int]]],
) -> None:
    text, pairs = case
    utf16_pairs = [(utf16_length(text[:start]), utf16_length(text[:end])) for start, end in pairs]
    spans = resolve_spans(text, [(start, end, "") for start, end in utf16_pairs], unit="utf16")
    for (start, end), span in zip(pairs, spans, strict=True):
        assert (span.start, span.end, span.adjusted) == (start, end, False)


@given(TEXTS, st.data())
def test_searched_claims_are_found_where_they_occur(text: str, data: st.DataObject) -> None:
    start = data.draw(st.integers(0, len(text)))
    end = data.draw(st.integers(start, len(text)))
    claim = text[start:end]
    (span,) = resolve_byte_spans(text, [(None, None, claim)])
    assert text[span.start : span.end] == claim
    assert span.located
    assert span.adjusted == (not claim)


def test_every_span_field_is_set() -> None:
    (span,) = resolve_byte_spans("ab", [(0, 1, "a")])
    assert span == Span(0, 1, 0, 1, 0, 1, adjusted=False, located=False)


MIXED_TEXTS = st.lists(
    st.sampled_from(["a", " ", "é", "東", "😀", "e\u0301", "\x80"]) | PIECES, max_size=25
)


@st.composite
def text_and_any_positions(draw: st.DrawFn) -> tuple[str, OffsetUnit, list[ClaimPosition]]:
    """Positions a server might send, in any unit: on boundaries, one off, anywhere, or none."""
    text = "".join(draw(MIXED_TEXTS))
    unit: OffsetUnit = draw(st.sampled_from(["utf8", "codepoint", "utf16"]))
    width = {
        "utf8": utf8_length,
        "codepoint": len,
        "utf16": utf16_length,
    }[unit]
    starts = [width(text[:index]) for index in range(len(text) + 1)]
    on_boundary = st.sampled_from(starts)
    position = (
        on_boundary
        | on_boundary.map(lambda start: start - 1)
        | on_boundary.map(lambda start: start + 1)
        | st.integers(-2, starts[-1] + 2)
        | st.none()
    )
    claim = st.sampled_from([text[index:] for index in range(len(text) + 1)]) | st.text(max_size=3)
    spans: list[ClaimPosition] = []
    previous = 0
    for _claim in range(draw(st.integers(0, 8))):
        # Ends just before their start, and starts just before the previous end, are the
        # edges of the in-order fast path: draw them often.
        start = draw(position | st.just(previous - 1) | st.just(previous))
        nearby = [start - 1, start, start + 1] if start is not None else [0]
        end = draw(position | st.sampled_from(nearby))
        spans.append((start, end, draw(claim)))
        previous = end if end is not None else previous
    return text, unit, spans


@settings(max_examples=1000, deadline=None)
@given(text_and_any_positions())
def test_claims_are_placed_exactly_as_the_eager_walk_placed_them(
    case: tuple[str, OffsetUnit, list[ClaimPosition]],
) -> None:
    text, unit, spans = case
    placed = [
        (
            s.start,
            s.end,
            s.start_byte,
            s.end_byte,
            s.start_utf16,
            s.end_utf16,
            s.adjusted,
            s.located,
        )
        for s in resolve_spans(text, spans, unit)
    ]
    assert placed == eager_results.resolve_spans(text, spans, unit)


def test_positions_that_fit_never_take_the_general_path(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*arguments: object) -> None:
        raise AssertionError("the general path was taken")

    monkeypatch.setattr(offsets, "_place_by_rules", refuse)
    text = "東京は日本の首都です。 Paris"
    in_order = resolve_byte_spans(text, [(0, 6, "東京"), (9, 15, "日本"), (34, 39, "Paris")])
    assert [(s.start, s.end) for s in in_order] == [(0, 2), (3, 5), (12, 17)]
    overlapping = resolve_byte_spans(text, [(9, 15, "日本"), (0, 12, "東京は日")])
    assert [(s.start, s.end) for s in overlapping] == [(3, 5), (0, 4)]
    assert resolve_spans("Paris", [(0, 5, "Paris")], unit="codepoint")[0].end == 5
    assert resolve_byte_spans("Paris", [(0, 5, "Paris")])[0].end == 5


def test_a_position_that_needs_a_rule_takes_the_general_path(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    general = offsets._place_by_rules
    taken: list[str] = []

    def spy(text: str, *arguments: Any) -> offsets.Placement:
        taken.append(text)
        return general(text, *arguments)

    monkeypatch.setattr(offsets, "_place_by_rules", spy)
    for claim in [
        (1, 6, "東京"),
        (0, 99, "東京"),
        (-1, 6, "東京"),
        (None, 6, "東京"),
        (6, 0, "京"),
    ]:
        resolve_byte_spans("東京", [claim])
    resolve_byte_spans("ab", [(2, 1, "b")])
    assert len(taken) == 6
