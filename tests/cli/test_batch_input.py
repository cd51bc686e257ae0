"""A batch line's key names its request: blind to spelling and position, not to what is sent."""

from __future__ import annotations

import json

from groundwire.cli.batch_input import RequestShape, read_line

CHECK = RequestShape("check")


def key(document: object, shape: RequestShape = CHECK, number: int = 1) -> str:
    return read_line(number, json.dumps(document).encode(), shape).key


def test_the_key_ignores_position_key_order_spacing_and_synonyms() -> None:
    line = {"id": "q1", "answer": "Hi.", "facts": ["Hello."]}
    assert key(line, number=1) == key(line, number=40)
    spaced = b'{ "facts" : ["Hello."],  "answer_candidate": "Hi.", "id": "q1" }'
    assert read_line(1, spaced, CHECK).key == key(line)


def test_the_key_changes_with_anything_sent_and_with_the_id() -> None:
    line = {"id": "q1", "answer": "Hi.", "facts": ["Hello."]}
    variants = [
        {**line, "id": "q2"},
        {**line, "answer": "Hi!"},
        {**line, "facts": ["Hello.", "More."]},
        {**line, "citation_threshold": 0.9},
    ]
    keys = {key(line)} | {key(variant) for variant in variants}
    keys |= {key(line, RequestShape("corroborate")), key(line, RequestShape("check", 0.5))}
    keys.add(key(line, RequestShape("check", claim_scores=True)))
    assert len(keys) == 8


def test_a_flag_threshold_and_the_same_one_on_the_line_are_the_same_request() -> None:
    line = {"answer": "Hi.", "facts": ["Hello."]}
    assert key({**line, "citation_threshold": 0.9}) == key(line, RequestShape("check", 0.9))


def test_a_malformed_line_gets_its_problem_and_a_key_of_its_bytes() -> None:
    first = read_line(4, b"{this is not json\n", CHECK)
    assert first.item is None
    assert (first.problem or "").startswith("line 4: not valid JSON")
    assert first.key == read_line(9, b"{this is not json", CHECK).key
    assert first.key != read_line(4, b"{this is not json either", CHECK).key
