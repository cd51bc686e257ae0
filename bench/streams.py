"""Streams: the cost of merging a generated stream, and of grounding a text stream per sentence.

Against the embedded emulator (gRPC on loopback). The stream grounding reads a multi-byte
answer as 4-byte tokens and checks each sentence, at 1 and at 4 checks in flight; beside it,
a plain `check_grounding` of the same sentences, one after another, from the same client.
The merge is timed on the pieces of real streamed answers, per piece. The split: an answer
past 4,096 tokens against 400 facts, `check_grounding(..., split=True)` beside the same
planned calls made one after another, and the planning and merging alone (no I/O).
"""

from __future__ import annotations

import time
from typing import Any

from groundwire.emulator import emulator
from groundwire.features.sentence_stream import SentenceGroups
from groundwire.features.split import SplitCheckResult, fact_arguments, merge_checks, plan_split
from groundwire.features.stream_merge import merge_pieces

FACTS = [
    "東京は日本の首都であり、最大の都市です。",
    "Paris is the capital of France and its largest city.",
    "The Seine flows through Paris before reaching the English Channel.",
]
SENTENCE_KINDS = (
    "東京は日本の首都です{n}。",
    "Paris is the capital of France 🇫🇷 ({n}).",
    "The Seine flows through Paris, not Lyon {n}!",
)


def _answer(sentences: int) -> str:
    return " ".join(SENTENCE_KINDS[n % 3].format(n=n) for n in range(sentences))


def _tokens(text: str) -> list[bytes]:
    encoded = text.encode()
    return [encoded[i : i + 4] for i in range(0, len(encoded), 4)]


def _best(run: Any, repeats: int) -> float:
    """The fastest of `repeats` runs of `run()`, in seconds."""
    best = float("inf")
    for _ in range(repeats):
        started = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - started)
    return best


def measure(sentences: int = 60, repeats: int = 3) -> dict[str, Any]:
    """Milliseconds per sentence (stream grounding, plain checks) and µs per merged piece."""
    answer = _answer(sentences)
    tokens = _tokens(answer)
    cutter = SentenceGroups()
    groups = [g for token in tokens for g in cutter.feed(token)] + cutter.finish()
    texts = [group.text for group in groups]
    if len(texts) != sentences:
        raise AssertionError(f"cut {len(texts)} sentences, not {sentences}")
    found: dict[str, Any] = {"sentences": sentences, "tokens": len(tokens)}
    with emulator() as emu, emu.client(transport="grpc") as client:
        client.check_grounding(texts[0], FACTS)  # connect before timing

        def plain() -> None:
            for text in texts:
                client.check_grounding(text, FACTS)

        def streamed(concurrency: int) -> Any:
            def run() -> None:
                checked = list(
                    client.check_grounding_stream(tokens, FACTS, concurrency=concurrency)
                )
                if [check.text for check in checked] != texts:
                    raise AssertionError("the stream checked other sentences")

            return run

        for _ in range(repeats):  # alternate, to share the machine's drift
            for name, run in (
                ("plain_ms", plain),
                ("stream_1_ms", streamed(1)),
                ("stream_4_ms", streamed(4)),
            ):
                seconds = _best(run, 1) / sentences * 1000
                found[name] = min(found.get(name, seconds), seconds)
        found.update(_split(client, repeats))
        streams = [
            list(client.stream_generate_grounded_content(question, facts=FACTS))
            for question in ("東京は首都ですか?", "Paris?", "Where does the Seine flow?")
        ]

    def merge_all() -> None:
        for _ in range(100):
            for pieces in streams:
                merge_pieces(pieces)

    pieces = sum(len(each) for each in streams)
    found["pieces"] = pieces
    found["merge_us_per_piece"] = _best(merge_all, repeats) / 100 / pieces * 1e6
    found["stream_1_vs_plain"] = found["stream_1_ms"] / found["plain_ms"]
    found["stream_4_vs_plain"] = found["stream_4_ms"] / found["plain_ms"]
    return found


def _split(client: Any, repeats: int) -> dict[str, Any]:
    """The split check's cost beside its planned calls made one by one, and its pure part."""
    long_answer = _answer(1_200)  # past 4,096 tokens
    many_facts = FACTS + [f"Background note {n} 🐙." for n in range(397)]
    plan = plan_split(long_answer, many_facts, "v1")
    calls = plan.requests()
    results: list[Any] = []

    def split() -> None:
        merged = client.check_grounding(long_answer, many_facts, split=True)
        if not isinstance(merged, SplitCheckResult) or merged.calls != plan.calls:
            raise AssertionError("the split made other calls than planned")

    def one_by_one() -> None:
        results[:] = [
            client.check_grounding(part.text, fact_arguments(group), enable_claim_level_score=True)
            for part, group in calls
        ]

    def plan_and_merge() -> None:
        merge_checks(plan_split(long_answer, many_facts, "v1"), results)

    found: dict[str, Any] = {"split_calls": plan.calls}
    for _ in range(repeats):
        for name, run in (("split_ms", split), ("split_one_by_one_ms", one_by_one)):
            seconds = _best(run, 1) * 1000
            found[name] = min(found.get(name, seconds), seconds)
    found["split_plan_merge_ms"] = _best(plan_and_merge, repeats) * 1000
    found["split_vs_one_by_one"] = found["split_ms"] / found["split_one_by_one_ms"]
    return found
