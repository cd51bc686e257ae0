"""The limits read from a request's bytes agree with its spec, and cost no more than the limits."""

from __future__ import annotations

import json
from typing import Any

import pytest
from google.protobuf import json_format
from google.protobuf.message import Message
from hypothesis import given, settings
from hypothesis import strategies as st

from groundwire.contract import apis
from groundwire.contract.spec import SPECS
from groundwire.emulator.limits import MAX_REQUEST_VALUES
from groundwire.emulator.prescan import json_violations, wire_violations
from tests.emulator.support import CHECK, CORROBORATE, GENERATE, GROUNDING_CONFIG, STREAM

TOO_MANY = ("facts", "has more than 200 facts; at most 200 are allowed")
INLINE_FACTS = "grounding_spec.grounding_sources[1].inline_source.grounding_facts"


def both_scans(method: apis.Method, request: Message) -> tuple[list[Any], list[Any]]:
    """What the scans find in `request` on the wire and as the JSON a REST client sends."""
    body = json_format.MessageToJson(request).encode()
    return wire_violations(method, request.SerializeToString()), json_violations(method, body)


def test_a_fact_list_past_its_limit_is_refused_after_reading_201_facts() -> None:
    raw = b"\x1a\x00" * 1_000_000  # CheckGroundingRequest.facts (field 3), a million empty ones
    assert wire_violations(CHECK, raw) == [TOO_MANY]
    body = b'{"facts": [' + b"{}," * 999_999 + b"{}]}"
    assert json_violations(CHECK, body) == [TOO_MANY]


def test_two_hundred_facts_are_within_the_limit() -> None:
    request = CHECK.request_class(
        grounding_config=GROUNDING_CONFIG, facts=[{"fact_text": "x"}] * 200
    )
    assert both_scans(CHECK, request) == ([], [])


def test_each_inline_source_and_each_corroboration_fact_list_is_counted_under_its_own_path() -> (
    None
):
    generate: Any = GENERATE.request_class()
    generate.grounding_spec.grounding_sources.add().inline_source.grounding_facts.add()
    crowded = generate.grounding_spec.grounding_sources.add().inline_source.grounding_facts
    for _ in range(201):
        crowded.add(fact_text="x")
    expected = [(INLINE_FACTS, TOO_MANY[1])]
    assert both_scans(GENERATE, generate) == (expected, expected)
    corroborate = CORROBORATE.request_class(facts=[{"summary": "x"}] * 201)
    assert both_scans(CORROBORATE, corroborate) == ([TOO_MANY], [TOO_MANY])


def test_each_request_of_a_rest_stream_has_its_own_fact_limit() -> None:
    fine: dict[str, Any] = {
        "groundingSpec": {"groundingSources": [{"inlineSource": {"groundingFacts": [{}]}}]}
    }
    crowded: Any = {"groundingSpec": {"groundingSources": [{}, {"inlineSource": {}}]}}
    crowded["groundingSpec"]["groundingSources"][1]["inlineSource"]["groundingFacts"] = [{}] * 201
    body = json.dumps([fine, fine, crowded]).encode()
    assert json_violations(STREAM, body) == [(INLINE_FACTS, TOO_MANY[1])]
    assert json_violations(STREAM, json.dumps([fine] * 300).encode()) == []


def test_an_over_long_fact_is_refused_in_the_specs_words_whatever_its_encoding() -> None:
    text = "😀" * 10_001  # 40,004 bytes of UTF-8; 60,012 of JSON \\u escapes (two per emoji)
    request = CORROBORATE.request_class(facts=[{"summary": "x"}, {"chunk": {"text": text}}])
    expected = [("facts[1].chunk.text", "is 10,001 characters long; at most 10,000 are allowed")]
    assert both_scans(CORROBORATE, request) == (expected, expected)
    escaped = json.dumps({"facts": [{"fact_text": text}]}, ensure_ascii=True).encode()
    assert json_violations(CHECK, escaped) == [
        ("facts[0].fact_text", "is 10,001 characters long; at most 10,000 are allowed")
    ]


