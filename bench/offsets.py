"""Offset conversion throughput: groundwire's one-pass resolver against a naive per-claim one.

The answer is the longest legal one (4,096 tokens) of multi-byte text, with 50 claims spread
across it. The naive baseline is what an application would write by hand: for each claim,
encode the answer again, decode the bytes before each offset, and measure UTF-16 the same way.
Both produce the same code point and UTF-16 offsets (checked before timing).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from bench import workload
from groundwire.contract.offsets import resolve_byte_spans
from groundwire.contract.validation import MAX_ANSWER_TOKENS

CLAIMS = workload.LONG_CLAIMS
Positions = list[tuple[int | None, int | None, str]]


def naive(text: str, positions: Positions) -> list[tuple[int, int, int, int]]:
    """Per claim: re-encode, decode each prefix, count UTF-16 units of each prefix."""
    found = []
    for start_byte, end_byte, _claim in positions:
        encoded = text.encode("utf-8")
        start = len(encoded[:start_byte].decode("utf-8"))
        end = len(encoded[:end_byte].decode("utf-8"))
        start_utf16 = len(text[:start].encode("utf-16-le")) // 2
        end_utf16 = len(text[:end].encode("utf-16-le")) // 2
        found.append((start, end, start_utf16, end_utf16))
    return found


def groundwire(text: str, positions: Positions) -> list[tuple[int, int, int, int]]:
    """groundwire.contract.offsets.resolve_byte_spans, reduced to the same tuples."""
    return [
        (s.start, s.end, s.start_utf16, s.end_utf16) for s in resolve_byte_spans(text, positions)
    ]


def _rate(
    convert: Callable[[str, Positions], object], text: str, positions: Positions, seconds: float
) -> float:
    """Conversions (of all claims of one answer) per second, best of 5 slices of the budget."""
    best = 0.0
    for _ in range(5):
        count, started = 0, time.perf_counter()
        while (elapsed := time.perf_counter() - started) < seconds / 5:
            convert(text, positions)
            count += 1
        best = max(best, count / elapsed)
    return best


def measure(seconds: float = 2.0) -> dict[str, Any]:
    """Answers converted per second by each method, alternating to share the machine's drift."""
    answer = workload.make_workload(workload.long_answer_sentences(MAX_ANSWER_TOKENS), 0, 0)
    positions: Positions = list(workload.spread(answer.sentence_bytes, CLAIMS))
    if naive(answer.answer, positions) != groundwire(answer.answer, positions):
        raise AssertionError("the two conversions disagree")
    rates: dict[str, list[float]] = {"groundwire": [], "naive": []}
    for _ in range(2):
        rates["groundwire"].append(_rate(groundwire, answer.answer, positions, seconds / 4))
        rates["naive"].append(_rate(naive, answer.answer, positions, seconds / 4))
    best = {name: max(found) for name, found in rates.items()}
    return {
        "answer_characters": len(answer.answer),
        "answer_bytes": len(answer.answer.encode()),
        "claims": len(positions),
        "groundwire_per_second": best["groundwire"],
        "naive_per_second": best["naive"],
        "speedup": best["groundwire"] / best["naive"],
    }
