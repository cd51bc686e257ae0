"""The emulated methods as pure request → response functions, shared by the gRPC and REST servers.

Nothing here does I/O: a server parses a request, calls `handle_unary` or `handle_stream` and
sends what comes back; a `GroundwireError` raised here is the status both protocols report.

Decisions where the API leaves room:

* GenerateGroundedContent without grounding sources answers anyway (the real service lets a
  model answer ungrounded); the extractive engine has nothing to draw on, so the answer has no
  grounding metadata and `grounding_score` 0.
* CorroborateContent joins the content's text parts with no separator, so claim offsets index
  the parts' plain concatenation. `parameters.citation_threshold` is a plain double, so 0 (unset
  on the wire) means the documented default, 0.6.
* The streaming method answers each request it receives on its own, in pieces of a few words;
  the last piece of each answer carries the grounding metadata.
* CheckGrounding and CorroborateContent each get a deterministic :class:`WorkBudget` (counted in
  the engine's units of work, not seconds, so the same request always gets the same answer).
  Claims it does not reach are unsupported and uncited, and the servers report how many in
  :data:`UNFINISHED_CLAIMS_HEADER` (a response header over REST, trailing metadata over gRPC);
  when every claim was checked the header is absent.
* A user's judge (:mod:`groundwire.emulator.judges`), when the server has one, scores the claims
  of every method in the engine's place; its failures are the call's INTERNAL or
  DEADLINE_EXCEEDED.
"""

from __future__ import annotations

import contextlib
import gc
import re
import threading
from collections.abc import Generator, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from google.protobuf.message import Message

from groundwire.contract.apis import Method
from groundwire.contract.errors import FailedPrecondition, NotFound, Unimplemented
from groundwire.contract.spec import spec_for
from groundwire.emulator.engine import BatchJudge, Fact, WorkBudget, generate_answer
from groundwire.emulator.engine import check_grounding as check_answer
from groundwire.emulator.locations import check_location

DEFAULT_CITATION_THRESHOLD = 0.6
DEFAULT_GROUNDING_CONFIG = "default_grounding_config"
UNFINISHED_CLAIMS_HEADER = "x-groundwire-unfinished-claims"
"""How many claims the work budget did not reach; sent only when some were not."""
WORDS_PER_STREAMED_PIECE = 4

_WORD_WITH_SPACE = re.compile(r"\s*\S+\s*")
_REMOTE_SOURCES = {
    "search_source": "Vertex AI Search",
    "google_search_source": "Google Search",
    "enterprise_web_retrieval_source": "enterprise web retrieval",
}
Responses = Generator[Message, None, None]
"""The responses of a streaming call, made one by one as they are consumed."""

_INLINE_CONTENT = 2  # RetrievalMetadata.Source.INLINE_CONTENT


@dataclass(frozen=True)
class Answered:
    """A unary call's response, and how many of its claims the work budget did not reach."""

    response: Message
    unfinished_claims: int = 0

    def metadata(self) -> list[tuple[str, str]]:
        """What to send beside the response: a REST header or gRPC trailing metadata.

        Example:
            >>> Answered(Message(), 2).metadata(), Answered(Message()).metadata()
            ([('x-groundwire-unfinished-claims', '2')], [])
        """
        if not self.unfinished_claims:
            return []
        return [(UNFINISHED_CLAIMS_HEADER, str(self.unfinished_claims))]


def handle_unary(method: Method, request: Message, *, judge: BatchJudge | None = None) -> Message:
    """Answers one call of a unary method, once its spec finds the request within the limits.

    With a `judge`, it scores the claims in the engine's place.

    Example:
        >>> from groundwire.contract.apis import method
        >>> check = method("discoveryengine", "v1", "CheckGrounding")
        >>> request = check.request_class(
        ...     grounding_config="projects/p/locations/global/groundingConfigs/"
        ...     "default_grounding_config", answer_candidate="Hi!")
        >>> handle_unary(check, request).claims[0].grounding_check_required
        False
    """
    return answer_unary(method, request, judge=judge).response


