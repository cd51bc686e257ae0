"""Failures become one line and an exit code: 2 for bad input, 1 for the service, never a trace."""

from __future__ import annotations

import json
from typing import NoReturn

import pytest
from google.auth.exceptions import DefaultCredentialsError

from groundwire.cli.errors import InputError, describe
from groundwire.contract.errors import bad_request
from groundwire.wire.error_codecs import error_from_status


def test_bad_request_violations_name_their_fields() -> None:
    error = bad_request(
        [
            ("facts[3].fact_text", "is 20,000 characters long"),
            ("grounding_spec.citation_threshold", "is 2.0"),
        ],
        "invalid request",
    )
    assert describe(error) == (
        "INVALID_ARGUMENT: facts[3].fact_text: is 20,000 characters long; "
        "grounding_spec.citation_threshold: is 2.0",
        2,
    )


def test_a_service_failure_exits_1_with_its_code_and_message() -> None:
    assert describe(error_from_status(14, "backend\nunavailable")) == (
        "UNAVAILABLE: backend unavailable",
        1,
    )


def test_missing_credentials_suggest_gcloud_or_local() -> None:
    error = DefaultCredentialsError("Your default credentials were not found.\nTo set up ...")
    message, status = describe(error) or ("", 0)
    assert status == 1
    assert "\n" not in message
    assert "gcloud auth application-default login" in message
    assert "--local" in message


def test_unauthenticated_also_suggests_logging_in() -> None:
    message, _ = describe(error_from_status(16, "token expired")) or ("", 0)
    assert message.startswith("UNAUTHENTICATED: token expired (run `gcloud auth")


def test_input_and_json_errors_exit_2() -> None:
    assert describe(InputError("--rate must be positive")) == ("--rate must be positive", 2)
    with pytest.raises(json.JSONDecodeError) as raised:
        json.loads("{")
    described = describe(raised.value)
    assert described is not None
    assert described[1] == 2


def test_unforeseen_errors_are_left_to_the_caller() -> None:
    assert describe(TypeError("bug")) is None


def test_a_failure_record_holds_what_went_wrong_without_advice_for_a_terminal() -> None:
    """Batch output lines and Beam's failed elements carry no `gcloud` or `--local` hint."""
    from groundwire.features.records import error_record

    record = error_record(error_from_status(16, "token expired"))
    assert record == {"code": "UNAUTHENTICATED", "message": "token expired"}


def test_no_credentials_gives_command_line_advice_once(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import google.auth

    from groundwire.cli import main

    def no_credentials(*args: object, **kwargs: object) -> NoReturn:
        raise DefaultCredentialsError("Your default credentials were not found.")

    monkeypatch.setattr(google.auth, "default", no_credentials)
    status = main(["check", "--project", "p", "--answer", "a", "--fact", "b"])
    [line] = capsys.readouterr().err.splitlines()
    assert status == 1
    assert line.startswith("groundwire: error: UNAUTHENTICATED: no Application Default")
    assert line.count("gcloud auth application-default login") == 1
    assert "--local" in line
    assert "credentials=" not in line
