"""What a call is answered with, whoever decided it: one model the gRPC and REST servers both play.

An `Outcome` is pure data: the response pieces to send (a unary call's response is one piece),
each after its delay, then how the call ends: normally, with an error, or by closing the
connection mid-stream. A delay longer than the caller's deadline is a stall: the caller gives
up first. Stubs, and any other answerer at `answering.Switchboard`, build outcomes from
Google's JSON (`outcome_from_json`) and can write them back (`outcome_to_json`).

The JSON of an outcome, as a stub (or a recording) spells it, has exactly one of:

* `"response": {...}`: Google's JSON of the method's response message;
* `"error": {"code": "UNAVAILABLE", "message": "...", "details": [...]}`: the code by name or
  number, the details in Google's JSON form (`{"@type": "type.googleapis.com/google.rpc.RetryInfo",
  "retryDelay": "2s"}`);
* `"stream": [{"response": {...}, "delayMs": 100}, ..., {"error": {...}} | {"abort": true}]`: a
  streaming method's pieces, optionally ending with an error or an abort;

and optionally `"delayMs": N`, a wait before anything is sent.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from google.protobuf import json_format
from google.protobuf.message import Message

from groundwire.contract.apis import Method
from groundwire.contract.errors import GroundwireError, StatusCode, bad_request, status_to_http
from groundwire.wire.error_codecs import error_from_http, error_to_json

MAX_DELAY_MS = 600_000
"""The longest delay an outcome may ask for (10 minutes): long enough to outlast any deadline."""

_OUTCOME_KEYS = ("response", "error", "stream")
_UNREPRESENTABLE = (json_format.ParseError, ValueError, TypeError, RecursionError, OverflowError)


@dataclass(frozen=True)
class Piece:
    """One response to send, `delay_seconds` after the previous step, with its metadata.

    `metadata` goes beside the response: REST headers, gRPC trailing metadata (unary calls).
    """

    response: Message
    delay_seconds: float = 0.0
    metadata: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class Ending:
    """How a call ends after its pieces: with `error`, or by closing the connection (`abort`)."""

    error: GroundwireError | None = None
    abort: bool = False
    delay_seconds: float = 0.0


Step = Piece | Ending
"""What a server plays next for a call: send a piece, or end the call."""


@dataclass(frozen=True)
class Outcome:
    """A call's answer: `pieces` in order, then `ending` if the call does not end normally.

    Example:
        >>> from groundwire.contract.apis import method
        >>> check = method("discoveryengine", "v1", "CheckGrounding")
        >>> outcome = outcome_from_json(check, {"response": {"supportScore": 0.25}, "delayMs": 5})
        >>> [type(step).__name__ for step in outcome.steps()], outcome.delay_seconds
        (['Piece'], 0.005)
    """

    pieces: tuple[Piece, ...] = ()
    ending: Ending | None = None
    delay_seconds: float = 0.0

    def steps(self) -> Iterator[Step]:
        """The pieces, then the ending; the outcome's own delay is added to the first step."""
        steps: list[Step] = [*self.pieces, *([self.ending] if self.ending else [])]
        for number, step in enumerate(steps):
            if number == 0 and self.delay_seconds:
                delay = step.delay_seconds + self.delay_seconds
                step = (
                    Piece(step.response, delay, step.metadata)
                    if isinstance(step, Piece)
                    else Ending(step.error, step.abort, delay)
                )
            yield step


def outcome_from_json(method: Method, data: Mapping[str, Any], field: str = "") -> Outcome:
    """The outcome `data` spells for `method`; a 400 `InvalidArgument` naming the bad field.

    `field` is where `data` sits in a larger document (`"sequence[1]"`), for the error's
    BadRequest detail.

    Example:
        >>> from groundwire.contract.apis import method
        >>> check = method("discoveryengine", "v1", "CheckGrounding")
        >>> outcome = outcome_from_json(check, {"error": {"code": "UNAVAILABLE", "message": "x"}})
        >>> outcome.ending.error.code.name
        'UNAVAILABLE'
    """
    prefix = f"{field}." if field else ""
    given = [key for key in _OUTCOME_KEYS if key in data]
    if len(given) != 1:
        raise _invalid(
            field or "outcome",
            f"needs exactly one of response, error, stream; has {given or 'none'}",
        )
    delay = _delay(data, f"{prefix}delayMs")
    kind = given[0]
    if kind == "stream":
        if not method.server_streaming:
            raise _invalid(
                f"{prefix}stream", f"{method.name} is a unary method; answer with a response"
            )
        pieces, ending = _stream(method, data["stream"], f"{prefix}stream")
        return Outcome(pieces, ending, delay)
    if kind == "error":
        return Outcome((), Ending(error_from_json(data["error"], f"{prefix}error")), delay)
    return Outcome((Piece(_response(method, data["response"], f"{prefix}response")),), None, delay)


