"""Immutable results that read their raw response only as far as the caller reads them.

This module holds CheckGrounding's results and names all the others. A result is a view of
its response, ``.raw``, which it must own: building one reads only its score; its claims are a
`LazySequence`, all built (all offsets converted) at the first read of one; a claim's score is
read when read. Results compare by value, refuse assignment, and can be built by hand:

>>> CheckGroundingResult("Hi.", None, (), (), None).claims
()
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import repeat
from operator import attrgetter, itemgetter
from typing import Any, final

from google.protobuf import message

from groundwire.contract.chunks import Chunk, chunks_of
from groundwire.contract.corroboration import (
    CorroboratedClaim,
    CorroborationResult,
    corroboration_result,
)
from groundwire.contract.generation import (
    Candidate,
    GenerateResult,
    GroundingSupport,
    generate_result,
)
from groundwire.contract.lazy import (
    LazySequence,
    Placed,
    Record,
    draft_class,
    optional_column,
    pick_each,
    raw_field,
    utf16_field,
)
from groundwire.contract.offsets import Utf16Offsets, place_claims
from groundwire.contract.rendering import CitationRendering, ClaimSpan

__all__ = [
    "Candidate",
    "CheckGroundingResult",
    "Chunk",
    "Claim",
    "CorroboratedClaim",
    "CorroborationResult",
    "GenerateResult",
    "GroundingSupport",
    "LazySequence",
    "check_grounding_result",
    "corroboration_result",
    "generate_result",
]

_new = object.__new__


@final
class Claim(Record, Placed):
    """One claim of a checked answer.

    `start`/`end` index the answer as a Python str; `start_byte`/`end_byte` are what the
    API sent; `start_utf16`/`end_utf16` suit JavaScript. `offsets_adjusted`: the API's offsets
    were snapped onto characters; `located`: they were missing and the claim text was found.
    """

    text: str
    start: int
    end: int
    start_byte: int | None
    end_byte: int | None
    start_utf16: int = utf16_field()
    end_utf16: int = utf16_field()
    citations: Sequence[Chunk]
    citation_indices: Sequence[int]
    score: float | None = raw_field()
    """How well the cited facts support the claim, 0 to 1 (None when the API sent none)."""
    grounding_check_required: bool | None = raw_field()
    """False for a claim that needs no facts (a greeting, say); None when unset."""
    offsets_adjusted: bool = False
    located: bool = False

    @property
    def supported(self) -> bool:
        """True when at least one fact supports the claim (it has citations)."""
        return bool(self.citations)


_ClaimDraft = draft_class(Claim)


def _claim(
    text: str,
    start: int,
    end: int,
    start_byte: int | None,
    end_byte: int | None,
    citations: tuple[Chunk, ...],
    citation_indices: tuple[int, ...],
    offsets_adjusted: bool,
    located: bool,
    raw: Any,
    utf16: tuple[int, int] | Utf16Offsets,
) -> Claim:
    claim: Any = _new(_ClaimDraft)
    claim.text, claim.start, claim.end = text, start, end
    claim.start_byte, claim.end_byte = start_byte, end_byte
    claim.citations, claim.citation_indices = citations, citation_indices
    claim.offsets_adjusted, claim.located = offsets_adjusted, located
    claim._raw, claim._utf16 = raw, utf16
    claim.__class__ = Claim  # read-only from here; a draft, not `filled`: once per claim
    return claim


class CheckGroundingResult(Record, CitationRendering):
    """How well an answer is supported: overall score, claims, and the chunks they cite.

    The rendering methods (`with_citations`, ...) number `cited_chunks` from 1.
    """

    answer_candidate: str
    support_score: float | None
    claims: Sequence[Claim]
    cited_chunks: Sequence[Chunk]
    raw: message.Message

    @property
    def unsupported_claims(self) -> tuple[Claim, ...]:
        """Claims that need a check and that no fact supports."""
        return tuple(
            c for c in self.claims if c.grounding_check_required is not False and not c.supported
        )

    def _rendered_text(self) -> str:
        return self.answer_candidate

    def claim_spans(self) -> tuple[ClaimSpan, ...]:
        """Each claim's span, its citations (indices into `cited_chunks`) and whether unsupported.

        >>> claim = Claim("Hi.", 0, 3, 0, 3, 0, 3, (), (), None, None)
        >>> CheckGroundingResult("Hi.", None, (claim,), (), None).claim_spans()
        (ClaimSpan(start=0, end=3, citations=(), unsupported=True),)
        """
        count = len(self.cited_chunks)
        return tuple(
            ClaimSpan(
                claim.start,
                claim.end,
                tuple(index for index in claim.citation_indices if 0 <= index < count),
                claim.grounding_check_required is not False and not claim.supported,
            )
            for claim in self.claims
        )


def check_grounding_result(
    answer_candidate: str, response: message.Message
) -> CheckGroundingResult:
    """Builds the result of a CheckGrounding call, reading only its score.

    >>> from groundwire.contract.apis import method
    >>> response = method("discoveryengine", "v1", "CheckGrounding").response_class()
    >>> claim = response.claims.add(start_pos=0, end_pos=6, claim_text="東京")
    >>> result = check_grounding_result("東京です", response)
    >>> len(result.claims), result.claims.built
    (1, False)
    >>> result.claims[0].end, result.claims.built
    (2, True)
    """
    raw: Any = response
    chunks = LazySequence(_chunks_of, raw, _count_chunks)
    result: Any = _new(_CheckDraft)  # a draft, not `filled`: this is every call's result
    result.answer_candidate, result.raw, result.cited_chunks = answer_candidate, raw, chunks
    score = raw.support_score
    result.support_score = score if score or raw.HasField("support_score") else None
    result.claims = LazySequence(_check_claims, (answer_candidate, raw, chunks), _count_claims)
    result.__class__ = CheckGroundingResult
    return result


_CheckDraft = draft_class(CheckGroundingResult)


def _chunks_of(raw: Any) -> tuple[Chunk, ...]:
    return chunks_of(raw.cited_chunks[:], ())  # each text decoded at its first read


def _count_chunks(raw: Any) -> int:
    return len(raw.cited_chunks)


def _count_claims(source: tuple[str, Any, Any]) -> int:
    return len(source[1].claims)


def _check_claims(source: tuple[str, Any, LazySequence[Chunk]]) -> tuple[Claim, ...]:
    """Every claim of a response, all their offsets converted in one pass.

    The usual response (every position sent, rising, on a character boundary, every citation
    in range) is read in one loop that fills each claim as it reads it; any other goes to
    `_claims_by_rules`, which applies every rule of `place_claims`.
    """
    answer, raw, cited_chunks = source
    encoded = b"" if answer.isascii() else answer.encode()
    size = len(encoded) if encoded else len(answer)
    bounds: list[int] = []  # [start0, end0, start1, ...]: what the UTF-16 offsets are found for
    utf16 = Utf16Offsets(answer, bounds)  # shared, and filled below before any lookup
    drafts: list[Any] = []
    cited: list[int] = []  # every index cited, repeats too: a few, so a list is cheapest
    previous_byte = previous_point = 0
    try:
        for raw_claim in raw.claims[:]:  # a slice: iterating raises an IndexError at its end
            start_byte, end_byte = raw_claim.start_pos, raw_claim.end_pos
            if (
                not previous_byte <= start_byte <= end_byte <= size
                or (not start_byte and not raw_claim.HasField("start_pos"))  # unset: located
                or (not end_byte and not raw_claim.HasField("end_pos"))
            ):
                return _claims_by_rules(answer, raw, cited_chunks)
            if encoded:  # a gap decoded at a time: it raises when a position splits a character
                start = previous_point + len(encoded[previous_byte:start_byte].decode())
                previous_point = end = start + len(encoded[start_byte:end_byte].decode())
            else:
                start, end = start_byte, end_byte
            previous_byte = end_byte
            claim: Any = _new(_ClaimDraft)
            claim.text, claim.start, claim.end = raw_claim.claim_text, start, end
            claim.start_byte, claim.end_byte = start_byte, end_byte
            claim.citation_indices = indices = tuple(raw_claim.citation_indices[:])  # [:]: 2×
            claim.offsets_adjusted = claim.located = False
            claim._raw, claim._utf16 = raw_claim, utf16
            drafts.append(claim)
            bounds += (start, end)
            cited += indices
    except UnicodeDecodeError:
        return _claims_by_rules(answer, raw, cited_chunks)
    if not drafts:
        return ()
    cited.sort()  # the chunks to decode now: those the claims cite (one sort: min and max cost 2)
    chunks = cited_chunks.built_by(chunks_of, raw.cited_chunks[:], cited)
    if cited and (cited[0] < 0 or cited[-1] >= len(chunks)):
        return _claims_by_rules(answer, raw, cited_chunks)  # an index the API should not send
    for claim in drafts:
        indices = claim.citation_indices
        if len(indices) > 1:
            claim.citations = itemgetter(*indices)(chunks)
        else:
            claim.citations = (chunks[indices[0]],) if indices else ()
        claim.__class__ = Claim  # read-only from here
    return tuple(drafts)


def _claims_by_rules(answer: str, raw: Any, cited_chunks: LazySequence[Chunk]) -> tuple[Claim, ...]:
    """`_check_claims` for any response: positions placed by every rule, one column at a time."""
    raw_claims = list(raw.claims)  # each pass over a repeated field makes new wrappers: one
    if not raw_claims:
        return ()
    starts = optional_column(raw_claims, "start_pos")
    ends = optional_column(raw_claims, "end_pos")
    texts = list(map(attrgetter("claim_text"), raw_claims))
    bounds, flags = place_claims(answer, starts, ends, texts, "utf8")
    adjusted, located = zip(*flags, strict=True) if flags else (repeat(False), repeat(False))
    indices = [tuple(raw_claim.citation_indices[:]) for raw_claim in raw_claims]  # [:]: 2× faster
    cited = set().union(*indices)  # the chunks to decode now: those the claims cite
    chunks = cited_chunks.built_by(chunks_of, raw.cited_chunks, cited)
    # The columns zipped by map, in C: one call of _claim per claim and no other Python loop.
    return tuple(
        map(
            _claim,
            texts,
            bounds[0::2],
            bounds[1::2],
            starts,
            ends,
            pick_each(chunks, indices),
            indices,
            adjusted,
            located,
            raw_claims,
            repeat(Utf16Offsets(answer, bounds)),
        )
    )
