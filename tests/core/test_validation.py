"""Documented request limits: every violation reported at once, each naming its proto field."""

from __future__ import annotations

import math
import re
from typing import Any

import pytest
from google.rpc import error_details_pb2
from hypothesis import assume, given
from hypothesis import strategies as st

from groundwire.contract import apis, validation
from groundwire.contract.errors import InvalidArgument
from groundwire.contract.spec import SPECS
from groundwire.contract.validation import count_tokens, validate_user_labels
from tests.support.limits import check, corroborate, generate


def violations_of(error: InvalidArgument) -> list[tuple[str, str]]:
    request = error.detail(error_details_pb2.BadRequest)
    assert request is not None
    return [(v.field, v.description) for v in request.field_violations]


def fields_of(error: InvalidArgument) -> list[str]:
    return [field for field, _ in violations_of(error)]


def check_fields(**request: object) -> list[str]:
    with pytest.raises(InvalidArgument) as raised:
        check(**request)  # type: ignore[arg-type]
    return fields_of(raised.value)


@pytest.mark.parametrize(
    ("text", "tokens"),
    [
        ("", 0),
        ("Paris is the capital of France.", 7),
        ("Is it? Yes! It is...", 8),
        ("東京は日本の首都です。", 11),
        ("Tokyo（東京）is big.", 6),
        ("π is 3.14, don't round it to 3.", 9),
        ("e-mail the café owner", 4),
        ("— 👩\u200d👩\u200d👧 —", 0),
        ("नमस्ते दुनिया।", 3),
    ],
)
def test_tokens_are_words_and_sentence_endings(text: str, tokens: int) -> None:
    assert count_tokens(text) == tokens


@pytest.mark.parametrize(
    ("word", "tokens"), [("a" * 17, 2), ("U.S.A.B.C.D.E.F.G", 2), ("3" * 40, 3), ("é" * 48, 3)]
)
def test_a_word_of_n_characters_counts_as_at_least_n_over_16_tokens(word: str, tokens: int) -> None:
    assert count_tokens(word) == tokens
    assert count_tokens(f"{word} {word}") == 2 * tokens
    assert count_tokens(word[0] * 16) == 1  # and a word of 16 characters is one token


@pytest.mark.parametrize("length", [4097, 1 << 18, (1 << 18) + 1, 1 << 22])
def test_one_long_word_is_no_single_token(length: int) -> None:
    word = "a" * length
    assert count_tokens(word, stop_after=10**9) == count_tokens(word) == math.ceil(length / 16)


def test_an_answer_of_one_huge_word_is_refused_by_the_token_limit() -> None:
    word = "a" * (16 * validation.MAX_ANSWER_TOKENS + 1)
    assert validation.validate_answer_candidate(word[:-1], "v1") == []
    assert validation.validate_answer_candidate(word, "v1") == [
        ("answer_candidate", "has more than 4,096 tokens; at most 4,096 are allowed in v1")
    ]
    assert check_fields(api_version="v1beta", answer_candidate="a" * (1 << 22)) == [
        "answer_candidate"
    ]


@given(st.text(), st.text())
def test_token_counts_add_up_across_a_space(first: str, second: str) -> None:
    assert count_tokens(first + " " + second) == count_tokens(first) + count_tokens(second)


@given(st.text())
def test_there_are_never_more_tokens_than_visible_characters(text: str) -> None:
    assert count_tokens(text) <= len("".join(text.split()))


@pytest.mark.parametrize("api_version", ["v1", "v1beta"])
def test_an_answer_may_have_4096_tokens(api_version: str) -> None:
    check(api_version=api_version, answer_candidate="word " * 4096)
    assert check_fields(api_version=api_version, answer_candidate="word " * 4097) == [
        "answer_candidate"
    ]


def test_a_japanese_answer_counts_each_character_as_a_word() -> None:
    check(answer_candidate="東" * 4096)
    assert check_fields(answer_candidate="東" * 4097) == ["answer_candidate"]


def test_a_v1alpha_answer_may_have_1024_characters_however_many_bytes() -> None:
    check(api_version="v1alpha", answer_candidate="😀" * 1024)
    assert check_fields(api_version="v1alpha", answer_candidate="é" * 1025) == ["answer_candidate"]


