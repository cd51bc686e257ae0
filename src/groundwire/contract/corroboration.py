"""CorroborateContent's results: corroborated claims located in the content, read lazily.

>>> from groundwire.contract.apis import method
>>> response = method("aiplatform", "v1", "CorroborateContent").response_class()
>>> claim = response.claims.add(start_index=0, end_index=6, fact_indexes=[0])
>>> result = corroboration_result("東京です", ["a fact"], response)
>>> len(result.claims), result.claims[0].text, result.claims[0].facts
(1, '東京', ('a fact',))
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, final

from google.protobuf import message

from groundwire.contract.lazy import (
    LazySequence,
    Placed,
    Record,
    filled,
    optional,
    pick_each,
    raw_field,
    utf16_field,
)
from groundwire.contract.offsets import OffsetUnit, Utf16Offsets, place_claims
from groundwire.contract.rendering import CitationRendering, ClaimSpan


@final
class CorroboratedClaim(Record, Placed):
    """A claim of corroborated content and the facts that support it.

    `start_index`/`end_index` are what the API sent, in the unit the client was told
    (UTF-8 bytes by default); `start`/`end` index the content text as a Python str.
    """

    text: str
    start: int
    end: int
    start_index: int | None
    end_index: int | None
    start_utf16: int = utf16_field()
    end_utf16: int = utf16_field()
    fact_indexes: Sequence[int]
    facts: Sequence[message.Message]
    score: float | None = raw_field()
    """How well the facts corroborate the claim (None when the API sent none)."""
    offsets_adjusted: bool = False


class CorroborationResult(Record, CitationRendering):
    """How well facts corroborate content: overall score and the corroborated claims.

    The rendering methods (`with_citations`, ...) number the request's facts from 1.
    """

    content_text: str
    corroboration_score: float | None
    claims: Sequence[CorroboratedClaim]
    raw: message.Message

    def _rendered_text(self) -> str:
        return self.content_text

    def claim_spans(self) -> tuple[ClaimSpan, ...]:
        """Each claim's span and the facts (indices into the request's) that corroborate it.

        >>> claim = CorroboratedClaim("Rome", 0, 4, 0, 4, 0, 4, (1,), (), 0.8)
        >>> CorroborationResult("Rome.", 0.8, (claim,), None).claim_spans()
        (ClaimSpan(start=0, end=4, citations=(1,), unsupported=False),)
        """
        return tuple(
            ClaimSpan(
                claim.start,
                claim.end,
                tuple(index for index in claim.fact_indexes if index >= 0),
                not claim.fact_indexes,
            )
            for claim in self.claims
        )


def corroboration_result(
    content_text: str,
    facts: Sequence[message.Message],
    response: message.Message,
    unit: OffsetUnit = "utf8",
) -> CorroborationResult:
    """Builds the result of a CorroborateContent call; `unit` says what its indexes count."""
    raw: Any = response
    source = (content_text, tuple(facts), raw, unit)
    claims = LazySequence(_corroborated_claims, source, lambda source: len(source[2].claims))
    score = optional(raw, "corroboration_score")
    return filled(CorroborationResult, content_text, score, claims, raw)


def _corroborated_claims(
    source: tuple[str, tuple[message.Message, ...], Any, OffsetUnit],
) -> tuple[CorroboratedClaim, ...]:
    """Every claim of a response, all their offsets converted in one pass."""
    text, facts, raw, unit = source
    raw_claims = list(raw.claims)  # each pass over a repeated field makes new wrappers: one
    if not raw_claims:
        return ()
    starts = [optional(raw_claim, "start_index") for raw_claim in raw_claims]
    ends = [optional(raw_claim, "end_index") for raw_claim in raw_claims]
    # Claims carry no text to search for: one without positions is an empty, flagged span.
    bounds, flags = place_claims(text, starts, ends, [""] * len(raw_claims), unit)
    adjusted = [flag[0] for flag in flags] if flags else [False] * len(raw_claims)
    indexes = [tuple(raw_claim.fact_indexes[:]) for raw_claim in raw_claims]
    utf16 = Utf16Offsets(text, bounds)
    positions = iter(bounds)
    return tuple(
        filled(
            CorroboratedClaim,
            text=text[start:end],
            start=start,
            end=end,
            start_index=start_index,
            end_index=end_index,
            fact_indexes=fact_indexes,
            facts=cited,
            offsets_adjusted=snapped,
            _raw=raw_claim,
            _utf16=utf16,
        )
        for raw_claim, start, end, start_index, end_index, fact_indexes, cited, snapped in zip(
            raw_claims,
            positions,
            positions,
            starts,
            ends,
            indexes,
            pick_each(facts, indexes),
            adjusted,
            strict=True,
        )
    )
