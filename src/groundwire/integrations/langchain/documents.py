"""LangChain documents read as grounding facts, and a check's result in LangChain's wrapper's shape.

Pure and duck-typed (a document has ``page_content`` and ``metadata``), so it imports no
LangChain. It follows langchain-google-community's `VertexAICheckGroundingWrapper`, less three
bugs (docs/langchain.md): metadata values become strings, citations name the right document
after one without text, and `answer_with_citations` keeps the text between claims.

>>> class Doc:
...     def __init__(self, text, **metadata):
...         self.page_content, self.metadata = text, metadata
>>> read = document_facts([Doc(""), Doc("Tokyo is Japan's capital.", year=1868)])
>>> read.facts, read.documents[0].metadata
((("Tokyo is Japan's capital.", {'year': '1868'}),), {'year': 1868})
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from groundwire.contract.errors import bad_request
from groundwire.contract.results import CheckGroundingResult

__all__ = [
    "SKIPPED_METADATA",
    "WRAPPER_MARKER",
    "DocumentFacts",
    "attribute_text",
    "document_facts",
    "wrapper_fields",
]

SKIPPED_METADATA = frozenset({"id", "relevance_score"})
"""Metadata keys that are no evidence (a store's id, a retriever's score): not sent, as before."""

WRAPPER_MARKER = "[{i}]"
"""The wrapper's citation marker: the cited chunk's 0-based index into `cited_chunks`."""


def attribute_text(value: object) -> str:
    """A metadata value as the string a fact attribute must be; booleans, lists, dicts as JSON.

    Example:
        >>> attribute_text(1868), attribute_text(2.5), attribute_text(True)
        ('1868', '2.5', 'true')
        >>> attribute_text(["Curie", "Becquerel"]), attribute_text({"page": 3})
        ('["Curie", "Becquerel"]', '{"page": 3}')
    """
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, Mapping | list | tuple):
        try:
            return json.dumps(value, ensure_ascii=False, default=str)
        except (TypeError, ValueError):  # keys JSON cannot hold, or a cycle
            return str(value)
    return str(value)


@dataclass(frozen=True, slots=True)
class DocumentFacts:
    """The facts read from documents, as ``(text, attributes)``, and the document of each."""

    facts: tuple[tuple[str, dict[str, str]], ...]
    documents: tuple[Any, ...]

    def source_of(self, fact_index: int | None) -> Any:
        """The document behind the fact at `fact_index` (None when no fact has that index)."""
        if fact_index is None or not 0 <= fact_index < len(self.documents):
            return None
        return self.documents[fact_index]


def document_facts(documents: object, field: str = "documents") -> DocumentFacts:
    """Reads documents as facts: those with text, their metadata as string attributes.

    Metadata entries whose value is None, and the keys in `SKIPPED_METADATA`, are left out.

    Raises:
        InvalidArgument: `documents` is not a list of documents, or none of them has text.

    Example:
        >>> document_facts([])
        Traceback (most recent call last):
        ...
        groundwire.contract.errors.InvalidArgument: INVALID_ARGUMENT: no documents to ground on: ...
    """
    if not isinstance(documents, Sequence) or isinstance(documents, str | bytes):
        raise bad_request(
            [(field, f"expected a list of Documents, got {type(documents).__name__}")],
            f"{field} must be a list of Documents",
        )
    facts: list[tuple[str, dict[str, str]]] = []
    sources: list[Any] = []
    for index, document in enumerate(documents):
        text = getattr(document, "page_content", None)
        metadata = getattr(document, "metadata", None)
        if not isinstance(text, str) or not isinstance(metadata, Mapping | None):
            raise bad_request(
                [(f"{field}[{index}]", f"expected a Document, got {type(document).__name__}")],
                f"{field}[{index}] is not a Document",
            )
        if not text:
            continue  # no text, no evidence: left out, and no fact index is taken
        attributes = {
            str(key): attribute_text(value)
            for key, value in (metadata or {}).items()
            if value is not None and key not in SKIPPED_METADATA
        }
        facts.append((text, attributes))
        sources.append(document)
    if not facts:
        raise bad_request(
            [(field, "no document has any text")],
            f"no documents to ground on: {len(documents)} given, none with text "
            f'(pass them as config={{"configurable": {{"documents": [...]}}}})',
        )
    return DocumentFacts(tuple(facts), tuple(sources))


def wrapper_fields(result: CheckGroundingResult, read: DocumentFacts) -> dict[str, Any]:
    """The fields of the wrapper's response, from a check of the facts `read` gave.

    A cited chunk's ``source`` is its document; claims keep the wrapper's keys (UTF-8
    ``start_pos``/``end_pos``) plus str ``start``/``end``, ``score`` and
    ``grounding_check_required``. A missing support score is 0.0, as the wrapper's.

    Example:
        >>> from groundwire.contract.results import Chunk, Claim
        >>> chunk = Chunk("Tokyo is Japan's capital.", "0")
        >>> claim = Claim("東京です。", 0, 5, 0, 15, 0, 5, (chunk,), (0,), 0.9, True)
        >>> result = CheckGroundingResult("東京です。 Hi.", 0.9, (claim,), (chunk,), None)
        >>> fields = wrapper_fields(result, DocumentFacts(((chunk.text, {}),), ("the doc",)))
        >>> fields["answer_with_citations"], fields["cited_chunks"][0]["source"]
        ('東京です。[0] Hi.', 'the doc')
        >>> {key: fields["claims"][0][key] for key in ("start_pos", "end_pos", "start", "end")}
        {'start_pos': 0, 'end_pos': 15, 'start': 0, 'end': 5}
    """
    return {
        "support_score": 0.0 if result.support_score is None else result.support_score,
        "cited_chunks": [
            {"chunk_text": chunk.text, "source": read.source_of(chunk.fact_index)}
            for chunk in result.cited_chunks
        ],
        "claims": [
            {
                "claim_text": claim.text,
                "start_pos": claim.start_byte,
                "end_pos": claim.end_byte,
                "citation_indices": list(claim.citation_indices),
                "start": claim.start,
                "end": claim.end,
                "score": claim.score,
                "grounding_check_required": claim.grounding_check_required,
            }
            for claim in result.claims
        ],
        "answer_with_citations": result.with_citations(WRAPPER_MARKER),
    }
