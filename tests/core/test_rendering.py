"""Citation markers and highlights land on character boundaries and change nothing else."""

from __future__ import annotations

import html
import re
import unicodedata
from html.parser import HTMLParser
from itertools import pairwise
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from groundwire import InvalidArgument
from groundwire.contract.apis import method
from groundwire.contract.graphemes import cluster_end, cluster_start, is_cluster_boundary
from groundwire.contract.rendering import (
    ClaimSpan,
    Utf16Span,
    insert_markers,
    to_html,
    to_markdown,
    utf16_spans,
)
from groundwire.contract.results import (
    CheckGroundingResult,
    Chunk,
    CorroboratedClaim,
    CorroborationResult,
    GenerateResult,
    GroundingSupport,
    check_grounding_result,
    corroboration_result,
    generate_result,
)

FAMILY = "👩\u200d👩\u200d👧"  # woman ZWJ woman ZWJ girl: one cluster of 5 code points
THUMBS_MEDIUM = "👍🏽"  # emoji + skin-tone modifier
HEART = "❤\ufe0f"  # emoji + variation selector 16
KEYCAP_ONE = "1\ufe0f\u20e3"  # digit + VS16 + combining enclosing keycap (Me)
E_ACUTE = "e\u0301"  # letter + combining acute accent (Mn)
KI = "\u0915\u093f"  # Devanagari KA + vowel sign I, a spacing mark (Mc)
JAPAN, FRANCE = "🇯🇵", "🇫🇷"  # regional-indicator pairs
ENGLAND = "🏴\U000e0067\U000e0062\U000e0065\U000e006e\U000e0067\U000e007f"  # tag sequence
HANGUL_JAMO = "\u1100\u1161\u11a8"  # L V T: one syllable, spelled in conjoining jamo
HANGUL_LV_T = "\uac00\u11a8"  # precomposed LV syllable + trailing consonant

CLUSTERS = [FAMILY, THUMBS_MEDIUM, HEART, KEYCAP_ONE, E_ACUTE, KI, JAPAN, ENGLAND]
CLUSTERS += [HANGUL_JAMO, HANGUL_LV_T, "\r\n"]


# -- grapheme clusters ----------------------------------------------------------------------------


@pytest.mark.parametrize("cluster", CLUSTERS, ids=ascii)
def test_no_index_inside_a_cluster_is_a_boundary(cluster: str) -> None:
    text = f"a{cluster}b"
    inside = range(2, 1 + len(cluster))
    assert [is_cluster_boundary(text, index) for index in inside] == [False] * len(inside)
    assert is_cluster_boundary(text, 1)
    assert is_cluster_boundary(text, 1 + len(cluster))


@pytest.mark.parametrize("cluster", CLUSTERS, ids=ascii)
def test_an_index_inside_a_cluster_moves_to_its_ends(cluster: str) -> None:
    text = f"a{cluster}b"
    for index in range(2, 1 + len(cluster)):
        assert cluster_end(text, index) == 1 + len(cluster)
        assert cluster_start(text, index) == 1


def test_flags_pair_their_regional_indicators_from_the_left() -> None:
    flags = JAPAN + FRANCE + "🇩"  # two flags and one lone indicator
    assert [is_cluster_boundary(flags, index) for index in range(6)] == [
        True,
        False,
        True,
        False,
        True,
        True,
    ]


def test_a_zwj_between_letters_does_not_join_them() -> None:
    assert is_cluster_boundary("a\u200db", 2)
    assert not is_cluster_boundary("a\u200db", 1)


def test_a_combining_mark_after_a_line_break_starts_its_own_cluster() -> None:
    assert is_cluster_boundary("\n\u0301", 1)


def test_hangul_syllables_that_cannot_join_stay_apart() -> None:
    assert is_cluster_boundary("\u11a8\u1100", 1)  # trailing consonant, then a leading one
    assert is_cluster_boundary("가나", 1)  # two precomposed syllables


# -- markers ----------------------------------------------------------------------------------


def test_a_claim_citing_chunks_0_and_2_gets_markers_1_and_3_after_its_end() -> None:
    assert insert_markers("Tokyo. Rome.", [ClaimSpan(0, 6, (0, 2))]) == "Tokyo.[1][3] Rome."


def test_a_chunk_cited_twice_by_one_claim_is_marked_once() -> None:
    assert insert_markers("Tokyo.", [ClaimSpan(0, 6, (1, 1, 0))]) == "Tokyo.[2][1]"