def answer_unary(method: Method, request: Message, *, judge: BatchJudge | None = None) -> Answered:
    """`handle_unary`, with the count of claims the work budget did not reach.

    Example:
        >>> from groundwire.contract.apis import method
        >>> check = method("discoveryengine", "v1", "CheckGrounding")
        >>> request = check.request_class(
        ...     grounding_config="projects/p/locations/global/groundingConfigs/"
        ...     "default_grounding_config", answer_candidate="Rome is old.")
        >>> answer_unary(check, request).unfinished_claims
        0
    """
    handler = _UNARY.get(method.name)
    if handler is None or method.server_streaming:
        raise Unimplemented(f"{method.grpc_path} is not a unary method of the emulator")
    spec_for(method).check(method, request)
    check_location(method, request)
    with _collector_paused(judge):
        return handler(method, request, judge)


def handle_stream(
    method: Method, requests: Iterable[Message], judge: BatchJudge | None = None
) -> Responses:
    """Answers a streaming call: the responses to `requests`, lazily, in order.

    Each request is checked by the method's spec when its turn comes.

    Example:
        >>> from groundwire.contract.apis import method
        >>> stream = method("discoveryengine", "v1", "StreamGenerateGroundedContent")
        >>> request = stream.request_class(location="projects/p/locations/global")
        >>> _ = request.contents.add(role="user", parts=[{"text": "Hello?"}])
        >>> len(list(handle_stream(stream, [request]))) >= 1
        True
    """
    handler = _STREAMING.get(method.name)
    if handler is None or not method.server_streaming:
        raise Unimplemented(f"{method.grpc_path} is not a streaming method of the emulator")
    spec = spec_for(method)

    def checked() -> Iterable[Message]:
        for request in requests:
            spec.check(method, request)
            check_location(method, request)
            yield request

    return handler(method, checked(), judge)


def check_grounding(method: Method, request: Message, judge: BatchJudge | None = None) -> Answered:
    """CheckGrounding: the engine's claims, citations into deduplicated `cited_chunks`.

    v1 and v1beta also list `cited_facts` parallel to `cited_chunks`, and give each claim a
    `score` when `grounding_spec.enable_claim_level_score` asks for it.
    """
    fields: Any = request
    _check_grounding_config(fields.grounding_config)
    spec = fields.grounding_spec
    threshold = spec.citation_threshold if spec.HasField("citation_threshold") else None
    facts = [Fact(fact.fact_text, dict(fact.attributes)) for fact in fields.facts]
    result = check_answer(
        fields.answer_candidate,
        facts,
        citation_threshold=DEFAULT_CITATION_THRESHOLD if threshold is None else threshold,
        budget=WorkBudget(),
        judge=judge,
    )
    response: Any = method.response_class()
    has_cited_facts = "cited_facts" in response.DESCRIPTOR.fields_by_name
    claim_scores = (
        "enable_claim_level_score" in spec.DESCRIPTOR.fields_by_name
        and spec.enable_claim_level_score
    )
    chunk_indices: dict[tuple[int, str], int] = {}
    for claim in result.claims:
        citation_indices = []
        for citation in claim.citations:
            key = (citation.fact_index, citation.text)
            if key not in chunk_indices:
                chunk_indices[key] = len(chunk_indices)
                response.cited_chunks.add(
                    chunk_text=citation.text,
                    source=str(citation.fact_index),
                    source_metadata=facts[citation.fact_index].attributes,
                )
                if has_cited_facts:
                    response.cited_facts.add(chunk_text=citation.text)
            citation_indices.append(chunk_indices[key])
        added = response.claims.add(
            start_pos=claim.start_byte,
            end_pos=claim.end_byte,
            claim_text=claim.text,
            citation_indices=citation_indices,
            grounding_check_required=claim.check_required,
        )
        if claim_scores:
            added.score = claim.score
    if result.support_score is not None:
        response.support_score = result.support_score
    return Answered(response, result.unfinished_claims)


