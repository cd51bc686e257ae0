"""Cuts a text that arrives in chunks into sentences as each completes, for checking as it streams.

Pure: `SentenceGroups` is fed chunks (`str`, or UTF-8 `bytes` split anywhere) and gives back
each complete group of sentences with its whole-text offsets; `groundwire.features.grounding_stream`
checks them. Where a sentence ends: docs/streaming.md.

>>> groups = SentenceGroups()
>>> [g.text for g in groups.feed("Tokyo is big. ")]
[]
>>> [g.text for g in groups.feed("東京は大きい。Kyoto")]
['Tokyo is big.', '東京は大きい。']
>>> [(g.text, g.offsets.start) for g in groups.finish()]
[('Kyoto', 21)]
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from groundwire.contract.chunks import Chunk
from groundwire.contract.errors import ConfigurationError, bad_request
from groundwire.contract.facts import any_fact_parts
from groundwire.contract.offsets import Offsets, offsets_in, shifted
from groundwire.contract.results import CheckGroundingResult, Claim

TITLES = frozenset({"Dr", "Mr", "Mrs", "Ms", "Prof", "St", "Jr", "Sr", "No", "vs", "etc"})
"""Words after which a period ends no sentence (a single capital letter is one too)."""

_CLOSERS = "\"'”’)\\]»」』"
_END = re.compile(rf"[.!?…]+[{_CLOSERS}]*(?=\s)|[。！？]+[{_CLOSERS}]*|\n")
_TRAILING = frozenset(".!?…。！？" + _CLOSERS.replace("\\", "") + " \t\r\n\u00a0\u3000")
_VISIBLE = re.compile(r"\S")
_WORD_BEFORE = re.compile(r"(\w+)\Z")


class SentenceGroup(NamedTuple):
    """Sentences to check together: their text and where it lies in the whole text."""

    text: str
    offsets: Offsets
    sentences: int


class SentenceGroups:
    """The sentence cutter: `feed` chunks, then `finish`; each returns the groups completed.

    A group holds `sentences_per_check` sentences, more while shorter than `min_chars`.
    """

    def __init__(self, sentences_per_check: int = 1, min_chars: int = 0) -> None:
        if not isinstance(sentences_per_check, int) or sentences_per_check < 1:
            raise ConfigurationError(
                f"sentences_per_check must be a whole number >= 1, not {sentences_per_check!r}"
            )
        if not isinstance(min_chars, int) or min_chars < 0:
            raise ConfigurationError(f"min_chars must be a whole number >= 0, not {min_chars!r}")
        self._per_check, self._min_chars = sentences_per_check, min_chars
        self._decoder = codecs.getincrementaldecoder("utf-8")("strict")
        self._pending = ""  # the text not yet in an emitted group
        self._base = Offsets(0, 0, 0, 0, 0, 0)  # start*: where `_pending` starts in the text
        self._sentence_start = 0  # in `_pending`: where the next sentence starts
        self._scan = 0  # in `_pending`: where to look for the next end
        self._group: list[tuple[int, int]] = []  # sentences (start, end) in `_pending`
        self._drop = 0  # the end of the last group emitted, in `_pending`

    def feed(self, chunk: str | bytes) -> list[SentenceGroup]:
        """Adds a chunk of the text; returns the groups it completes, in order."""
        if isinstance(chunk, bytes):
            try:
                chunk = self._decoder.decode(chunk)
            except UnicodeDecodeError as error:
                raise _not_utf8(error) from None
        elif not isinstance(chunk, str):
            raise bad_request(
                [("text_chunks", f"expected str or bytes chunks, got {type(chunk).__name__}")],
                "text_chunks must yield str or bytes",
            )
        self._pending += chunk
        return self._cut(final=False)

    def finish(self) -> list[SentenceGroup]:
        """Ends the text; returns the groups still to check (the rest, however short)."""
        try:
            self._pending += self._decoder.decode(b"", final=True)
        except UnicodeDecodeError as error:
            raise _not_utf8(error) from None
        groups = self._cut(final=True)
        self._add_sentence(self._sentence_start, len(self._pending))
        if self._group:
            groups.append(self._emit())
        self._compact()
        return groups

    def _cut(self, *, final: bool) -> list[SentenceGroup]:
        """The groups completed by the text so far (all of it, when `final`)."""
        pending, groups = self._pending, list[SentenceGroup]()
        position = self._scan
        while (end := _END.search(pending, position)) is not None:
            mark = end.group()
            if mark == "\n":
                self._close_sentence(end.start(), end.end(), groups)
            else:
                visible = _VISIBLE.search(pending, end.end())
                if visible is None and not final:  # the next character decides: wait for it
                    self._scan = end.start()
                    self._compact()
                    return groups
                if mark[0] in "。！？" or _ends_sentence(pending, end.start(), mark, visible):
                    self._close_sentence(end.end(), end.end(), groups)
            position = end.end()
        tail = len(pending)
        while tail > position and pending[tail - 1] in _TRAILING:
            tail -= 1
        self._scan = tail
        self._compact()
        return groups

    def _close_sentence(self, end: int, next_start: int, groups: list[SentenceGroup]) -> None:
        self._add_sentence(self._sentence_start, end)
        self._sentence_start = next_start
        if len(self._group) >= self._per_check:
            first, last = self._group[0][0], self._group[-1][1]
            if last - first >= self._min_chars:
                groups.append(self._emit())

    def _add_sentence(self, start: int, end: int) -> None:
        text = self._pending[start:end]
        stripped = text.strip()
        if stripped:
            start += len(text) - len(text.lstrip())
            self._group.append((start, start + len(stripped)))

    def _emit(self) -> SentenceGroup:
        """The group gathered so far, with its whole-text offsets."""
        first, last = self._group[0][0], self._group[-1][1]
        offsets = shifted(offsets_in(self._pending, first, last), self._base)
        group = SentenceGroup(self._pending[first:last], offsets, len(self._group))
        self._drop, self._group = last, []
        return group

    def _compact(self) -> None:
        """Lets go of the text before the last group emitted: memory stays one group's."""
        drop = self._drop
        if not drop:
            return
        self._base = shifted(offsets_in(self._pending, drop, drop), self._base)
        self._pending = self._pending[drop:]
        self._sentence_start -= drop
        self._scan = max(self._scan - drop, 0)
        self._group = [(start - drop, end - drop) for start, end in self._group]
        self._drop = 0


