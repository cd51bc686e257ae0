"""The pure part of the Beam integration: records, batch-wide failures, the retry filter."""

from __future__ import annotations

import json
import traceback
from pathlib import Path
from typing import Any

import pytest

from groundwire.contract import calls
from groundwire.contract.errors import (
    DeadlineExceeded,
    InvalidArgument,
    MessageTooLarge,
    PermissionDenied,
    ResourceExhausted,
    Unavailable,
    bad_request,
)
from groundwire.emulator import Emulator
from groundwire.features.batch import BatchOutcome, Rpc, batch_failure
from groundwire.features.records import check_record
from groundwire.integrations.beam.records import (
    billed_characters,
    dead_letter_records,
    failure_record,
    input_record,
    is_retryable,
    result_record,
)

CONFIG = calls.ClientConfig("my-project")


def test_only_retryable_groundwire_errors_make_beam_retry_a_batch() -> None:
    assert is_retryable(Unavailable("down"))
    assert is_retryable(DeadlineExceeded("slow"))
    assert is_retryable(ResourceExhausted("quota"))
    assert not is_retryable(InvalidArgument("bad"))
    assert not is_retryable(PermissionDenied("no"))
    assert not is_retryable(MessageTooLarge("too big"))  # RESOURCE_EXHAUSTED, but permanent
    assert not is_retryable(RuntimeError("a bug"))


def test_a_batch_fails_as_a_whole_only_when_every_sent_element_failed_transiently() -> None:
    down: BatchOutcome[Any] = BatchOutcome(0, None, Unavailable("down", retry_delay=2.0), 3)
    slow: BatchOutcome[Any] = BatchOutcome(1, None, DeadlineExceeded("slow"), 2)
    invalid: BatchOutcome[Any] = BatchOutcome(2, None, InvalidArgument("bad"), 0)
    error = batch_failure([down, invalid, slow])
    assert isinstance(error, DeadlineExceeded)
    assert error.retryable
    assert error.message == "all 2 sent elements of a batch of 3 failed; the last: slow"
    assert batch_failure([down, BatchOutcome(1, "a result", None, 1)]) is None
    assert batch_failure([down, BatchOutcome(1, None, PermissionDenied("no"), 1)]) is None
    assert batch_failure([invalid]) is None  # nothing was sent: nothing to retry
    assert batch_failure([]) is None
    assert batch_failure([down]).retry_delay == 2.0  # type: ignore[union-attr]


def test_an_input_record_is_json_ready_whatever_the_element() -> None:
    request = calls.unary(CONFIG, "CheckGrounding", "Hi.", facts=["Hello."]).request
    as_json = input_record(request)
    assert as_json["answer_candidate"] == "Hi."
    assert as_json["facts"] == [{"fact_text": "Hello."}]
    assert input_record({"answer": "Hi.", "facts": ("a", ("b", {"k": "v"}))}) == {
        "answer": "Hi.",
        "facts": ["a", ["b", {"k": "v"}]],
    }
    json.dumps(input_record({"answer": object()}))  # what JSON cannot hold becomes its repr
    assert input_record(42) == "42"


def test_a_failure_record_names_the_bad_request_violations() -> None:
    error = bad_request([("facts[1].fact_text", "is empty")], "invalid request")
    assert failure_record({"answer": "Hi.", "id": 3}, error) == {
        "input": {"answer": "Hi.", "id": 3},
        "code": "INVALID_ARGUMENT",
        "message": "facts[1].fact_text: is empty",
    }


def _dead_letter_entry(error: BaseException) -> tuple[type[BaseException], str, list[str]]:
    """What Beam's dead letter holds for a raised exception."""
    try:
        raise error
    except BaseException as raised:
        return type(raised), repr(raised), traceback.format_exception(raised)


def test_a_batch_in_beams_dead_letter_becomes_one_failure_record_per_element() -> None:
    entry = _dead_letter_entry(Unavailable("cannot reach 127.0.0.1:1;\nis it running?"))
    records = dead_letter_records([{"answer": "a"}, {"answer": "b"}], entry)
    assert records == [
        {
            "input": {"answer": x},
            "code": "UNAVAILABLE",
            "message": "cannot reach 127.0.0.1:1; is it running?",
        }
        for x in "ab"
    ]


def test_a_dead_letter_exception_that_is_not_ours_is_unknown_with_its_message() -> None:
    records = dead_letter_records([{"answer": "a"}], _dead_letter_entry(KeyError("answer")))
    assert records == [{"input": {"answer": "a"}, "code": "UNKNOWN", "message": "'answer'"}]
    bare = dead_letter_records([{"answer": "a"}], (ValueError, "ValueError('x')", []))
    assert bare[0]["message"] == "ValueError('x')"


def test_billed_characters_are_the_answers_and_every_facts_however_given() -> None:
    element = {
        "answer": "Tokyo is big.",
        "facts": ["Tokyo is large.", ("Japan", {"author": "atlas"}), {"fact_text": "東京"}],
    }
    assert billed_characters("CheckGrounding", CONFIG, element) == 13 + 15 + 5 + 2
    request = calls.unary(CONFIG, "CheckGrounding", "Hi.", facts=["Yo."]).request
    assert billed_characters("CheckGrounding", CONFIG, request) == 6
    assert billed_characters("CorroborateContent", CONFIG, {"content": "Hi."}) is None


def test_a_result_record_is_what_groundwire_batch_writes_with_the_answer(
    grounding_emulator: Emulator,
) -> None:
    with grounding_emulator.client() as client:
        outcome = next(
            iter(
                client.check_grounding_many(
                    [
                        {
                            "id": "q-1",
                            "answer": "Paris is in France.",
                            "facts": ["Paris is in France."],
                        }
                    ]
                )
            )
        )
        direct = client.check_grounding("Paris is in France.", ["Paris is in France."])
    assert outcome.ok
    assert result_record("CheckGrounding", outcome) == {"id": "q-1", "result": check_record(direct)}


@pytest.mark.parametrize(
    ("rpc", "line"),
    [
        ("CheckGrounding", {"id": "q-1", "answer": "Paris is in France.", "facts": ["Paris."]}),
        ("CorroborateContent", {"id": 2, "content": "Paris is in France.", "facts": ["Paris."]}),
    ],
)
def test_a_result_record_has_the_fields_of_the_batch_record_less_line_and_key(
    grounding_emulator: Emulator,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    rpc: Rpc,
    line: dict[str, Any],
) -> None:
    from groundwire.cli import main

    source, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    source.write_text(json.dumps(line) + "\n", encoding="utf-8")
    method = "check" if rpc == "CheckGrounding" else "corroborate"
    endpoints = ["--endpoint", grounding_emulator.grpc_address, "--project", "p"]
    argv = ["batch", str(source), "-o", str(out), "--method", method, *endpoints]
    assert main([*argv, "--no-progress"]) == 0
    capsys.readouterr()
    written = json.loads(out.read_text(encoding="utf-8"))
    with grounding_emulator.client() as client:
        many = client.check_grounding_many if method == "check" else client.corroborate_content_many
        outcome = next(iter(many([line])))
    assert {key: value for key, value in written.items() if key not in ("line", "key")} == (
        result_record(rpc, outcome)
    )