def corroborate_content(
    method: Method, request: Message, judge: BatchJudge | None = None
) -> Answered:
    """CorroborateContent: claims at or above the citation threshold, offsets in UTF-8 bytes.

    A fact's text is its `summary`, else its chunk's text; `title` and `uri` count as evidence.
    """
    fields: Any = request
    content_text = "".join(part.text for part in fields.content.parts)
    fact_texts = [fact.summary or fact.chunk.text for fact in fields.facts]
    threshold = fields.parameters.citation_threshold or DEFAULT_CITATION_THRESHOLD
    facts = [
        Fact(text, _present(fact, ("title", "uri")))
        for text, fact in zip(fact_texts, fields.facts, strict=True)
    ]
    result = check_answer(
        content_text, facts, citation_threshold=threshold, budget=WorkBudget(), judge=judge
    )
    response: Any = method.response_class()
    for claim in result.claims:
        if not claim.check_required or claim.score < threshold:
            continue
        response.claims.add(
            start_index=claim.start_byte,
            end_index=claim.end_byte,
            fact_indexes=sorted({citation.fact_index for citation in claim.citations}),
            score=claim.score,
        )
    if result.support_score is not None:
        response.corroboration_score = result.support_score
    return Answered(response, result.unfinished_claims)


def generate_grounded_content(
    method: Method, request: Message, judge: BatchJudge | None = None
) -> Answered:
    """GenerateGroundedContent: an extractive answer to the last user turn from inline facts.

    Sources that need Google (search, Google Search, enterprise web retrieval) fail with
    FAILED_PRECONDITION: the emulator works offline.
    """
    return Answered(_answer(method, request, chunk_index=False, judge=judge))


def stream_generate_grounded_content(
    method: Method, requests: Iterable[Message], judge: BatchJudge | None = None
) -> Responses:
    """StreamGenerateGroundedContent: each request's answer in pieces of a few words.

    Only the last piece of an answer carries `grounding_score` and `grounding_metadata`, whose
    support chunks have their `index` set.
    """
    for request in requests:
        with _collector_paused(judge):
            complete: Any = _answer(method, request, chunk_index=True, judge=judge)
        candidate = complete.candidates[0]
        pieces = _pieces(candidate.content.parts[0].text)
        for number, piece in enumerate(pieces, start=1):
            response: Any = method.response_class()
            added = response.candidates.add(index=0)
            added.content.role = "model"
            added.content.parts.add(text=piece)
            if number == len(pieces):
                added.grounding_score = candidate.grounding_score
                if candidate.HasField("grounding_metadata"):
                    added.grounding_metadata.CopyFrom(candidate.grounding_metadata)
            yield response


def _answer(
    method: Method, request: Message, *, chunk_index: bool, judge: BatchJudge | None
) -> Message:
    fields: Any = request
    inline_sources = _inline_sources(fields.grounding_spec.grounding_sources)
    facts = [
        Fact(fact.fact_text, {**source.attributes, **fact.attributes})
        for source in inline_sources
        for fact in source.grounding_facts
    ]
    answer = generate_answer(_question(fields.contents), facts, judge=judge)
    response: Any = method.response_class()
    candidate = response.candidates.add(index=0)
    candidate.content.role = "model"
    candidate.content.parts.add(text=answer.text)
    supports = answer.supports if facts else ()
    scores = [support.score for support in supports]
    candidate.grounding_score = sum(scores) / len(scores) if scores else 0.0
    if not facts:
        return response
    metadata = candidate.grounding_metadata
    metadata.retrieval_metadata.add(source=_INLINE_CONTENT)
    chunk_indices: dict[int, int] = {}
    for support in supports:
        for fact_index in support.fact_indices:
            if fact_index not in chunk_indices:
                chunk_indices[fact_index] = len(chunk_indices)
                chunk = metadata.support_chunks.add(
                    chunk_text=facts[fact_index].text,
                    source=str(fact_index),
                    source_metadata=facts[fact_index].attributes,
                )
                if chunk_index:
                    chunk.index = chunk_indices[fact_index]
        metadata.grounding_support.add(
            claim_text=support.claim_text,
            support_chunk_indices=[chunk_indices[i] for i in support.fact_indices],
            support_score=support.score,
        )
    return response


