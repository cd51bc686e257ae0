"""Plain JSON records of results, one shape wherever they are written.

The command line's `--json`, `groundwire batch`'s lines and the Beam transforms' output.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

_SHOWN_VIOLATIONS = 3

if TYPE_CHECKING:
    from groundwire.contract.errors import GroundwireError
    from groundwire.contract.results import (
        CheckGroundingResult,
        Chunk,
        Claim,
        CorroborationResult,
        GenerateResult,
        GroundingSupport,
    )


def score(value: float | None) -> float | None:
    """A score as JSON: float32 noise dropped (the API sends 0.4365 as 0.43650001287…).

    >>> score(0.43650001287460327), score(None)
    (0.4365, None)
    """
    return None if value is None else float(f"{value:.7g}")


def citation_record(chunk: Chunk) -> dict[str, Any]:
    """A cited fact: its index in the request's facts and its text, or else its `source`."""
    record: dict[str, Any] = {"fact_index": chunk.fact_index, "text": chunk.text}
    if chunk.fact_index is None:
        record["source"] = chunk.source
    return record


def check_record(result: CheckGroundingResult) -> dict[str, Any]:
    """A check result as JSON: `answer_candidate[start:end]` is each claim's text."""
    record: dict[str, Any] = {"answer_candidate": result.answer_candidate}
    record["support_score"] = score(result.support_score)
    record["claims"] = [claim_record(claim) for claim in result.claims]
    return record


def claim_record(claim: Claim) -> dict[str, Any]:
    """A checked claim as JSON: its text, offsets, verdict, score and citations."""
    return {
        "text": claim.text,
        "start": claim.start,
        "end": claim.end,
        "start_byte": claim.start_byte,
        "end_byte": claim.end_byte,
        "supported": claim.supported,
        "grounding_check_required": claim.grounding_check_required,
        "score": score(claim.score),
        "citations": [citation_record(chunk) for chunk in claim.citations],
    }


def corroboration_record(result: CorroborationResult) -> dict[str, Any]:
    """A corroboration result as JSON: `content[start:end]` is each claim's text."""
    record: dict[str, Any] = {"content": result.content_text}
    record["corroboration_score"] = score(result.corroboration_score)
    record["claims"] = [
        {
            "text": claim.text,
            "start": claim.start,
            "end": claim.end,
            "start_index": claim.start_index,
            "end_index": claim.end_index,
            "fact_indexes": list(claim.fact_indexes),
            "score": score(claim.score),
        }
        for claim in result.claims
    ]
    return record


def chunk_record(index: int, chunk: Chunk) -> dict[str, Any]:
    """A support chunk of a generated answer, numbered as `chunk_indices` refer to it."""
    record: dict[str, Any] = {
        "index": index,
        "text": chunk.text,
        "source": chunk.source,
        "fact_index": chunk.fact_index,
    }
    for name in ("uri", "title", "domain"):
        value = getattr(chunk, name)
        if value:
            record[name] = value
    return record


def _span(support: GroundingSupport, answer: str | None) -> tuple[int | None, int | None]:
    if answer is None:
        return (support.start, support.end) if support.located else (None, None)
    start = answer.find(support.claim_text)
    return (None, None) if start < 0 else (start, start + len(support.claim_text))


def generate_record(result: GenerateResult, answer: str | None = None) -> dict[str, Any]:
    """A generated answer as JSON; supports index `answer`, a streamed piece's text so far."""
    first = result.candidates[0] if result.candidates else None
    return {
        "text": result.text,
        "grounding_score": score(result.grounding_score),
        "support_chunks": [chunk_record(i, c) for i, c in enumerate(result.support_chunks)],
        "grounding_supports": [
            {
                "claim_text": support.claim_text,
                "start": _span(support, answer)[0],
                "end": _span(support, answer)[1],
                "chunk_indices": list(support.chunk_indices),
                "score": score(support.score),
            }
            for support in result.grounding_supports
        ],
        "web_search_queries": list(first.web_search_queries) if first else [],
    }


def error_record(error: GroundwireError) -> dict[str, Any]:
    """A failed call as JSON: the canonical code's name and the message (no terminal advice).

    >>> from groundwire.contract.errors import Unavailable
    >>> error_record(Unavailable("down"))
    {'code': 'UNAVAILABLE', 'message': 'down'}
    """
    return {"code": error.code.name, "message": error_message(error)}


def error_message(error: GroundwireError) -> str:
    """What went wrong, in one line: the BadRequest field violations if any, else the message.

    >>> from groundwire.contract.errors import bad_request
    >>> error_message(bad_request([("facts[3].fact_text", "is empty")], "invalid"))
    'facts[3].fact_text: is empty'
    """
    from google.rpc.error_details_pb2 import BadRequest

    bad_request = error.detail(BadRequest)
    violations = list(bad_request.field_violations) if bad_request is not None else []
    if violations:
        shown = [
            f"{v.field}: {v.description}" if v.field else v.description
            for v in violations[:_SHOWN_VIOLATIONS]
        ]
        more = len(violations) - _SHOWN_VIOLATIONS
        text = "; ".join(shown) + (f" (and {more} more)" if more > 0 else "")
    else:
        text = error.message or "no message"
    return " ".join(text.split())


def outcome_record(
    record_id: Any,
    result: dict[str, Any] | None = None,
    error: GroundwireError | None = None,
) -> dict[str, Any]:
    """A batch element's record: `{"id", "result"}`, or `{"id", "error": {"code", "message"}}`.

    `result` is the result's own record, as its RPC's batch spec writes it (`record`).

    >>> from groundwire.contract.errors import InvalidArgument
    >>> outcome_record(7, error=InvalidArgument("no facts"))
    {'id': 7, 'error': {'code': 'INVALID_ARGUMENT', 'message': 'no facts'}}
    """
    if error is not None:
        return {"id": record_id, "error": error_record(error)}
    if result is None:
        raise ValueError(f"the record of element {record_id!r} needs a result or an error")
    return {"id": record_id, "result": result}


def record_line(record: dict[str, Any]) -> bytes:
    r"""One output line: compact JSON (UTF-8, not escaped) and a newline.

    >>> record_line({"line": 3, "key": "ab", "id": "q-3", "result": {"support_score": 0.9}})
    b'{"line":3,"key":"ab","id":"q-3","result":{"support_score":0.9}}\n'
    """
    return (json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n").encode()
