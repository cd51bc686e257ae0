"""Terminal output from hand-built results: marks, citations, scores, and colors only on a TTY."""

from __future__ import annotations

import io
from typing import Any

from groundwire_protos.google.cloud.discoveryengine.v1.check_grounding_pb2 import (
    CheckGroundingResponse,
)
from groundwire_protos.google.cloud.discoveryengine.v1.grounded_generation_pb2 import (
    GenerateGroundedContentResponse,
)

from groundwire.cli.render import Style, render_check, render_grounding, shorten, style_for
from groundwire.contract.results import (
    CheckGroundingResult,
    Chunk,
    Claim,
    GenerateResult,
    GroundingSupport,
)
from groundwire.features.records import check_record, generate_record
from groundwire.features.stream_merge import merge_pieces

ANSWER = "東京は日本の首都です。Paris is in Germany. Thanks!"
TOKYO = Chunk(text="東京は日本の首都である。" * 10, source="0")


def claim(
    text: str,
    *,
    citations: tuple[Chunk, ...] = (),
    score: float | None = None,
    required: bool | None = True,
) -> Claim:
    start = ANSWER.index(text)
    start_byte = len(ANSWER[:start].encode())
    return Claim(
        text=text,
        start=start,
        end=start + len(text),
        start_byte=start_byte,
        end_byte=start_byte + len(text.encode()),
        start_utf16=start,
        end_utf16=start + len(text),
        citations=citations,
        citation_indices=tuple(range(len(citations))),
        score=score,
        grounding_check_required=required,
    )


RESULT = CheckGroundingResult(
    answer_candidate=ANSWER,
    support_score=0.5,
    claims=(
        claim("東京は日本の首都です。", citations=(TOKYO,), score=0.9),
        claim("Paris is in Germany.", score=0.1),
        claim("Thanks!", required=False),
    ),
    cited_chunks=(TOKYO,),
    raw=CheckGroundingResponse(),
)


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_each_claim_is_marked_supported_unsupported_or_not_checked() -> None:
    lines = render_check(RESULT, Style()).splitlines()
    assert "  ✓ 東京は日本の首都です。  score 0.90" in lines
    assert "  ✗ Paris is in Germany.  score 0.10" in lines
    assert "  · Thanks!" in lines
    assert "Support score 0.50 · 1 of 2 claims supported" in lines


def test_the_answer_shows_citation_markers_after_supported_claims() -> None:
    lines = render_check(RESULT, Style()).splitlines()
    assert lines[1] == "  東京は日本の首都です。[0]Paris is in Germany. Thanks!"


def test_citations_show_a_shortened_fact_excerpt() -> None:
    citation = next(
        line for line in render_check(RESULT, Style(), width=60).splitlines() if "facts[0]" in line
    )
    assert citation.startswith("      ↳ facts[0] “東京は日本の首都である。")
    assert citation.endswith("…”")
    assert len(citation) < 70


def test_plain_output_has_no_escape_codes_and_a_tty_gets_colors() -> None:
    assert "\x1b[" not in render_check(RESULT, style_for(io.StringIO()))
    colored = render_check(RESULT, style_for(Terminal(), environ={}))
    assert "\x1b[32m✓\x1b[0m" in colored
    assert "\x1b[31m✗\x1b[0m" in colored


def test_no_color_turns_colors_off_even_on_a_tty() -> None:
    assert not style_for(Terminal(), environ={"NO_COLOR": "1"}).color
    assert not style_for(Terminal(), environ={"TERM": "dumb"}).color


def test_the_json_record_slices_the_answer_and_names_cited_facts() -> None:
    record: dict[str, Any] = check_record(RESULT)
    for item in record["claims"]:
        assert ANSWER[item["start"] : item["end"]] == item["text"]
        assert ANSWER.encode()[item["start_byte"] : item["end_byte"]].decode() == item["text"]
    assert record["claims"][0]["citations"] == [{"fact_index": 0, "text": TOKYO.text}]
    assert [c["supported"] for c in record["claims"]] == [True, False, False]


def test_shorten_keeps_one_line() -> None:
    assert shorten("a\nb   c", 10) == "a b c"


def generated(text: str, chunks: tuple[Chunk, ...], claim_text: str) -> GenerateResult:
    support = GroundingSupport(
        claim_text=claim_text,
        start=0,
        end=len(claim_text),
        start_utf16=0,
        end_utf16=len(claim_text),
        chunks=chunks,
        chunk_indices=tuple(range(len(chunks))),
        score=0.8,
        located=False,
    )
    return GenerateResult(text, 0.8, chunks, (support,), (), raw=GenerateGroundedContentResponse())


def test_streamed_pieces_number_each_source_once() -> None:
    paris = Chunk(text="Paris is the capital of France.", source="1")
    pieces = [
        generated("Paris is ", (paris,), "Paris is the capital."),
        generated("the capital.", (paris,), "It is in France."),
    ]
    text = render_grounding(merge_pieces(pieces), Style())
    assert text.count("facts[1]") == 1
    assert "  ✓ Paris is the capital. [0]  score 0.80" in text.splitlines()


def test_a_streamed_piece_locates_supports_in_the_answer_so_far() -> None:
    piece = generated("capital.", (), "the capital.")
    support = generate_record(piece, "Paris is the capital.")["grounding_supports"][0]
    assert (support["start"], support["end"]) == (9, 21)