def outcome_to_json(outcome: Outcome) -> dict[str, Any]:
    """The JSON of `outcome`, as `outcome_from_json` reads it (a stream when not one piece).

    Example:
        >>> from groundwire.contract.errors import Unavailable
        >>> outcome_to_json(Outcome((), Ending(Unavailable("try later"))))
        {'error': {'code': 'UNAVAILABLE', 'message': 'try later'}}
    """
    data: dict[str, Any] = {}
    if len(outcome.pieces) == 1 and outcome.ending is None and not outcome.pieces[0].delay_seconds:
        data["response"] = json_format.MessageToDict(outcome.pieces[0].response)
    elif not outcome.pieces and outcome.ending is not None and outcome.ending.error is not None:
        data["error"] = _error_json(outcome.ending.error)
    else:
        stream: list[dict[str, Any]] = []
        for piece in outcome.pieces:
            item: dict[str, Any] = {"response": json_format.MessageToDict(piece.response)}
            if piece.delay_seconds:
                item["delayMs"] = round(piece.delay_seconds * 1000)
            stream.append(item)
        if outcome.ending is not None:
            stream.append(
                {"abort": True}
                if outcome.ending.abort
                else {"error": _error_json(outcome.ending.error)}
                if outcome.ending.error is not None
                else {}
            )
        data["stream"] = stream
    if outcome.delay_seconds:
        data["delayMs"] = round(outcome.delay_seconds * 1000)
    return data


def error_from_json(data: Any, field: str = "error") -> GroundwireError:
    """The error `{"code": ..., "message": ..., "details": [...]}` spells; 400 if malformed.

    Example:
        >>> error = error_from_json({"code": "RESOURCE_EXHAUSTED", "details": [
        ...     {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "2s"}]})
        >>> error.code.name, error.retry_delay
        ('RESOURCE_EXHAUSTED', 2.0)
    """
    if not isinstance(data, Mapping):
        raise _invalid(field, "must be an object with code, message and details")
    unknown = sorted(set(data) - {"code", "message", "details"})
    if unknown:
        raise _invalid(f"{field}.{unknown[0]}", "is not a field of an error")
    code = _code(data.get("code"), f"{field}.code")
    message = data.get("message", f"answered by a groundwire stub: {code.name}")
    if not isinstance(message, str):
        raise _invalid(f"{field}.message", "must be a string")
    details = data.get("details", [])
    if not isinstance(details, list):
        raise _invalid(f"{field}.details", "must be a list of google.rpc details")
    _check_details(details, f"{field}.details")
    body = {"error": {"status": code.name, "message": message, "details": details}}
    return error_from_http(status_to_http(code), json.dumps(body).encode(), {})


def _error_json(error: GroundwireError) -> dict[str, Any]:
    document: dict[str, Any] = json.loads(error_to_json(error))["error"]
    data: dict[str, Any] = {"code": document["status"], "message": document["message"]}
    if "details" in document:
        data["details"] = document["details"]
    return data


def _stream(method: Method, items: Any, field: str) -> tuple[tuple[Piece, ...], Ending | None]:
    if not isinstance(items, list):
        raise _invalid(field, "must be a list of pieces")
    pieces: list[Piece] = []
    ending: Ending | None = None
    for index, item in enumerate(items):
        where = f"{field}[{index}]"
        if not isinstance(item, Mapping):
            raise _invalid(where, "must be an object")
        if ending is not None:
            raise _invalid(where, "comes after the stream's error or abort, which end it")
        delay = _delay(item, f"{where}.delayMs")
        kinds = [key for key in ("response", "error", "abort") if key in item]
        unknown = sorted(set(item) - {"response", "error", "abort", "delayMs"})
        if unknown:
            raise _invalid(f"{where}.{unknown[0]}", "is not a field of a stream piece")
        if len(kinds) != 1:
            raise _invalid(where, "needs exactly one of response, error, abort")
        if kinds == ["response"]:
            pieces.append(Piece(_response(method, item["response"], f"{where}.response"), delay))
        elif kinds == ["error"]:
            ending = Ending(error_from_json(item["error"], f"{where}.error"), False, delay)
        elif item["abort"] is True:
            ending = Ending(None, True, delay)
        else:
            raise _invalid(f"{where}.abort", "must be true")
    return tuple(pieces), ending


def _response(method: Method, data: Any, field: str) -> Message:
    if not isinstance(data, Mapping):
        raise _invalid(field, f"must be Google's JSON of {method.response_class.DESCRIPTOR.name}")
    response = method.response_class()
    try:
        json_format.ParseDict(dict(data), response)
    except _UNREPRESENTABLE as error:
        name = method.response_class.DESCRIPTOR.full_name
        raise _invalid(field, f"is not a {name}: {_first_line(error)}") from None
    return response


def _check_details(details: list[Any], field: str) -> None:
    from google.protobuf.any_pb2 import Any as AnyProto
    from google.rpc import error_details_pb2  # noqa: F401  # the detail types, for @type

    for index, detail in enumerate(details):
        try:
            json_format.ParseDict(detail, AnyProto())
        except _UNREPRESENTABLE as error:
            raise _invalid(
                f"{field}[{index}]", f"is not a google.rpc detail: {_first_line(error)}"
            ) from None


def _code(value: Any, field: str) -> StatusCode:
    if isinstance(value, str) and value.upper() in StatusCode.__members__:
        code = StatusCode[value.upper()]
    elif isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= 16:
        code = StatusCode(value)
    else:
        raise _invalid(field, f"{value!r} is not a status code (UNAVAILABLE, 14, ...)")
    if code == StatusCode.OK:
        raise _invalid(field, "OK is no error; answer with a response")
    return code


def _delay(data: Mapping[str, Any], field: str) -> float:
    value = data.get("delayMs", 0)
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise _invalid(field, "must be a number of milliseconds")
    if not 0 <= value <= MAX_DELAY_MS:
        raise _invalid(field, f"must be between 0 and {MAX_DELAY_MS:,}")
    return float(value) / 1000


def _first_line(error: BaseException) -> str:
    text = str(error)
    return text.splitlines()[0][:300] if text else type(error).__name__


def _invalid(field: str, description: str) -> GroundwireError:
    return bad_request([(field, description)], f"{field}: {description}")