def test_the_marker_format_is_the_callers() -> None:
    spans = [ClaimSpan(0, 2, (0,)), ClaimSpan(3, 5, (1,))]
    assert (
        insert_markers("東京 大阪", spans, "<sup>{n}</sup>") == "東京<sup>1</sup> 大阪<sup>2</sup>"
    )


def test_claims_ending_at_the_same_place_keep_their_order() -> None:
    spans = [ClaimSpan(0, 3, (1,)), ClaimSpan(2, 3, (0,))]
    assert insert_markers("abc", spans) == "abc[2][1]"


@pytest.mark.parametrize("cluster", CLUSTERS, ids=ascii)
def test_a_claim_ending_inside_a_cluster_gets_its_marker_after_the_cluster(cluster: str) -> None:
    text = f"x {cluster} y"
    for end in range(3, 2 + len(cluster)):
        assert insert_markers(text, [ClaimSpan(0, end, (0,))]) == f"x {cluster}[1] y"


def test_uncited_and_empty_claims_get_no_marker() -> None:
    spans = [ClaimSpan(0, 3, ()), ClaimSpan(4, 4, (0,))]
    assert insert_markers("abc def", spans) == "abc def"


@pytest.mark.parametrize("marker", ["[{index}]", "[{}]", "[{n", "{n.real.x}", "{n[0]}"])
def test_a_marker_with_another_placeholder_is_an_invalid_argument(marker: str) -> None:
    with pytest.raises(InvalidArgument, match="only placeholder is"):
        insert_markers("abc", [ClaimSpan(0, 3, (0,))], marker)


# -- HTML and Markdown ------------------------------------------------------------------------


def test_html_escapes_the_text_and_marks_each_claim() -> None:
    text = 'x < y & "z". Unsupported. Hi!'
    spans = [ClaimSpan(0, 12, (0,)), ClaimSpan(13, 25, (), True), ClaimSpan(26, 29, ())]
    assert to_html(text, spans) == (
        '<mark data-claim="0">x &lt; y &amp; &quot;z&quot;.</mark>[1] '
        '<mark class="unsupported" data-claim="1">Unsupported.</mark> '
        '<span data-claim="2">Hi!</span>'
    )


def test_html_overlapping_claims_nest_as_one_element_naming_both() -> None:
    spans = [ClaimSpan(0, 4, (0,)), ClaimSpan(2, 6, (1,))]
    assert to_html("abcdef", spans) == (
        '<mark data-claim="0">ab</mark><mark data-claim="0 1">cd</mark>[1]'
        '<mark data-claim="1">ef</mark>[2]'
    )


def test_markdown_escapes_inline_syntax_everywhere_and_block_syntax_at_line_starts() -> None:
    text = "# 1. *a* [b](c) <d> x|y ~z~ a_b `c` &amp; !\n- e\n2) f - g"
    assert to_markdown(text, []) == (
        "\\# 1. \\*a\\* \\[b\\](c) \\<d\\> x\\|y \\~z\\~ a\\_b \\`c\\` \\&amp; \\!\n"
        "\\- e\n2\\) f - g"
    )


def test_markdown_emphasis_sits_inside_the_claims_punctuation() -> None:
    spans = [ClaimSpan(0, 8, (0,)), ClaimSpan(8, 15, (), True)]
    assert (
        to_markdown("東京は首都です。大阪は大きい。", spans)
        == "**東京は首都です**。[1]*大阪は大きい*。"
    )


def test_markdown_emphasis_never_spans_a_line_break() -> None:
    assert to_markdown("one\n\ntwo", [ClaimSpan(0, 8, (0,))]) == "**one**\n\n**two**[1]"


def test_markdown_touching_claims_of_one_style_are_one_bold_stretch() -> None:
    spans = [ClaimSpan(0, 2, (), True), ClaimSpan(2, 4, (), True)]
    assert to_markdown("東京大阪", spans) == "*東京大阪*"


_MARKDOWN = MarkdownIt("commonmark")
_STRONG_OR_EM = re.compile(r"</?(strong|em)>")


def _rendered_emphasis(markdown: str) -> list[str]:
    """What CommonMark puts in bold and italics, in order, as text."""
    rendered = _MARKDOWN.renderInline(markdown)
    found = re.findall(r"<(strong|em)>(.*?)</\1>", rendered)
    return [f"{kind}:{html.unescape(_STRONG_OR_EM.sub('', inner))}" for kind, inner in found]


def test_commonmark_reads_the_emphasis_where_the_claims_are() -> None:
    text = "東京は首都です。大阪は「大きい」。*Stars* & <tags>!"
    spans = [ClaimSpan(0, 8, (0,)), ClaimSpan(8, 17, (), True), ClaimSpan(17, 33, (1,))]
    assert _rendered_emphasis(to_markdown(text, spans)) == [
        "strong:東京は首都です",
        "em:大阪は「大きい",
        "strong:Stars* & <tags",
    ]


