"""Who answers a call: the one decision point before the engine, shared by gRPC and REST.

Both servers parse a request, wrap it in a `Call` and ask `Switchboard.steps(call)` what to
play: the call is first written to the journal (if one is kept), then each answerer is asked
in turn, and the first `Outcome` wins; when no answerer takes the call, the engine answers.
The servers only play the steps (`outcomes.Piece` and `outcomes.Ending`): wait, send, end.

An answerer is any callable `Call -> Outcome | None` (`Answerer`), asked in a worker thread,
so it may block (read a file, call upstream); a recorder answers with an `Answer` whose steps
come as its upstream sends them. Stubs (`stubs.StubAnswerer`) come first, then a replay or a
recorder (`replay.Replayer`, `recorder.Recorder`). Answerers
see the request as a message; `call.request_json()` gives Google's JSON of it.

Engine streams are cut into pieces of `Pacing.piece_chars` characters, sent
`Pacing.piece_delay_seconds` apart, when pacing is asked for (`serve --stream-piece-*`).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from google.protobuf import json_format
from google.protobuf.message import Message

from groundwire.contract.apis import Method
from groundwire.contract.errors import Internal
from groundwire.emulator import service
from groundwire.emulator.engine import BatchJudge
from groundwire.emulator.outcomes import Piece, Step

Transport = Literal["grpc", "rest"]


@dataclass(frozen=True)
class Call:
    """One request as the emulator received it: its method, transport and metadata.

    `metadata` is the gRPC metadata or the REST headers, names in lower case, as received
    (secrets included: the journal scrubs what it keeps).
    """

    method: Method
    request: Message
    transport: Transport
    metadata: tuple[tuple[str, str], ...] = ()
    received: float = 0.0
    """When the call arrived, in seconds since the epoch."""

    def request_json(self) -> dict[str, Any]:
        """Google's JSON of the request (camelCase field names)."""
        return json_format.MessageToDict(self.request)


class Answer(Protocol):
    """What an answerer answers with: an `Outcome`, or steps made as they are played."""

    def steps(self) -> Iterator[Step]:
        """The steps to play, in order (a recorder's come as its upstream sends them)."""


class Answerer(Protocol):
    """Answers a call with an outcome, or lets it pass (None) to the next answerer."""

    def __call__(self, call: Call) -> Answer | None:
        """The outcome for `call`, or None when this answerer does not take it."""


class JournalSink(Protocol):
    """Where the switchboard writes each call down (`journal.Journal`, or a shared one)."""

    def add_call(self, call: Call) -> None:
        """Keeps `call` (scrubbed) in the journal."""


@dataclass(frozen=True)
class Pacing:
    """How the engine's streamed answers are cut and timed; zeros keep its own pieces.

    Example:
        >>> Pacing(piece_chars=10, piece_delay_seconds=0.05).piece_chars
        10
    """

    piece_chars: int = 0
    piece_delay_seconds: float = 0.0

    def __post_init__(self) -> None:
        if self.piece_chars < 0 or self.piece_delay_seconds < 0:
            raise ValueError("stream pacing takes no negative numbers")


class Switchboard:
    """Decides who answers each call: the answerers in order, then the engine (with `judge`).

    Example:
        >>> from groundwire.contract.apis import method
        >>> check = method("discoveryengine", "v1", "CheckGrounding")
        >>> from groundwire.emulator.outcomes import outcome_from_json
        >>> canned = outcome_from_json(check, {"response": {"supportScore": 0.25}})
        >>> board = Switchboard([lambda call: canned])
        >>> call = Call(check, check.request_class(), "grpc")
        >>> [step.response.support_score for step in board.steps(call)]
        [0.25]
    """

    def __init__(
        self,
        answerers: Sequence[Answerer] = (),
        *,
        journal: JournalSink | None = None,
        pacing: Pacing = Pacing(),
        judge: BatchJudge | None = None,
    ) -> None:
        self.answerers = tuple(answerers)
        self.journal = journal
        self.pacing = pacing
        self.judge = judge

    def steps(self, call: Call) -> Iterator[Step]:
        """What to play for `call`, lazily; the engine's errors are raised as they come.

        Blocks (answerers may); servers call it, and consume the steps, in worker threads.
        """
        if self.journal is not None:
            self.journal.add_call(call)
        for answerer in self.answerers:
            outcome = answerer(call)
            if outcome is not None:
                return outcome.steps()
        return self._engine(call)

    def _engine(self, call: Call) -> Iterator[Step]:
        method = call.method
        if not method.server_streaming:
            answered = service.answer_unary(method, call.request, judge=self.judge)
            return iter([Piece(answered.response, 0.0, tuple(answered.metadata()))])
        responses = service.handle_stream(method, [call.request], self.judge)
        if not (self.pacing.piece_chars or self.pacing.piece_delay_seconds):
            return (Piece(response) for response in responses)
        return self._paced(method, responses)

    def _paced(self, method: Method, responses: Iterable[Message]) -> Iterator[Step]:
        pieces = list(responses)
        texts = [_text(piece) for piece in pieces]
        if self.pacing.piece_chars:
            whole = "".join(texts)
            size = self.pacing.piece_chars
            texts = [whole[start : start + size] for start in range(0, len(whole), size)] or [""]
            last: Any = pieces[-1]
            pieces = [_with_text(method, text) for text in texts[:-1]]
            candidate = last.candidates[0]
            candidate.content.parts[0].text = texts[-1]
            pieces.append(last)
        for number, piece in enumerate(pieces):
            yield Piece(piece, self.pacing.piece_delay_seconds if number else 0.0)


async def unary_piece(step: Step) -> Piece:
    """A unary call's one step played: its delay waited, then its piece, or its error raised."""
    if step.delay_seconds:
        await asyncio.sleep(step.delay_seconds)
    if isinstance(step, Piece):
        return step
    raise step.error or Internal("a unary call's outcome ends without an error")


def received_now() -> float:
    """The time a call arrives, for `Call.received`."""
    return time.time()


def _text(response: Any) -> str:
    return "".join(part.text for part in response.candidates[0].content.parts)


def _with_text(method: Method, text: str) -> Message:
    response: Any = method.response_class()
    candidate = response.candidates.add(index=0)
    candidate.content.role = "model"
    candidate.content.parts.add(text=text)
    return response