def test_an_unknown_api_version_is_a_programming_error() -> None:
    with pytest.raises(ValueError, match="v2"):
        check(api_version="v2")


def test_a_request_may_have_200_facts() -> None:
    check(fact_texts=["fact"] * 200)
    assert check_fields(fact_texts=["fact"] * 201) == ["facts"]


def test_a_fact_may_have_10000_characters() -> None:
    check(fact_texts=["x" * 10_000])
    assert check_fields(fact_texts=["ok", "ok", "ok", "x" * 10_001]) == ["facts[3].fact_text"]


@pytest.mark.parametrize("threshold", [0.0, 0.5, 1.0, None])
def test_a_citation_threshold_between_0_and_1_is_fine(threshold: float | None) -> None:
    check(citation_threshold=threshold)


@pytest.mark.parametrize("threshold", [-0.01, 1.01, math.nan, math.inf])
def test_a_citation_threshold_outside_0_to_1_is_refused(threshold: float) -> None:
    assert check_fields(citation_threshold=threshold) == ["grounding_spec.citation_threshold"]


def test_every_violation_is_reported_at_once() -> None:
    with pytest.raises(InvalidArgument) as raised:
        check(
            answer_candidate="word " * 5000,
            fact_texts=["x" * 10_001] * 201,
            citation_threshold=2.0,
            user_labels={"Team": "search"},
        )
    fields = fields_of(raised.value)
    assert fields[0] == "answer_candidate"
    assert fields.count("facts") == 1
    assert [f for f in fields if f.startswith("facts[")] == [
        f"facts[{i}].fact_text" for i in range(201)
    ]
    assert fields[-2:] == ["grounding_spec.citation_threshold", "user_labels"]
    assert raised.value.message.endswith("; and 202 more")


def test_the_message_says_what_is_wrong() -> None:
    with pytest.raises(InvalidArgument) as raised:
        check(fact_texts=["x" * 10_001])
    assert raised.value.message == (
        "invalid CheckGrounding request:"
        " facts[0].fact_text is 10,001 characters long; at most 10,000 are allowed"
    )


def test_corroborate_names_its_own_fields() -> None:
    with pytest.raises(InvalidArgument) as raised:
        corroborate("Paris is in France.", ["x" * 10_001], -1.0)
    assert fields_of(raised.value) == ["facts[0].summary", "parameters.citation_threshold"]


def test_a_corroborate_fact_given_as_a_chunk_is_named_by_its_chunk_text() -> None:
    with pytest.raises(InvalidArgument) as raised:
        corroborate("Paris is in France.", ["x" * 10_001], None, chunks=True)
    assert fields_of(raised.value) == ["facts[0].chunk.text"]


def test_corroborate_accepts_valid_input() -> None:
    corroborate("word " * 9000, ["f"] * 200, 1)


def test_generate_checks_inline_facts_and_labels() -> None:
    with pytest.raises(InvalidArgument) as raised:
        generate([["x" * 10_001]], {"": "x"})
    assert fields_of(raised.value) == [
        "grounding_spec.grounding_sources[0].inline_source.grounding_facts[0].fact_text",
        "user_labels",
    ]


def test_generate_names_the_inline_source_over_the_limit() -> None:
    with pytest.raises(InvalidArgument) as raised:
        generate([["f"], ["f"], ["f"] * 201], {})
    assert fields_of(raised.value) == [
        "grounding_spec.grounding_sources[2].inline_source.grounding_facts"
    ]


def test_each_inline_source_may_hold_200_facts() -> None:
    generate([["f"] * 150, ["f"] * 150], {})


def test_a_source_that_names_nothing_is_refused() -> None:
    method = apis.method("discoveryengine", "v1", "GenerateGroundedContent")
    request: Any = method.request_class(location="projects/p/locations/global")
    request.contents.add(role="user").parts.add(text="Who wrote Faust?")
    request.grounding_spec.grounding_sources.add()
    with pytest.raises(InvalidArgument) as raised:
        SPECS["GenerateGroundedContent"].check(method, request)
    assert fields_of(raised.value) == ["grounding_spec.grounding_sources[0]"]


