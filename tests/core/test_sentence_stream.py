"""The sentence cutter of a streamed text: whole-text offsets, each sentence once, the rules."""

from __future__ import annotations

import pytest

from groundwire.contract.errors import ConfigurationError, InvalidArgument
from groundwire.contract.offsets import offsets_in
from groundwire.contract.results import CheckGroundingResult, Claim
from groundwire.features.sentence_stream import (
    SentenceGroup,
    SentenceGroups,
    StreamTally,
    sentence_check,
)

TEXT = (
    "Dr. Chen met J. K. Rowling in 1997. 👨‍👩‍👧 家族です。「はい。」Then what? "
    "e.g. nothing.\nThe flag 🇫🇷 flew! Yes… ok. Done"
)
SENTENCES = [
    "Dr. Chen met J. K. Rowling in 1997.",
    "👨‍👩‍👧 家族です。",
    "「はい。」",
    "Then what? e.g. nothing.",
    "The flag 🇫🇷 flew!",
    "Yes… ok.",
    "Done",
]


def cut(chunks: list[str] | list[bytes], **options: int) -> list[SentenceGroup]:
    groups = SentenceGroups(**options)
    found = [group for chunk in chunks for group in groups.feed(chunk)]
    return found + groups.finish()


def byte_chunks(size: int) -> list[bytes]:
    """The text's UTF-8 in pieces of `size` bytes: characters, emoji and ends split across."""
    encoded = TEXT.encode()
    return [encoded[i : i + size] for i in range(0, len(encoded), size)]


@pytest.mark.parametrize("size", [1, 2, 3, 5, 7, 1000])
def test_chunks_splitting_characters_and_ends_give_the_same_sentences(size: int) -> None:
    groups = cut(byte_chunks(size))
    assert [group.text for group in groups] == SENTENCES


@pytest.mark.parametrize("size", [1, 3, 4])
def test_offsets_slice_the_whole_text_in_every_unit(size: int) -> None:
    utf16, utf8 = TEXT.encode("utf-16-le"), TEXT.encode()
    for group in cut(byte_chunks(size)):
        where = group.offsets
        assert TEXT[where.start : where.end] == group.text
        assert utf8[where.start_byte : where.end_byte].decode() == group.text
        assert utf16[2 * where.start_utf16 : 2 * where.end_utf16].decode("utf-16-le") == group.text


def test_str_chunks_one_character_at_a_time_match_the_whole() -> None:
    assert [g.text for g in cut(list(TEXT))] == [g.text for g in cut([TEXT])]


def test_a_sentence_is_complete_once_the_next_visible_character_arrives() -> None:
    groups = SentenceGroups()
    assert groups.feed("Paris is big. ") == []
    assert [g.text for g in groups.feed("It")] == ["Paris is big."]
    assert [g.text for g in groups.feed(" 東京。")] == []
    assert [g.text for g in groups.feed("x")] == ["It 東京。"]


def test_groups_hold_sentences_per_check_and_reach_min_chars() -> None:
    groups = cut([TEXT], sentences_per_check=2, min_chars=30)
    assert [g.sentences for g in groups] == [2, 3, 2]
    assert [s.text for g in groups for s in cut([g.text])] == SENTENCES
    assert all(len(g.text) >= 30 for g in groups[:-1])


def test_each_sentence_is_in_exactly_one_group() -> None:
    texts = [g.text for g in cut(list(TEXT), sentences_per_check=3)]
    assert sum(g.count("。") for g in texts) == TEXT.count("。")
    assert "".join("".join(texts).split()) == "".join(TEXT.split())


def test_bytes_that_are_not_utf8_are_an_invalid_argument() -> None:
    with pytest.raises(InvalidArgument, match="UTF-8"):
        cut([b"caf\xc3", b"("])
    with pytest.raises(InvalidArgument, match="UTF-8"):
        cut([b"caf\xc3"])


@pytest.mark.parametrize("options", [{"sentences_per_check": 0}, {"min_chars": -1}])
def test_bad_options_are_refused(options: dict[str, int]) -> None:
    with pytest.raises(ConfigurationError):
        SentenceGroups(**options)


def claim(text: str, start: int, score: float | None = None) -> Claim:
    return Claim(
        text, start, start + len(text), None, None, start, start + len(text), (), (), score, None
    )


def test_a_check_moves_its_claims_to_whole_text_offsets() -> None:
    text = "👋 Hi. 東京です。"
    group = SentenceGroup("東京です。", offsets_in(text, 6, 11), 1)
    result = CheckGroundingResult("東京です。", 0.9, (claim("東京です。", 0),), (), None)  # type: ignore[arg-type]
    moved = sentence_check(group, result).claims[0]
    assert text[moved.start : moved.end] == "東京です。"
    assert (moved.start_utf16, moved.start_byte) == (7, len("👋 Hi. ".encode()))


def test_the_summary_weights_scores_by_claim_length() -> None:
    tally = StreamTally(facts_characters=10)
    for text, score in (("A long claim here.", 1.0), ("No.", 0.0), ("Hm", None)):
        group = SentenceGroup(text, offsets_in(text, 0, len(text)), 1)
        result = CheckGroundingResult(text, score, (claim(text, 0),), (), None)  # type: ignore[arg-type]
        tally.add(group, sentence_check(group, result))
    summary = tally.summary()
    assert summary.support_score == pytest.approx(18 / 21)
    assert (summary.calls, summary.sentences, summary.billed_characters) == (3, 3, 23 + 30)
