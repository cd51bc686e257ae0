"""Fuzzing the pure core: whatever bytes or values arrive, we get a value or a GroundwireError.

Covers the REST response decoders, the streamed JSON array splitter, offset conversion and the
request validators. Example counts are bounded so the whole module runs in a few seconds.
"""

from __future__ import annotations

import contextlib
import itertools
import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from groundwire.contract import apis, validation
from groundwire.contract.errors import GroundwireError, InvalidArgument
from groundwire.contract.offsets import resolve_byte_spans
from groundwire.contract.results import check_grounding_result
from groundwire.contract.transcoding import decode_message
from groundwire.contract.version import DISCOVERY_VERSIONS
from groundwire.wire.bodies import decode_response
from groundwire.wire.jsonstream import JsonArrayStream
from tests.support import limits

FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
CHECK = apis.method("discoveryengine", "v1", "CheckGrounding")
CORROBORATE = apis.method("aiplatform", "v1", "CorroborateContent")

json_scalars = st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20)
json_values = st.recursive(
    json_scalars,
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=12), children, max_size=4)
    ),
    max_leaves=15,
)
offsets = st.none() | st.integers(min_value=-5, max_value=300)
claims_json = st.fixed_dictionaries(
    {},
    optional={
        "startPos": offsets | json_values,
        "endPos": offsets | json_values,
        "claimText": st.text(max_size=30) | json_values,
        "citationIndices": st.lists(st.integers(-3, 8), max_size=4) | json_values,
        "groundingCheckRequired": st.booleans() | json_values,
        "score": st.floats() | json_values,
    },
)
response_json = st.fixed_dictionaries(
    {},
    optional={
        "supportScore": st.floats() | json_values,
        "claims": st.lists(claims_json, max_size=5) | json_values,
        "citedChunks": st.lists(
            st.fixed_dictionaries(
                {"chunkText": st.text(max_size=20), "source": st.text(max_size=3)}
            ),
            max_size=3,
        ),
        "citedFacts": json_values,
    },
)
bodies = (
    st.binary(max_size=300)
    | json_values.map(lambda value: json.dumps(value).encode())
    | response_json.map(lambda value: json.dumps(value, ensure_ascii=False).encode())
)


@FUZZ
@given(body=bodies)
def test_decoding_any_body_gives_a_message_or_a_groundwire_error(body: bytes) -> None:
    try:
        decoded = decode_message(body, CHECK.response_class)
    except GroundwireError:
        return
    assert isinstance(decoded, CHECK.response_class)


@FUZZ
@given(body=bodies, answer=st.text(max_size=60))
def test_a_decoded_response_always_becomes_a_result_whose_spans_fit_the_answer(
    body: bytes, answer: str
) -> None:
    try:
        response = decode_response(CHECK, body)
    except GroundwireError:
        return
    result = check_grounding_result(answer, response)
    for claim in result.claims:
        assert 0 <= claim.start <= claim.end <= len(answer)


@FUZZ
@given(element=bodies)
def test_decoding_a_streamed_element_gives_a_message_or_a_groundwire_error(element: bytes) -> None:
    with contextlib.suppress(GroundwireError):
        decode_response(CORROBORATE, element, {})


@FUZZ
@given(body=st.binary(max_size=200), cuts=st.lists(st.integers(0, 200), max_size=6))
def test_the_array_splitter_takes_any_bytes_in_any_chunks_without_crashing(
    body: bytes, cuts: list[int]
) -> None:
    stream = JsonArrayStream()
    try:
        for chunk in _chunks(body, cuts):
            list(stream.feed(chunk))
        stream.close()
    except GroundwireError:
        pass


@FUZZ
@given(
    items=st.lists(
        st.dictionaries(st.text(max_size=8), json_values, max_size=3)
        | st.lists(json_values, max_size=3),
        max_size=5,
    ),
    cuts=st.lists(st.integers(0, 400), max_size=8),
    indent=st.sampled_from([None, 1]),
)
def test_the_array_splitter_finds_every_element_wherever_the_chunks_split(
    items: list[Any], cuts: list[int], indent: int | None
) -> None:
    body = json.dumps(items, ensure_ascii=False, indent=indent).encode()
    stream = JsonArrayStream()
    found = [element for chunk in _chunks(body, cuts) for element in stream.feed(chunk)]
    stream.close()
    assert [json.loads(element) for element in found] == json.loads(body)


def _chunks(body: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({0, len(body), *(cut for cut in cuts if cut < len(body))})
    return [body[start:end] for start, end in itertools.pairwise(points)]


positions = st.tuples(offsets, offsets, st.text(max_size=12))


@FUZZ
@given(text=st.text(max_size=80), claims=st.lists(positions, max_size=8))
def test_any_positions_resolve_to_spans_inside_the_text(
    text: str, claims: list[tuple[int | None, int | None, str]]
) -> None:
    for span in resolve_byte_spans(text, claims):
        assert 0 <= span.start <= span.end <= len(text)
        assert span.start_utf16 == len(text[: span.start].encode("utf-16-le")) // 2
        assert span.end_utf16 == len(text[: span.end].encode("utf-16-le")) // 2


@FUZZ
@given(text=st.text(min_size=1, max_size=80), data=st.data())
def test_offsets_on_character_boundaries_slice_exactly_the_bytes_they_name(
    text: str, data: st.DataObject
) -> None:
    boundaries = sorted({len(text[:index].encode()) for index in range(len(text) + 1)})
    start = data.draw(st.sampled_from(boundaries))
    end = data.draw(st.sampled_from([b for b in boundaries if b >= start]))
    (span,) = resolve_byte_spans(text, [(start, end, "")])
    assert text[span.start : span.end] == text.encode()[start:end].decode()
    assert not span.adjusted


labels = st.dictionaries(st.text(max_size=70), st.text(max_size=70), max_size=4)
thresholds = st.none() | st.floats()


@FUZZ
@given(
    answer=st.text(max_size=200),
    facts=st.lists(st.text(max_size=50), max_size=4),
    threshold=thresholds,
    user_labels=labels,
    version=st.sampled_from(DISCOVERY_VERSIONS),
)
def test_the_check_grounding_validator_accepts_or_names_the_fields(
    answer: str,
    facts: list[str],
    threshold: float | None,
    user_labels: dict[str, str],
    version: str,
) -> None:
    refusal: InvalidArgument | None = None
    try:
        limits.check(
            api_version=version,
            answer_candidate=answer,
            fact_texts=facts,
            citation_threshold=threshold,
            user_labels=user_labels,
        )
    except InvalidArgument as error:
        refusal = error
    assert refusal is None or refusal.details, (
        "an InvalidArgument from validation carries BadRequest details"
    )


@FUZZ
@given(
    content=st.text(max_size=100),
    facts=st.lists(st.text(max_size=50), max_size=4),
    threshold=thresholds,
    user_labels=labels,
)
def test_the_corroborate_and_generate_validators_accept_or_raise_invalid_argument(
    content: str, facts: list[str], threshold: float | None, user_labels: dict[str, str]
) -> None:
    with contextlib.suppress(InvalidArgument):
        limits.corroborate(content, facts, threshold)
    with contextlib.suppress(InvalidArgument):
        limits.generate([facts], user_labels)


@FUZZ
@given(text=st.text(max_size=300))
def test_counting_tokens_never_fails_and_never_exceeds_the_characters(text: str) -> None:
    assert 0 <= validation.count_tokens(text) <= len(text)
