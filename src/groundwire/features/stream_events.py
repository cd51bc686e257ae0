"""The events of a streamed answer or check, as JSON-ready dicts: one schema for the web and CLI.

`groundwire.web` frames them as Server-Sent Events or NDJSON lines. Every offset comes in
three units: `start`/`end` (code points), `start_utf16`/`end_utf16` and `start_byte`/`end_byte`.

>>> piece_event("東京", 5)
('piece', {'text': '東京', 'length': 5})
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from groundwire.contract.errors import GroundwireError
from groundwire.contract.generation import GenerateResult
from groundwire.contract.offsets import offsets_in
from groundwire.features.records import claim_record, error_record, score
from groundwire.features.sentence_stream import SentenceCheck, StreamSummary

Event = tuple[str, dict[str, Any]]
"""An event's name (`piece`, `check`, `summary`, `error`) and its JSON data."""


def piece_event(added: str, length: int) -> Event:
    """A generated piece: the text it adds, and the merged text's length (in `str` code points)."""
    return "piece", {"text": added, "length": length}


def check_event(check: SentenceCheck) -> Event:
    """A checked sentence (or group): its text, offsets, support score and claims."""
    claims = [
        {**claim_record(claim), "start_utf16": claim.start_utf16, "end_utf16": claim.end_utf16}
        for claim in check.claims
    ]
    return "check", {
        "text": check.text,
        **check.offsets._asdict(),
        "support_score": score(check.support_score),
        "claims": claims,
    }


def check_summary_event(summary: StreamSummary) -> Event:
    """The end of a checked stream: weighted support, calls, sentences, characters billed."""
    return "summary", {**asdict(summary), "support_score": score(summary.support_score)}


def merged_summary_event(merged: GenerateResult) -> Event:
    """The end of a generated stream: score, sources (numbered once) and supports citing them."""
    text = merged.text
    supports = []
    for support in merged.grounding_supports:
        data: dict[str, Any] = {"claim_text": support.claim_text}
        data.update(offsets_in(text, support.start, support.end)._asdict())
        data["sources"] = list(support.chunk_indices)
        data["score"] = score(support.score)
        supports.append(data)
    return "summary", {
        "length": len(text),
        "grounding_score": score(merged.grounding_score),
        "sources": [
            {"text": chunk.text, "source": chunk.source, "uri": chunk.uri, "title": chunk.title}
            for chunk in merged.support_chunks
        ],
        "supports": supports,
    }


def error_event(error: GroundwireError) -> Event:
    """A failure that ended the stream: its canonical code and one-line message."""
    return "error", error_record(error)
