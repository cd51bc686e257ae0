"""The batch part of each batchable RPC's spec: its item's text keys, its score and its record.

Apart from `groundwire.contract.spec`, which knows nothing of batches, and light: it loads no
protobuf, so `groundwire batch --help` is built from it at once.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from groundwire.features.records import check_record, corroboration_record


@dataclass(frozen=True)
class BatchSpec:
    """How one RPC runs in a batch: where an item's text is, and what its outcome records.

    Example:
        >>> BATCHABLE["CheckGrounding"].text_keys
        ('answer_candidate', 'answer')
    """

    rpc: str
    command: str
    """What `groundwire batch --method` calls it; each line's resume key hashes it."""
    service: str
    """The API's name, as the command line shows it."""
    many: str
    """The client method that runs a batch of it."""
    text_keys: tuple[str, ...]
    """The keys an item gives its text under: the argument's own name, then its synonyms."""
    score: str
    """The result's overall score: its attribute, and its name in the record."""
    record: Callable[[Any], dict[str, Any]]
    """The result as JSON, as the command line, `groundwire batch` and Beam write it."""
    claim_score_options: Mapping[str, Any] = field(default_factory=dict)
    """The options `groundwire batch --claim-scores` sets (none where claims get no score)."""

    def score_of(self, result: Any) -> float | None:
        """The overall score of a result of this RPC."""
        score: float | None = getattr(result, self.score)
        return score


BATCHABLE: Mapping[str, BatchSpec] = {
    spec.rpc: spec
    for spec in (
        BatchSpec(
            "CheckGrounding",
            command="check",
            service="Discovery Engine",
            many="check_grounding_many",
            text_keys=("answer_candidate", "answer"),
            score="support_score",
            record=check_record,
            claim_score_options={"enable_claim_level_score": True},
        ),
        BatchSpec(
            "CorroborateContent",
            command="corroborate",
            service="Vertex AI",
            many="corroborate_content_many",
            text_keys=("content", "answer_candidate", "answer"),
            score="corroboration_score",
            record=corroboration_record,
        ),
    )
}
"""Every batchable RPC's batch spec, by RPC name."""

BY_COMMAND: Mapping[str, BatchSpec] = {spec.command: spec for spec in BATCHABLE.values()}
"""The same, by the name `groundwire batch --method` takes."""
