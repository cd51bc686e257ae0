"""The requests and canned responses every benchmark sends, built once and deterministically.

Texts are multi-byte on purpose (CJK, emoji with ZWJ sequences and flags, accents), since
converting Google's UTF-8 byte offsets is part of what a client does with each answer.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from groundwire_protos.google.cloud.discoveryengine.v1 import check_grounding_pb2

PROJECT = "bench-project"
GROUNDING_CONFIG = f"projects/{PROJECT}/locations/global/groundingConfigs/default_grounding_config"

SENTENCES = (
    "東京は日本の首都であり、人口は約1400万人です。",
    "The Café Müller in Zürich opened in 1912 and still serves crème brûlée ☕.",
    "La tour Eiffel mesure environ 330 mètres de hauteur.",
    "🚀 SpaceX launched the Falcon 9 rocket from Cape Canaveral in Florida.",
    "München liegt an der Isar und ist die Hauptstadt Bayerns.",
    "北京烤鸭是中国最著名的菜肴之一。",
    "São Paulo é a maior cidade do Brasil 🇧🇷.",
    "Mount Fuji (富士山) is 3,776 metres tall 🗻.",
    "Ελλάδα is the Greek name for Greece, whose capital is Athens.",
    "The 👩‍👩‍👧 family emoji is a sequence joined by zero-width joiners.",
)
"""One claim each; facts below support them, so the engine has real work to do."""

_FACT_FILLER = (
    "Tokyo, officially the Tokyo Metropolis, is the capital of Japan and one of its 47 "
    "prefectures; 東京都の人口は約1400万人で、日本で最も多い。",
    "Café Müller in Zürich has served coffee and crème brûlée since it opened in 1912; "
    "the café is a short walk from the Limmat.",
    "The Eiffel Tower (la tour Eiffel) is about 330 metres tall; elle mesure environ 330 "
    "mètres depuis 2022.",
    "SpaceX launches Falcon 9 rockets from Cape Canaveral Space Force Station in Florida 🚀.",
    "München, the capital of Bavaria (Bayern), lies on the river Isar north of the Alps.",
    "Peking duck (北京烤鸭) is one of the most famous dishes of Chinese cuisine.",
    "São Paulo is the largest city in Brazil 🇧🇷 and in the Southern Hemisphere.",
    "Mount Fuji (富士山) is the highest mountain in Japan at 3,776 metres 🗻.",
    "Greece (Ελλάδα) is a country in southeastern Europe; its capital is Athens (Αθήνα).",
    "Emoji such as 👩‍👩‍👧 are sequences of code points joined by the zero-width joiner.",
)


@dataclass(frozen=True)
class Fact:
    """A fact as a user passes it: its text and attributes."""

    text: str
    attributes: dict[str, str]


@dataclass(frozen=True)
class Workload:
    """An answer, the facts to check it against, and where each sentence sits in it."""

    answer: str
    facts: tuple[Fact, ...]
    sentence_bytes: tuple[tuple[int, int, str], ...]


def _fact_text(first: int, size_bytes: int) -> str:
    """A fact of about `size_bytes` UTF-8 bytes, cycling through the filler from `first`."""
    parts: list[str] = []
    length = 0
    for sentence in itertools.islice(itertools.cycle(_FACT_FILLER), first, None):
        if length >= size_bytes:
            break
        parts.append(sentence)
        length += len(sentence.encode()) + 1
    return " ".join(parts)


def _byte_spans(sentences: tuple[str, ...]) -> tuple[tuple[int, int, str], ...]:
    spans = []
    position = 0
    for sentence in sentences:
        size = len(sentence.encode())
        spans.append((position, position + size, sentence))
        position += size + 1  # the joining space
    return tuple(spans)


def make_workload(sentences: tuple[str, ...], fact_count: int, fact_bytes: int) -> Workload:
    """An answer made of `sentences` joined by spaces and `fact_count` facts of `fact_bytes`."""
    facts = tuple(
        Fact(
            _fact_text(index * 2, fact_bytes),
            {"author": f"Source {index}", "title": f"Reference {index} — résumé"},
        )
        for index in range(fact_count)
    )
    return Workload(" ".join(sentences), facts, _byte_spans(sentences))


def typical() -> Workload:
    """The client benchmarks' request: a 10-sentence answer and 5 facts of about 1 KB."""
    return make_workload(SENTENCES, fact_count=5, fact_bytes=1024)