@pytest.mark.parametrize("text", ["", " ", "\n\t\u3000"], ids=["empty", "space", "blank"])
def test_an_empty_answer_content_or_prompt_is_refused_naming_its_field(text: str) -> None:
    assert check_fields(answer_candidate=text) == ["answer_candidate"]
    with pytest.raises(InvalidArgument) as raised:
        corroborate(text, ["Paris is in France."], None)
    assert fields_of(raised.value) == ["content"]
    method = apis.method("discoveryengine", "v1", "GenerateGroundedContent")
    turns = [
        {"role": "user", "parts": [{"text": "Hi."}]},
        {"role": "user", "parts": [{"text": text}]},
    ]
    request: Any = method.request_class(location="projects/p/locations/global", contents=turns)
    with pytest.raises(InvalidArgument) as raised:
        SPECS["GenerateGroundedContent"].check(method, request)
    assert violations_of(raised.value) == [("contents[1]", "is empty")]


def test_a_prompt_needs_a_turn_that_is_not_the_models() -> None:
    method = apis.method("discoveryengine", "v1", "StreamGenerateGroundedContent")
    turns = [{"role": "model", "parts": [{"text": "Hello."}]}]
    for contents in ([], turns):
        request: Any = method.request_class(
            location="projects/p/locations/global", contents=contents
        )
        with pytest.raises(InvalidArgument) as raised:
            SPECS["StreamGenerateGroundedContent"].check(method, request)
        assert fields_of(raised.value) == ["contents"]


def test_a_malformed_resource_name_is_named() -> None:
    method = apis.method("discoveryengine", "v1", "CheckGrounding")
    request: Any = method.request_class(grounding_config="nowhere", answer_candidate="Hi.")
    with pytest.raises(InvalidArgument) as raised:
        SPECS["CheckGrounding"].check(method, request)
    assert fields_of(raised.value) == ["grounding_config"]


@pytest.mark.parametrize(
    "labels",
    [
        {},
        {"team": "search", "env": "prod"},
        {"cost-center": "", "tier_2": "gold-1"},
        {"環境": "本番", "ключ": "значение", "café": "crème"},
        {"हिन्दी": "नमस्ते"},
        {"k" * 63: "v" * 63},
        {f"label{i}": "x" for i in range(64)},
    ],
)
def test_labels_that_follow_the_rules_pass(labels: dict[str, str]) -> None:
    assert validate_user_labels(labels) == []
    check(user_labels=labels)


@pytest.mark.parametrize(
    ("labels", "problem"),
    [
        ({f"label{i}": "x" for i in range(65)}, "at most 64"),
        ({"": "x"}, "key is empty"),
        ({"k" * 64: "x"}, "64 characters"),
        ({"Team": "x"}, "must start with a lowercase"),
        ({"1st": "x"}, "must start with a lowercase"),
        ({"_private": "x"}, "must start with a lowercase"),
        ({"-dash": "x"}, "must start with a lowercase"),
        ({"my team": "x"}, "contains ' '"),
        ({"team": "Search"}, "contains 'S'"),
        ({"team": "a.b"}, "contains '.'"),
        ({"team": "v" * 64}, "64 characters"),
    ],
)
def test_labels_that_break_a_rule_name_user_labels(labels: dict[str, str], problem: str) -> None:
    violations = validate_user_labels(labels)
    assert violations
    assert all(field == "user_labels" for field, _ in violations)
    assert any(problem in description for _, description in violations)


def test_label_violations_can_name_another_field() -> None:
    assert validate_user_labels({"Bad": ""}, field="labels")[0][0] == "labels"


def test_a_long_bad_key_is_shortened_in_the_description() -> None:
    ((_, description),) = validate_user_labels({"K" + "k" * 60: ""})
    assert "kkk…" in description
    assert len(description) < 100


