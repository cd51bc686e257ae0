"""The grounding engine: checks answers against facts and answers from facts, offline.

Pure and deterministic, no I/O: the emulator's CheckGrounding, CorroborateContent and grounded
generation handlers call it. :func:`check_grounding` splits an answer into claims (sentences,
with UTF-8 byte offsets) and scores each against windows of the facts; :func:`generate_answer`
builds an extractive answer with its supports. A :class:`WorkBudget` bounds the work one
request may cost, deterministically. A :data:`BatchJudge` of the user's own may score the
candidate windows instead of the lexical rules (the table in :mod:`.rules`).
"""

from groundwire.emulator.engine.budget import WorkBudget
from groundwire.emulator.engine.generate import NO_ANSWER, generate_answer
from groundwire.emulator.engine.grounding import BatchJudge, check_grounding
from groundwire.emulator.engine.results import (
    AnswerSupport,
    Citation,
    Claim,
    Fact,
    GeneratedAnswer,
    GroundingResult,
)
from groundwire.emulator.engine.sentences import split_claims

__all__ = [
    "NO_ANSWER",
    "AnswerSupport",
    "BatchJudge",
    "Citation",
    "Claim",
    "Fact",
    "GeneratedAnswer",
    "GroundingResult",
    "WorkBudget",
    "check_grounding",
    "generate_answer",
    "split_claims",
]