# -- results ----------------------------------------------------------------------------------


def _check_result(
    answer: str, claims: list[tuple[int, int, list[int]]], chunks: int
) -> CheckGroundingResult:
    response: Any = method("discoveryengine", "v1", "CheckGrounding").response_class()
    for start, end, cited in claims:
        encoded = answer.encode()
        text = encoded[start:end].decode(errors="ignore")
        response.claims.add(start_pos=start, end_pos=end, claim_text=text, citation_indices=cited)
    for index in range(chunks):
        response.cited_chunks.add(chunk_text=f"fact {index}", source=str(index))
    return check_grounding_result(answer, response)


def test_check_grounding_markers_follow_the_claims_whatever_the_bytes() -> None:
    answer = f"家族は{FAMILY}です。Rom{E_ACUTE}."
    family_end = len(f"家族は{FAMILY}".encode())
    accent = len(f"家族は{FAMILY}です。Rome".encode())
    # One end falls inside the family's second emoji, one between the "e" and its accent:
    # each marker goes after the whole cluster.
    result = _check_result(answer, [(0, family_end - 8, [0, 2]), (family_end, accent, [1])], 3)
    marked = result.with_citations()
    assert marked == f"家族は{FAMILY}[1][3]です。Rom{E_ACUTE}[2]."


def test_a_marker_with_i_numbers_the_chunks_from_zero_as_citation_indices_do() -> None:
    result = _check_result("Tokyo. Rome.", [(0, 6, [1, 0]), (7, 12, [1])], 2)
    assert result.with_citations("[{i}]") == "Tokyo.[1][0] Rome.[1]"
    assert insert_markers("東京 大阪", [ClaimSpan(0, 2, (0,))], "<{i}|{n}>") == "東京<0|1> 大阪"


def test_check_grounding_ignores_citation_indices_past_its_chunks() -> None:
    result = _check_result("Tokyo.", [(0, 6, [0, 7])], 1)
    assert result.with_citations("({n})") == "Tokyo.(1)"


def test_check_grounding_renders_unsupported_claims_apart() -> None:
    result = _check_result("Tokyo. Mars.", [(0, 6, [0]), (7, 12, [])], 1)
    assert result.to_html() == (
        '<mark data-claim="0">Tokyo.</mark>[1] '
        '<mark class="unsupported" data-claim="1">Mars.</mark>'
    )
    assert result.to_markdown() == "**Tokyo**.[1] *Mars*."


def test_utf16_spans_count_javascript_string_indices() -> None:
    result = _check_result(f"{FAMILY} ok. 𝔘 yes.", [(0, 22, [0]), (23, 33, [])], 1)
    assert result.utf16_spans() == (
        Utf16Span(0, 12, (1,), False),
        Utf16Span(13, 20, (), True),
    )
    assert result.utf16_spans()[0]._asdict() == {
        "start": 0,
        "end": 12,
        "citations": (1,),
        "unsupported": False,
    }


def test_a_claim_the_api_placed_nowhere_gets_no_marker() -> None:
    response: Any = method("discoveryengine", "v1", "CheckGrounding").response_class()
    response.claims.add(claim_text="not in the answer", citation_indices=[0])
    response.cited_chunks.add(chunk_text="fact", source="0")
    assert check_grounding_result("Tokyo.", response).with_citations() == "Tokyo."


def test_generated_answers_mark_their_supports() -> None:
    response: Any = method("discoveryengine", "v1", "GenerateGroundedContent").response_class()
    candidate = response.candidates.add()
    candidate.content.parts.add(text=f"Kyoto{E_ACUTE} was the capital. {JAPAN} it is.")
    metadata = candidate.grounding_metadata
    metadata.support_chunks.add(chunk_text="Kyoto was...")
    metadata.grounding_support.add(claim_text=f"Kyoto{E_ACUTE} was the capital.")
    metadata.grounding_support[0].support_chunk_indices.append(0)
    metadata.grounding_support.add(claim_text="it is.")
    result: GenerateResult = generate_result(response)
    expected = f"Kyoto{E_ACUTE} was the capital.[1] {JAPAN} it is."
    assert result.with_citations() == expected
    assert result.candidates[0].with_citations() == expected
    assert result.to_markdown().endswith("*it is*.")


