"""Labelled LLM responses from outside the project (RAGTruth-style), read into one shape.

Two sources: the engine-dev data (RAGTruth's training part, QA and Summary, found beside the
repository and never shipped with it) and the project's own data-to-text cases
(``cases_data_to_text.jsonl``: a business record and its reviews, an answer, and the
hallucinated parts of it). Requests are built the way the held-out check builds them: QA, one
fact per passage; Summary, the article in facts of at most 10,000 characters; data-to-text,
the record flattened into ``key: value`` lines (nested keys joined by spaces) in facts of at
most 10,000 characters, plus one fact per review.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
DATA_TO_TEXT_CASES = HERE / "cases_data_to_text.jsonl"
ENGINE_DEV_VARIABLE = "GROUNDWIRE_ENGINE_DEV"
MAX_FACT_CHARACTERS = 10_000
_PASSAGE_MARK = re.compile(r"passage \d+:")


@dataclass(frozen=True)
class Response:
    """One answer to check, its facts, and the character spans humans marked as hallucinated."""

    task: str
    source_id: str
    facts: tuple[str, ...]
    text: str
    hallucinated_spans: tuple[tuple[int, int], ...]

    @property
    def faithful(self) -> bool:
        """Whether humans found nothing hallucinated in it."""
        return not self.hallucinated_spans


def default_engine_dev() -> Path:
    """Where the engine-dev data is looked for: ``$GROUNDWIRE_ENGINE_DEV``, else beside the repo.

    Example:
        >>> default_engine_dev().name
        'engine-dev'
    """
    configured = os.environ.get(ENGINE_DEV_VARIABLE)
    return Path(configured) if configured else HERE.parents[2] / "shared" / "engine-dev"


def in_measure_part(source_id: str) -> bool:
    """Whether a source belongs to the part only measured on (a third, by a hash of its id).

    The split is by source, so the responses to one source never fall on both sides.

    Example:
        >>> in_measure_part("2"), in_measure_part("3")
        (False, True)
    """
    return hashlib.sha256(source_id.encode()).digest()[0] % 3 == 0


def chunk(text: str, limit: int = MAX_FACT_CHARACTERS) -> list[str]:
    """Cut text into facts of at most ``limit`` characters, at line or sentence ends if possible.

    Example:
        >>> chunk("ab. cd. ef.", limit=8)
        ['ab. cd.', 'ef.']
    """
    pieces: list[str] = []
    rest = text.strip()
    while len(rest) > limit:
        window = rest[:limit]
        cut = max(window.rfind("\n"), window.rfind(". ") + 1)
        cut = cut if cut > limit // 2 else limit
        pieces.append(rest[:cut].strip())
        rest = rest[cut:].strip()
    if rest:
        pieces.append(rest)
    return pieces


def flatten_record(record: Any, prefix: str = "") -> Iterator[str]:
    """Write a JSON business record as ``key: value`` lines, nested keys joined by spaces.

    Example:
        >>> list(flatten_record({"name": "Casa", "hours": {"Tuesday": "17:0-21:0"}}))
        ['name: Casa', 'hours Tuesday: 17:0-21:0']
    """
    if isinstance(record, dict):
        for key, value in record.items():
            yield from flatten_record(value, f"{prefix} {key}".strip())
    elif isinstance(record, list):
        yield f"{prefix}: {', '.join(str(item) for item in record)}"
    else:
        yield f"{prefix}: {record}"


def data_to_text_facts(record: dict[str, Any], reviews: list[dict[str, Any]]) -> tuple[str, ...]:
    """The facts of a data-to-text request: the flattened record, then one fact per review.

    Example:
        >>> data_to_text_facts({"name": "Casa"}, [{"stars": 4.0, "date": "2021-06-02",
        ...                                        "text": "Great tacos."}])
        ('name: Casa', 'Review (4.0 stars, 2021-06-02): Great tacos.')
    """
    lines = "\n".join(flatten_record(record))
    written = [f"Review ({r['stars']} stars, {r['date']}): {r['text']}" for r in reviews]
    return (*chunk(lines), *written)


def read_engine_dev(folder: Path) -> list[Response]:
    """Every response of ``ragtruth-train.jsonl`` in ``folder``, or none when it is absent."""
    path = folder / "ragtruth-train.jsonl"
    if not path.is_file():
        return []
    found: list[Response] = []
    with open(path, encoding="utf-8") as lines:
        for line in lines:
            source = json.loads(line)
            facts = _source_facts(source["task"], source["source"])
            for answer in source["responses"]:
                spans = tuple((label["start"], label["end"]) for label in answer["labels"])
                found.append(
                    Response(
                        source["task"], str(source["source_id"]), facts, answer["response"], spans
                    )
                )
    return found


def read_data_to_text(path: Path = DATA_TO_TEXT_CASES) -> list[Response]:
    """The project's own data-to-text responses; hallucinated parts are given as quoted text."""
    found: list[Response] = []
    with open(path, encoding="utf-8") as lines:
        for line in lines:
            if not line.strip():
                continue
            case = json.loads(line)
            text = case["response"]
            spans = []
            for part in case["hallucinated"]:
                start = text.index(part)
                spans.append((start, start + len(part)))
            facts = data_to_text_facts(case["record"], case["reviews"])
            found.append(Response("Data2txt", case["id"], facts, text, tuple(spans)))
    return found


def _source_facts(task: str, source: Any) -> tuple[str, ...]:
    if task == "QA":
        passages = [p.strip() for p in _PASSAGE_MARK.split(source["passages"]) if p.strip()]
        return tuple(passages)
    return tuple(chunk(str(source)))