def _inline_sources(sources: Sequence[Any]) -> list[Any]:
    """The inline sources; the spec has refused sources that name none."""
    inline = []
    for index, source in enumerate(sources):
        kind = source.WhichOneof("source")
        if kind in _REMOTE_SOURCES:
            field = f"grounding_spec.grounding_sources[{index}].{kind}"
            raise _offline(field, _REMOTE_SOURCES[kind])
        inline.append(source.inline_source)
    return inline


def _offline(field: str, service: str) -> FailedPrecondition:
    from google.rpc.error_details_pb2 import PreconditionFailure

    description = (
        f"the groundwire emulator works offline and cannot reach {service}; "
        "ground on inline_source facts instead"
    )
    violation = PreconditionFailure.Violation(
        type="EMULATOR_OFFLINE", subject=field, description=description
    )
    return FailedPrecondition(
        f"{field}: {description}", details=(PreconditionFailure(violations=[violation]),)
    )


def _question(contents: Sequence[Any]) -> str:
    """The prompt: the last turn that is not the model's (the spec refused requests without one)."""
    turn = next(content for content in reversed(contents) if content.role != "model")
    return " ".join(part.text for part in turn.parts)


def _pieces(text: str) -> list[str]:
    words = _WORD_WITH_SPACE.findall(text)
    if not words:
        return [text]
    size = WORDS_PER_STREAMED_PIECE
    return ["".join(words[start : start + size]) for start in range(0, len(words), size)]


def _present(message: Any, names: Sequence[str]) -> Mapping[str, str]:
    return {name: getattr(message, name) for name in names if message.HasField(name)}


def _check_grounding_config(name: str) -> None:
    """The one grounding config there is; the spec has checked the name's form."""
    if name.rpartition("/")[2] != DEFAULT_GROUNDING_CONFIG:
        from google.rpc.error_details_pb2 import ResourceInfo

        info = ResourceInfo(
            resource_type="discoveryengine.googleapis.com/GroundingConfig",
            resource_name=name,
            description=f"the only grounding config is {DEFAULT_GROUNDING_CONFIG}",
        )
        raise NotFound(
            f"grounding config {name!r} does not exist; use .../groundingConfigs/"
            f"{DEFAULT_GROUNDING_CONFIG}",
            details=(info,),
        )


_paused_calls = 0
_pause_lock = threading.Lock()
_collector_was_enabled = False


@contextlib.contextmanager
def _collector_paused(judge: BatchJudge | None) -> Iterator[None]:
    """Runs an engine call with Python's cyclic garbage collector off, on again once none runs.

    Indexing the largest request's facts makes millions of containers (CJK text: 1.8 million
    terms), and the collector would scan the whole heap again and again while they are made:
    that nearly doubled the call (3.5 -> 1.8 s of CPU). The engine's garbage is freed by
    reference counting; anything cyclic waits for the next collection. Not while a judge
    scores: its calls can take seconds each and overlap, and a model's garbage needs the
    collector.
    """
    if judge is not None:
        yield
        return
    global _paused_calls, _collector_was_enabled
    with _pause_lock:
        if _paused_calls == 0:
            _collector_was_enabled = gc.isenabled()
            gc.disable()
        _paused_calls += 1
    try:
        yield
    finally:
        with _pause_lock:
            _paused_calls -= 1
            if _paused_calls == 0 and _collector_was_enabled:
                gc.enable()


_UNARY = {
    "CheckGrounding": check_grounding,
    "CorroborateContent": corroborate_content,
    "GenerateGroundedContent": generate_grounded_content,
}
_STREAMING = {"StreamGenerateGroundedContent": stream_generate_grounded_content}