def test_a_hand_built_generate_result_renders_its_supports() -> None:
    support = GroundingSupport("the capital", 10, 21, 10, 21, (), (0,), 0.9, True)
    chunk = Chunk("Kyoto was the capital.", "0")
    result = GenerateResult("Kyoto was the capital.", 0.9, (chunk,), (support,), (), None)  # type: ignore[arg-type]
    assert result.with_citations() == "Kyoto was the capital[1]."


def test_corroborated_claims_number_the_requests_facts() -> None:
    response: Any = method("aiplatform", "v1", "CorroborateContent").response_class()
    response.claims.add(start_index=0, end_index=6, fact_indexes=[1])
    response.claims.add(start_index=13, end_index=19)
    content = "東京です 大阪です"
    result: CorroborationResult = corroboration_result(content, [], response)
    assert result.with_citations() == "東京[2]です 大阪です"
    assert result.to_html() == (
        '<mark data-claim="0">東京</mark>[2]です '
        '<mark class="unsupported" data-claim="1">大阪</mark>です'
    )
    claim = CorroboratedClaim("東京", 0, 2, 0, 6, 0, 2, (0,), (), 0.5)
    by_hand = CorroborationResult(content, 0.5, (claim,), response)
    assert by_hand.with_citations() == "東京[1]です 大阪です"


# -- the text survives: property tests --------------------------------------------------------

# Whole clusters to build texts from, so their joins are the only true cluster boundaries.
TOKENS = [*CLUSTERS, "a", "Z", "7", "東", "京", "。", "「", "」", "𝔘", "👋", " ", "\n", "\t"]
TOKENS += [
    "*",
    "_",
    "\\",
    "[",
    "]",
    "<",
    ">",
    "&",
    '"',
    "'",
    "#",
    "-",
    "+",
    ".",
    ")",
    "=",
    "|",
    "`",
]
MARKER = "\ue000{n}\ue001"  # private-use characters the texts never hold
MARKER_PATTERN = re.compile("\ue000[0-9]+\ue001")


@st.composite
def texts_and_spans(draw: st.DrawFn) -> tuple[list[str], list[ClaimSpan]]:
    tokens = draw(st.lists(st.sampled_from(TOKENS), max_size=30))
    length = len("".join(tokens))
    index = st.integers(0, length)
    spans = []
    for _ in range(draw(st.integers(0, 6))):
        start, end = sorted((draw(index), draw(index)))
        citations = tuple(draw(st.lists(st.integers(0, 4), max_size=3)))
        spans.append(ClaimSpan(start, end, citations, draw(st.booleans())))
    return tokens, spans


def _boundaries(tokens: list[str]) -> set[int]:
    bounds, position = {0}, 0
    for token in tokens:
        position += len(token)
        bounds.add(position)
    return bounds


@given(st.lists(st.sampled_from(TOKENS), max_size=40))
def test_cluster_boundaries_are_exactly_the_joins_of_whole_clusters(tokens: list[str]) -> None:
    text = "".join(tokens)
    found = {index for index in range(len(text) + 1) if is_cluster_boundary(text, index)}
    assert found == _boundaries(tokens)


@given(texts_and_spans())
def test_removing_the_markers_gives_the_text_back(drawn: tuple[list[str], list[ClaimSpan]]) -> None:
    tokens, spans = drawn
    text = "".join(tokens)
    marked = insert_markers(text, spans, MARKER)
    assert MARKER_PATTERN.sub("", marked) == text
    positions, removed = [], 0
    for found in MARKER_PATTERN.finditer(marked):
        positions.append(found.start() - removed)
        removed += len(found.group())
    assert set(positions) <= _boundaries(tokens)