def test_an_answer_of_one_huge_word_is_refused_from_its_bytes() -> None:
    request = CHECK.request_class(answer_candidate="a" * (4 << 20))
    expected = [("answer_candidate", "has more than 4,096 tokens; at most 4,096 are allowed in v1")]
    assert both_scans(CHECK, request) == (expected, expected)


def test_a_request_of_more_values_than_the_emulator_reads_is_refused() -> None:
    unknown_fields = b"\xf8\x07\x01" * (MAX_REQUEST_VALUES + 1)  # field 127, varint 1
    limit = f"is past the emulator's limit of {MAX_REQUEST_VALUES:,}"
    assert wire_violations(CHECK, unknown_fields) == [("request", f"{limit} fields")]
    labels = {f"k{index}": "v" for index in range(MAX_REQUEST_VALUES)}
    assert json_violations(CHECK, json.dumps({"userLabels": labels}).encode()) == [
        ("request", f"{limit} JSON values")
    ]


@pytest.mark.parametrize(
    "body",
    [
        b"",
        b"{",
        b'{"facts": [{"factText": "x"',
        b'"' + b'\\"' * 300_000,  # an unterminated string of escaped quotes
        b'\\"' * 300_000,
        b'{"facts": ' + b"[" * 1_000,
        b"]}" * 1_000,
        b'{"facts"' + b":" * 1_000_000,
        b"[1" + b"," * 1_000_000,
        b",{}",
        b'{"factText": 3, "facts": {"a": [1, 2]}, 7: null}',
        b'[{}, {}] {"facts": [' + b"{}," * 300 + b"{}]}",
        '{"answerCandidate": "\\ud800 é"}'.encode(),
        b"\xff\xfe{}",
    ],
)
def test_malformed_json_finds_nothing_and_is_left_to_the_parser(body: bytes) -> None:
    assert json_violations(CHECK, body) == []


@pytest.mark.parametrize(
    "raw",
    [
        b"\x1a",  # a tag without a length
        b"\x1a\x05abc",  # a length past the end
        b"\x1a\x03\x0a\x91\x4e" + b"x" * 10_001,  # a fact_text running past its fact
        b"\x12\x03\xff\xfe\xfd",  # answer_candidate that is not UTF-8, but short
        b"\x12\x81\x20" + b"\xff" * 4097,  # and long
        b"\x1b\x00",  # a group start
        b"\xff" * 11,  # a tag too long for a varint
    ],
)
def test_malformed_wire_bytes_find_nothing_and_are_left_to_the_parser(raw: bytes) -> None:
    assert wire_violations(CHECK, raw) == []


_TEXTS = st.tuples(
    st.sampled_from(["a", "é", "東", "😀", " ", "a b "]),
    st.sampled_from([0, 1, 1_024, 1_025, 2_501, 4_096, 10_000, 10_001, 65_536, 65_537]),
).map(lambda pair: pair[0] * pair[1])


@settings(max_examples=60, deadline=None)
@given(
    st.sampled_from(["v1", "v1beta", "v1alpha"]),
    _TEXTS,
    st.sampled_from([0, 1, 199, 200]),
    _TEXTS,
)
def test_what_the_scans_find_the_spec_finds_too(
    api_version: str, answer: str, fact_count: int, long_fact: str
) -> None:
    method = apis.method("discoveryengine", api_version, "CheckGrounding")
    texts = ["x"] * fact_count + [long_fact]
    request = method.request_class(
        grounding_config=GROUNDING_CONFIG,
        answer_candidate=answer,
        facts=[{"fact_text": text} for text in texts],
    )
    limits = SPECS["CheckGrounding"].violations(method, request)
    by_spec = [v for v in limits if v != ("answer_candidate", "is empty")]  # no count or length
    for found in both_scans(method, request):
        if len(texts) <= 200:
            assert found == by_spec
        else:  # the scan stops at the 201st fact, so it may miss what follows, but no more
            assert found[-1] == TOO_MANY
            assert set(found[:-1]) <= set(by_spec)
