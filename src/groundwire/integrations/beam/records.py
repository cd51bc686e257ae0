"""What a Beam pipeline makes of batch outcomes, without Beam: records, failures, retry rules.

Everything here is pure, so it is tested where Apache Beam is not installed; the handlers
(`groundwire.integrations.beam.handlers`) and transforms
(`groundwire.integrations.beam.transforms`) only wire it to Beam. A successful element becomes
the record `groundwire batch` writes for a successful line, less the line's `line` and `key`
(`{"id", "result"}`, both made by `groundwire.features.records.outcome_record`); a failed one
becomes `{"input", "code", "message"}`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from google.protobuf import json_format, message

from groundwire.contract import calls
from groundwire.contract.errors import GroundwireError, StatusCode
from groundwire.contract.spec import SPECS
from groundwire.features.batch import BatchOutcome, Rpc, plan_item
from groundwire.features.batch_spec import BATCHABLE
from groundwire.features.records import error_record, outcome_record

__all__ = [
    "billed_characters",
    "dead_letter_records",
    "failure_record",
    "input_record",
    "is_retryable",
    "result_record",
    "score_of",
]

UNKNOWN_FAILURE = StatusCode.UNKNOWN.name
"""The code of a failed record whose exception was not a `GroundwireError` (a bug, most likely)."""


def is_retryable(error: BaseException) -> bool:
    """Whether Beam should run a failed batch again: only for a retryable `GroundwireError`.

    This is the handlers' `retry_filter`. Beam's default retries every exception, a
    permanent one too, with back-off (about 155 s per batch with its five retries).

    Example:
        >>> from groundwire.contract.errors import InvalidArgument, Unavailable
        >>> is_retryable(Unavailable("down")), is_retryable(InvalidArgument("bad"))
        (True, False)
        >>> is_retryable(ValueError("a bug"))
        False
    """
    return isinstance(error, GroundwireError) and error.retryable


def input_record(element: object) -> Any:
    """An input element as JSON-ready data: a mapping as a dict, a request as its JSON form.

    Example:
        >>> input_record({"answer": "Hi.", "facts": ("Hello.",)})
        {'answer': 'Hi.', 'facts': ['Hello.']}
    """
    if isinstance(element, message.Message):
        return json_format.MessageToDict(element, preserving_proto_field_name=True)
    if isinstance(element, Mapping):
        return json.loads(json.dumps(dict(element), ensure_ascii=False, default=repr))
    return repr(element)


def result_record(rpc: Rpc, outcome: BatchOutcome[Any]) -> dict[str, Any]:
    """The record of a successful element: `{"id", "result"}`, as `groundwire batch` writes it.

    The result also holds the text it grounds (`answer_candidate` or `content`), so a row
    read on its own (in BigQuery, say) says what it is about; `id` is the element's, or None.
    `rpc` is the method the element went through; its batch spec writes the result.
    """
    return outcome_record(outcome.id, BATCHABLE[rpc].record(_result_of(outcome)))


def failure_record(element: object, error: GroundwireError) -> dict[str, Any]:
    """The record of a failed element: its input, the status code's name and the message.

    Example:
        >>> from groundwire.contract.errors import InvalidArgument
        >>> failure_record({"answer": "Hi."}, InvalidArgument("facts are missing"))
        {'input': {'answer': 'Hi.'}, 'code': 'INVALID_ARGUMENT', 'message': 'facts are missing'}
    """
    return {"input": input_record(element), **error_record(error)}


def dead_letter_records(
    batch: Sequence[object], exception: tuple[type[BaseException], str, Sequence[str]]
) -> list[dict[str, Any]]:
    r"""The failure records of a batch Beam put in its dead letter: one per element.

    Beam's dead letter holds the whole batch and `(exception type, repr, traceback lines)`,
    the exception that was left when its retries ran out. Its code is the error class's
    (`UNKNOWN` for an exception that is not a `GroundwireError`); its message is the one the
    traceback's last line shows.

    Example:
        >>> from groundwire.contract.errors import Unavailable
        >>> failed = (Unavailable, "Unavailable('down')",
        ...           ["groundwire.contract.errors.Unavailable: UNAVAILABLE: down\n"])
        >>> dead_letter_records([{"answer": "Hi."}], failed)
        [{'input': {'answer': 'Hi.'}, 'code': 'UNAVAILABLE', 'message': 'down'}]
    """
    kind, text, trace = exception
    code = kind.code.name if issubclass(kind, GroundwireError) else UNKNOWN_FAILURE
    message = _exception_message(kind, text, trace)
    prefix = f"{code}: "
    if message.startswith(prefix):
        message = message[len(prefix) :]
    return [{"input": input_record(element), "code": code, "message": message} for element in batch]


def _exception_message(kind: type[BaseException], text: str, trace: Sequence[str]) -> str:
    """`str(exception)` read back from the traceback's `module.Type: message` line."""
    names = (f"{kind.__module__}.{kind.__qualname__}: ", f"{kind.__qualname__}: ")
    for line in reversed(trace):
        for name in names:
            if line.startswith(name):
                return " ".join(line[len(name) :].split())
    return " ".join(text.split())


def billed_characters(rpc: Rpc, config: calls.ClientConfig, element: object) -> int | None:
    """The characters Google bills a successful element by, read from the request it makes.

    None where the method is not billed by characters (its spec says so).

    Example:
        >>> config = calls.ClientConfig("my-project")
        >>> billed_characters("CheckGrounding", config,
        ...                   {"answer": "Hi.", "facts": [{"fact_text": "Hello."}]})
        9
    """
    spec = SPECS[rpc]
    if isinstance(element, message.Message):
        return spec.billed_characters(element)
    return spec.billed_characters(plan_item(config, rpc, element, {}).call.request)


def score_of(rpc: Rpc, outcome: BatchOutcome[Any]) -> float | None:
    """The score a successful element got: the one its RPC's batch spec names."""
    return BATCHABLE[rpc].score_of(_result_of(outcome))


def _result_of(outcome: BatchOutcome[Any]) -> Any:
    if outcome.result is None:
        raise ValueError(f"element {outcome.index} has no result: {outcome.error}")
    return outcome.result