def _ends_sentence(text: str, mark_start: int, mark: str, visible: re.Match[str] | None) -> bool:
    """Whether ``. ! ? …`` at `mark_start` ends a sentence, by the words after and before."""
    if visible is not None and visible.group().islower():
        return False
    if mark[0] != "." or mark.startswith(".."):
        return True
    before = _WORD_BEFORE.search(text, max(mark_start - 8, 0), mark_start)
    if before is None:
        return True
    word = before.group(1)
    return not ((len(word) == 1 and word.isupper()) or word in TITLES)


def _not_utf8(error: UnicodeDecodeError) -> Exception:
    return bad_request(
        [("text_chunks", f"the bytes are not UTF-8: {error.reason}")],
        "text_chunks must be UTF-8",
    )


def fact_characters(facts: Iterable[Any]) -> int:
    """The characters of the facts' texts, which every check of the stream is billed for.

    >>> fact_characters(["東京", ("Paris.", {"author": "x"}), {"text": "abc"}])
    11
    """
    return sum(len(any_fact_parts(fact, index)[0]) for index, fact in enumerate(facts))


@dataclass(frozen=True)
class SentenceCheck:
    """One checked group of sentences: where it lies in the whole text, and its verdict.

    `claims` are `result`'s claims (relative to `text`) moved to whole-text offsets.
    """

    text: str
    offsets: Offsets
    result: CheckGroundingResult
    claims: tuple[Claim, ...]

    @property
    def support_score(self) -> float | None:
        """The check's support score (None when the service sent none)."""
        return self.result.support_score


def sentence_check(group: SentenceGroup, result: CheckGroundingResult) -> SentenceCheck:
    """`result` of checking `group`, its claims moved to whole-text offsets."""
    claims = tuple(
        moved_claim(claim, shifted(offsets_in(group.text, claim.start, claim.end), group.offsets))
        for claim in result.claims
    )
    return SentenceCheck(group.text, group.offsets, result, claims)


def moved_claim(claim: Claim, at: Offsets, citations: Sequence[Chunk] | None = None) -> Claim:
    """`claim` placed at `at` (its span in the whole text), citing `citations` (else its own)."""
    if citations is None:
        citations, indices = claim.citations, claim.citation_indices
    else:
        indices = tuple(chunk.index for chunk in citations)
    return Claim(
        claim.text,
        *at.claim_order(),
        citations,
        indices,
        claim.score,
        claim.grounding_check_required,
        claim.offsets_adjusted,
        claim.located,
    )


@dataclass(frozen=True)
class StreamSummary:
    """What a whole stream's checks came to; `support_score` weighted by claim length."""

    support_score: float | None
    calls: int
    sentences: int
    billed_characters: int


class StreamTally:
    """Adds up the checks of one stream, each sending `facts_characters` of facts."""

    def __init__(self, facts_characters: int) -> None:
        self._facts_characters = facts_characters
        self._weighted = self._weight = 0.0
        self._calls = self._sentences = self._billed = 0

    def add(self, group: SentenceGroup, check: SentenceCheck) -> None:
        """Counts one check of `group`."""
        self._calls += 1
        self._sentences += group.sentences
        self._billed += len(group.text) + self._facts_characters
        score = check.support_score
        if score is not None:
            weight = sum(len(claim.text) for claim in check.claims) or len(check.text)
            self._weighted += score * weight
            self._weight += weight

    def summary(self) -> StreamSummary:
        """The summary so far."""
        score = self._weighted / self._weight if self._weight else None
        return StreamSummary(score, self._calls, self._sentences, self._billed)