def users() -> Workload:
    """A user's request: the 10-sentence answer and 3 facts of about 512 bytes."""
    return make_workload(SENTENCES, fact_count=3, fact_bytes=512)


def small() -> Workload:
    """The engine's small request: a 5-sentence answer and 5 facts of about 1 KB."""
    return make_workload(SENTENCES[:5], fact_count=5, fact_bytes=1024)


def long_answer_sentences(max_tokens: int) -> tuple[str, ...]:
    """Sentences cycling through SENTENCES whose join has at most `max_tokens` tokens."""
    from groundwire.contract.validation import count_tokens

    sentences: list[str] = []
    tokens = 0
    for sentence in itertools.cycle(SENTENCES):
        cost = count_tokens(sentence)
        if tokens + cost > max_tokens:
            return tuple(sentences)
        sentences.append(sentence)
        tokens += cost
    raise AssertionError("unreachable")


def largest() -> Workload:
    """The largest legal request: 200 facts of 10,000 characters and a 4,096-token answer."""
    from groundwire.contract.validation import MAX_ANSWER_TOKENS, MAX_FACT_CHARACTERS, MAX_FACTS

    workload = make_workload(
        long_answer_sentences(MAX_ANSWER_TOKENS), MAX_FACTS, fact_bytes=MAX_FACT_CHARACTERS * 2
    )
    facts = tuple(Fact(fact.text[:MAX_FACT_CHARACTERS], fact.attributes) for fact in workload.facts)
    return Workload(workload.answer, facts, workload.sentence_bytes)


def long_answer() -> Workload:
    """The long client request: a 4,096-token answer and the typical 5 facts of about 1 KB."""
    from groundwire.contract.validation import MAX_ANSWER_TOKENS

    return make_workload(long_answer_sentences(MAX_ANSWER_TOKENS), fact_count=5, fact_bytes=1024)


LONG_CLAIMS = 50
CITATIONS_PER_CLAIM = 2


def spread(spans: tuple[tuple[int, int, str], ...], count: int) -> list[tuple[int, int, str]]:
    """`count` of `spans` spread evenly from first to last (all of them if there are fewer)."""
    if count >= len(spans):
        return list(spans)
    step = len(spans) / count
    return [spans[int(index * step)] for index in range(count)]


def canned_response(
    workload: Workload,
    claims: int | None = None,
    *,
    cited_facts: bool = True,
    claim_scores: bool = True,
) -> check_grounding_pb2.CheckGroundingResponse:
    """What the canned server answers: `claims` sentences (default all) as cited claims.

    Each claim carries its UTF-8 byte offsets and cites CITATIONS_PER_CLAIM chunks (one per
    fact); `cited_facts` and `claim_scores` add what a response may also carry.
    """
    response = check_grounding_pb2.CheckGroundingResponse(support_score=0.87)
    for index, fact in enumerate(workload.facts):
        response.cited_chunks.add(chunk_text=fact.text, source=str(index))
        if cited_facts:
            response.cited_facts.add(chunk_text=fact.text)
    spans = workload.sentence_bytes if claims is None else spread(workload.sentence_bytes, claims)
    for index, (start, end, text) in enumerate(spans):
        claim = response.claims.add(
            start_pos=start,
            end_pos=end,
            claim_text=text,
            citation_indices=[
                (index + cited) % len(workload.facts) for cited in range(CITATIONS_PER_CLAIM)
            ],
            grounding_check_required=True,
        )
        if claim_scores:
            claim.score = 0.9 - index / 100
    return response


def request_message(workload: Workload) -> check_grounding_pb2.CheckGroundingRequest:
    """The raw protobuf request, as a bare-stub user would build it."""
    request = check_grounding_pb2.CheckGroundingRequest(
        grounding_config=GROUNDING_CONFIG, answer_candidate=workload.answer
    )
    for fact in workload.facts:
        request.facts.add(fact_text=fact.text, attributes=fact.attributes)
    return request