class _TagChecker(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.open: list[str] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.open.append(tag)

    def handle_endtag(self, tag: str) -> None:
        assert self.open.pop() == tag

    def handle_data(self, data: str) -> None:
        self.text.append(data)


@given(texts_and_spans())
def test_html_is_the_escaped_text_in_balanced_elements(
    drawn: tuple[list[str], list[ClaimSpan]],
) -> None:
    tokens, spans = drawn
    text = "".join(tokens)
    rendered = to_html(text, spans, MARKER)
    checker = _TagChecker()
    checker.feed(rendered)
    checker.close()
    assert checker.open == []
    assert MARKER_PATTERN.sub("", "".join(checker.text)) == text


def _unescape_markdown(rendered: str) -> str:
    """Undo `to_markdown`: drop the emphasis delimiters, keep each escaped character."""
    kept, index = [], 0
    while index < len(rendered):
        char = rendered[index]
        if char == "\\":
            kept.append(rendered[index + 1])
            index += 2
            continue
        if char != "*":
            kept.append(char)
        index += 1
    return "".join(kept)


@given(texts_and_spans())
def test_markdown_is_the_escaped_text_and_the_delimiters(
    drawn: tuple[list[str], list[ClaimSpan]],
) -> None:
    tokens, spans = drawn
    text = "".join(tokens)
    rendered = to_markdown(text, spans, MARKER)
    assert _unescape_markdown(MARKER_PATTERN.sub("", rendered)) == text


@given(texts_and_spans())
def test_commonmark_shows_the_claims_text_and_no_stray_delimiters(
    drawn: tuple[list[str], list[ClaimSpan]],
) -> None:
    tokens, spans = drawn
    # One line of text: block structure (lists, headings) is not what is checked here.
    text = "".join(token for token in tokens if token not in ("\n", "\r\n"))
    in_text = [span for span in spans if span.end <= len(text)]
    rendered = _MARKDOWN.renderInline(to_markdown(text, in_text, MARKER))
    shown = html.unescape(_STRONG_OR_EM.sub("", rendered))
    assert MARKER_PATTERN.sub("", shown) == text


class _StyleReader(HTMLParser):
    """Each character CommonMark shows, with the emphasis it shows it in."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.open: list[str] = []
        self.shown: list[tuple[str, frozenset[str]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.open.append(tag)

    def handle_endtag(self, tag: str) -> None:
        self.open.remove(tag)

    def handle_data(self, data: str) -> None:
        self.shown += [(char, frozenset(self.open)) for char in data]


# Mostly words, so that claims touch between letters, where delimiters are hardest to place.
LINE_TOKENS = ["a", "Z", "7", "東", "京", "𝔘", E_ACUTE, KI, HANGUL_LV_T, JAPAN, FAMILY]
LINE_TOKENS += [" ", "。", "「", "*", "_", "<", "&", "!", "\\", "`"]
KINDS = {
    "cited": ((0,), False),
    "cited twice": ((1, 3), False),
    "unsupported": ((), True),
    "unchecked": ((), False),
}


@st.composite
def one_line_and_claims(draw: st.DrawFn) -> tuple[str, list[ClaimSpan]]:
    """A line cut into touching claims (and gaps), as CheckGrounding sends an answer's claims."""
    tokens = draw(st.lists(st.sampled_from(LINE_TOKENS), max_size=30))
    cuts = sorted(set(draw(st.lists(st.integers(0, len(tokens)), max_size=8))))
    bounds = [len("".join(tokens[:cut])) for cut in cuts]
    spans = []
    for start, end in pairwise(bounds):
        kind = draw(st.sampled_from([*KINDS, "gap"]))
        if kind != "gap":
            spans.append(ClaimSpan(start, end, *KINDS[kind]))
    return "".join(tokens), spans


@settings(max_examples=300)
@given(one_line_and_claims())
def test_commonmark_shows_each_claims_words_in_its_style_and_nothing_else(
    drawn: tuple[str, list[ClaimSpan]],
) -> None:
    text, spans = drawn
    reader = _StyleReader()
    reader.feed(_MARKDOWN.renderInline(to_markdown(text, spans, MARKER)))
    reader.close()
    styles = _without_markers(reader.shown)
    expected: list[frozenset[str]] = [frozenset()] * len(text)
    for span in spans:
        style = frozenset({"strong"} if span.citations else {"em"} if span.unsupported else ())
        for index in range(span.start, span.end):
            expected[index] = style
    for index, char in enumerate(text):
        if unicodedata.category(char)[0] in "LN":  # a claim's words are always styled
            assert styles[index] == expected[index], (index, char)
        else:
            assert styles[index] <= expected[index], (index, char)


def _without_markers(shown: list[tuple[str, frozenset[str]]]) -> list[frozenset[str]]:
    """The styles of the text's own characters, the sentinel markers and their digits dropped."""
    styles, in_marker = [], False
    for char, style in shown:
        if char == "\ue000":
            in_marker = True
        elif char == "\ue001":
            in_marker = False
        elif not in_marker:
            styles.append(style)
    return styles


@given(texts_and_spans())
def test_utf16_spans_slice_what_the_str_spans_slice(
    drawn: tuple[list[str], list[ClaimSpan]],
) -> None:
    tokens, spans = drawn
    text = "".join(tokens)
    utf16 = text.encode("utf-16-le")
    placed = [
        (cluster_start(text, s.start), cluster_end(text, s.end))
        for s in spans
        if cluster_start(text, s.start) < cluster_end(text, s.end)
    ]
    found = utf16_spans(text, spans)
    assert [utf16[2 * s.start : 2 * s.end].decode("utf-16-le") for s in found] == [
        text[start:end] for start, end in placed
    ]