LABEL_START = st.characters(categories=["Ll", "Lo", "Lm"])
LABEL_CHARACTER = st.one_of(
    st.characters(categories=["Ll", "Lo", "Lm", "Mn", "Mc", "Nd", "Nl", "No"]),
    st.sampled_from("_-"),
)
LABEL_KEYS = st.builds(
    lambda first, rest: first + "".join(rest),
    LABEL_START,
    st.lists(LABEL_CHARACTER, max_size=62),
)
LABEL_VALUES = st.lists(LABEL_CHARACTER, max_size=63).map("".join)
VALID_LABELS = st.dictionaries(LABEL_KEYS, LABEL_VALUES, max_size=64)
FORBIDDEN = st.one_of(
    st.characters(categories=["Lu", "Lt", "Zs", "Po", "Sm", "So", "Cc"]),
    st.sampled_from(" .:/@A"),
)


@given(VALID_LABELS)
def test_valid_labels_never_raise(labels: dict[str, str]) -> None:
    assert validate_user_labels(labels) == []
    generate([], labels)


@given(VALID_LABELS, LABEL_KEYS, LABEL_VALUES, FORBIDDEN, st.booleans(), st.data())
def test_a_label_with_a_forbidden_character_always_names_user_labels(
    labels: dict[str, str],
    key: str,
    value: str,
    forbidden: str,
    in_key: bool,
    data: st.DataObject,
) -> None:
    target = key if in_key else value
    position = data.draw(st.integers(0, len(target)))
    spoiled = target[:position] + forbidden + target[position:]
    labels = dict(list(labels.items())[:63])
    labels.pop(key, None)
    if in_key:
        labels[spoiled] = value
    else:
        labels[key] = spoiled
    with pytest.raises(InvalidArgument) as raised:
        check(user_labels=labels)
    assert set(fields_of(raised.value)) == {"user_labels"}


@given(st.lists(st.integers(0, 10_100), max_size=210))
def test_exactly_the_facts_over_the_limit_are_named(lengths: list[int]) -> None:
    fact_texts = ["x" * length for length in lengths]
    expected = ["facts"] if len(lengths) > 200 else []
    expected += [f"facts[{i}].fact_text" for i, n in enumerate(lengths) if n > 10_000]
    if not expected:
        check(fact_texts=fact_texts)
        return
    assert check_fields(fact_texts=fact_texts) == expected


@given(st.text(max_size=2000), st.floats(0.0, 1.0), st.sampled_from(["v1", "v1beta", "v1alpha"]))
def test_short_answers_with_valid_settings_never_raise(
    answer: str, threshold: float, api_version: str
) -> None:
    answer = answer[:1024]
    assume(answer and not answer.isspace())  # an empty answer is refused: nothing to check
    check(api_version=api_version, answer_candidate=answer, citation_threshold=threshold)


TOKEN = re.compile(
    rf"(?P<cjk>[{validation._CJK}])|(?P<end>[{validation._SENTENCE_END}]+)"
    rf"|(?P<word>{validation._WORD_RUN}(?:\.{validation._WORD_RUN})*)"
)


def _count_match_by_match(text: str) -> int:
    count = 0
    for match in TOKEN.finditer(text):
        if match.lastgroup != "word":
            count += 1
        elif validation._ALPHANUMERIC.search(match.group()):
            count += math.ceil(len(match.group()) / 16)
    return count


TOKEN_TEXT = st.text(
    alphabet=st.sampled_from(list("ab1 .!?…。東京-—'\n\t😀é")) | st.characters(), max_size=300
)


@given(TOKEN_TEXT)
def test_counting_in_one_pass_agrees_with_counting_match_by_match(text: str) -> None:
    assert count_tokens(text) == _count_match_by_match(text)


@given(TOKEN_TEXT, st.integers(0, 50))
def test_a_count_that_stops_early_is_exact_up_to_its_stop(text: str, stop: int) -> None:
    assert count_tokens(text, stop_after=stop) == min(_count_match_by_match(text), stop + 1)


def test_a_text_too_long_for_one_pass_is_still_counted_exactly() -> None:
    text = "東京 is. " * 40_000  # 320,000 characters: counted match by match
    assert len(text) > validation._COUNT_IN_ONE_PASS
    assert count_tokens(text, stop_after=10**6) == _count_match_by_match(text) == 160_000
