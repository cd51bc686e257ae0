"""Documents read as facts, and results in the wrapper's shape: no LangChain needed to check it."""

from __future__ import annotations

import datetime
from dataclasses import dataclass, field
from typing import Any

import pytest

from groundwire.contract.apis import method
from groundwire.contract.errors import InvalidArgument
from groundwire.contract.results import check_grounding_result
from groundwire.integrations.langchain.documents import (
    DocumentFacts,
    attribute_text,
    document_facts,
    wrapper_fields,
)


@dataclass
class Doc:
    """What langchain-core's Document offers the reader: its text and its metadata."""

    page_content: str
    metadata: Any = field(default_factory=dict)


@pytest.mark.parametrize(
    ("value", "text"),
    [
        ("Atlas", "Atlas"),
        (3, "3"),
        (-2.5, "-2.5"),
        (True, "true"),
        (False, "false"),
        (["a", "東京"], '["a", "東京"]'),
        ({"page": 3}, '{"page": 3}'),
        ((1, 2), "[1, 2]"),
        (datetime.date(1868, 10, 23), "1868-10-23"),
        ({1: "one", "two": 2}, '{"1": "one", "two": 2}'),
    ],
)
def test_every_metadata_value_becomes_a_string(value: object, text: str) -> None:
    assert attribute_text(value) == text


def test_a_value_json_cannot_hold_is_its_str() -> None:
    looped: list[Any] = []
    looped.append(looped)
    assert attribute_text(looped) == "[[...]]"


def test_documents_without_text_take_no_fact_index() -> None:
    tokyo, paris = Doc("Tokyo."), Doc("Paris.")
    read = document_facts([Doc(""), tokyo, Doc("", None), paris])
    assert [text for text, _attributes in read.facts] == ["Tokyo.", "Paris."]
    assert read.documents == (tokyo, paris)
    assert read.source_of(1) is paris
    assert read.source_of(2) is None
    assert read.source_of(None) is None


def test_none_values_and_the_wrappers_skipped_keys_are_not_sent() -> None:
    metadata = {"id": "d1", "relevance_score": 0.9, "author": None, "page": 4, 7: "seven"}
    read = document_facts([Doc("Tokyo.", metadata)])
    assert read.facts == (("Tokyo.", {"page": "4", "7": "seven"}),)


@pytest.mark.parametrize(
    "documents",
    [[], [Doc("")], "Tokyo.", [Doc("Tokyo."), "Paris."], [Doc("Tokyo.", ["not", "a", "map"])]],
    ids=["empty", "no-text", "a-string", "a-string-inside", "bad-metadata"],
)
def test_what_is_no_list_of_documents_with_text_is_an_invalid_argument(documents: object) -> None:
    with pytest.raises(InvalidArgument):
        document_facts(documents)


def test_the_wrappers_fields_come_from_the_result_with_str_and_byte_offsets() -> None:
    answer = "東京です。\nParis."
    response: Any = method("discoveryengine", "v1", "CheckGrounding").response_class()
    response.cited_chunks.add(chunk_text="Tokyo is Japan's capital.", source="1")
    response.cited_chunks.add(chunk_text="Paris, France.", source="0")
    response.claims.add(start_pos=0, end_pos=15, claim_text="東京です。", citation_indices=[0])
    response.claims.add(start_pos=16, end_pos=22, claim_text="Paris.", citation_indices=[1, 0])
    result = check_grounding_result(answer, response)
    documents = ("paris-doc", "tokyo-doc")
    fields = wrapper_fields(result, DocumentFacts((("a", {}), ("b", {})), documents))
    assert fields["support_score"] == 0.0
    assert fields["cited_chunks"] == [
        {"chunk_text": "Tokyo is Japan's capital.", "source": "tokyo-doc"},
        {"chunk_text": "Paris, France.", "source": "paris-doc"},
    ]
    assert fields["claims"][1] == {
        "claim_text": "Paris.",
        "start_pos": 16,
        "end_pos": 22,
        "citation_indices": [1, 0],
        "start": 6,
        "end": 12,
        "score": None,
        "grounding_check_required": None,
    }
    assert fields["answer_with_citations"] == "東京です。[0]\nParis.[1][0]"
