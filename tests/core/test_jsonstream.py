"""JsonArrayStream: a streamed JSON array comes out element by element, however it is split."""

from __future__ import annotations

import itertools
import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from groundwire.contract.errors import Internal
from groundwire.wire.jsonstream import JsonArrayStream

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=12,
)
json_objects = st.dictionaries(st.text(max_size=10), json_values, max_size=5)


def split(data: bytes, cuts: list[int]) -> list[bytes]:
    positions = sorted({cut % (len(data) + 1) for cut in cuts})
    edges = [0, *positions, len(data)]
    return [data[start:end] for start, end in itertools.pairwise(edges)]


def elements_of(chunks: list[bytes]) -> list[Any]:
    stream = JsonArrayStream()
    found = [json.loads(element) for chunk in chunks for element in stream.feed(chunk)]
    stream.close()
    return found


@settings(max_examples=150, deadline=None)
@given(
    elements=st.lists(json_objects, max_size=6),
    cuts=st.lists(st.integers(0, 10_000)),
    ascii_only=st.booleans(),
    indent=st.sampled_from([None, 0, 2]),
)
def test_any_array_of_objects_split_anywhere_yields_exactly_its_elements(
    elements: list[dict[str, Any]], cuts: list[int], ascii_only: bool, indent: int | None
) -> None:
    data = json.dumps(elements, ensure_ascii=ascii_only, indent=indent).encode()
    assert elements_of(split(data, cuts)) == elements


@settings(max_examples=100, deadline=None)
@given(element=json_objects, cuts=st.lists(st.integers(0, 10_000)))
def test_a_single_object_instead_of_an_array_is_yielded_once(
    element: dict[str, Any], cuts: list[int]
) -> None:
    data = json.dumps(element, ensure_ascii=False).encode()
    assert elements_of(split(data, cuts)) == [element]


def test_each_element_comes_out_as_soon_as_its_last_byte_is_in() -> None:
    stream = JsonArrayStream()
    assert list(stream.feed(b'[ {"a": "x\\"}]"},')) == [b'{"a": "x\\"}]"}']
    assert list(stream.feed(b' {"b": [1, {"c": "\\\\"}]')) == []
    assert list(stream.feed(b"}\n]\n")) == [b'{"b": [1, {"c": "\\\\"}]}']
    stream.close()


def test_a_backslash_at_the_end_of_a_chunk_escapes_the_next_chunks_first_byte() -> None:
    stream = JsonArrayStream()
    assert list(stream.feed(b'[{"a": "quote \\')) == []
    assert list(stream.feed(b'" still inside"}]')) == [b'{"a": "quote \\" still inside"}']
    stream.close()


def test_multi_byte_characters_split_between_chunks_survive() -> None:
    data = json.dumps([{"text": "東京 🗼"}], ensure_ascii=False).encode()
    chunks = [data[i : i + 1] for i in range(len(data))]
    assert elements_of(chunks) == [{"text": "東京 🗼"}]


def test_an_empty_array_yields_nothing() -> None:
    assert elements_of([b" [ ", b"] "]) == []


def test_a_byte_order_mark_is_ignored() -> None:
    assert elements_of([b'\xef\xbb\xbf[{"a": 1}]']) == [{"a": 1}]


@pytest.mark.parametrize(
    "chunks", [[b'[{"a": 1}'], [b'[{"a": 1},'], [b'[{"a": "'], [b"["], [b""], [b'{"a": 1']]
)
def test_a_truncated_array_fails_on_close(chunks: list[bytes]) -> None:
    stream = JsonArrayStream()
    for chunk in chunks:
        list(stream.feed(chunk))
    with pytest.raises(Internal, match=r"ended early|empty"):
        stream.close()


@pytest.mark.parametrize(
    "data",
    [
        b"<html>",
        b'[{"a": 1}} ',
        b'[{"a": 1} {"b": 2}]',
        b'[{"a": 1},]',
        b"[1, 2]",
        b'[{"a": 1}] x',
        b'{"a": 1}{',
        b'[{"a": [1}]',
    ],
)
def test_malformed_input_fails_as_soon_as_it_is_seen(data: bytes) -> None:
    with pytest.raises(Internal, match="not a JSON array"):
        list(JsonArrayStream().feed(data))


def test_a_long_stream_does_not_keep_what_it_has_yielded() -> None:
    stream = JsonArrayStream()
    list(stream.feed(b"["))
    for _ in range(1000):
        assert list(stream.feed(b'{"text": "' + b"x" * 100 + b'"},')) != []
    assert len(stream._buffer) < 200


def test_a_chunk_is_scanned_only_as_far_as_elements_are_taken() -> None:
    stream = JsonArrayStream()
    elements = stream.feed(b"[" + b"{}," * 100_000 + b'{"broken": ]')

    first = [next(elements) for _ in range(1000)]

    assert first == [b"{}"] * 1000
    with pytest.raises(Internal, match="not a JSON array"):
        list(elements)
