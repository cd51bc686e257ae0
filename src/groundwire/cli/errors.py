"""Turns any failure into one line for stderr and an exit code, so users never see a traceback."""

from __future__ import annotations

import json
from typing import Final

from groundwire.contract.errors import GroundwireError, StatusCode

EXIT_OK: Final = 0
EXIT_FAILURE: Final = 1
EXIT_USAGE: Final = 2
EXIT_INTERRUPTED: Final = 130

CREDENTIALS_HINT: Final = (
    "run `gcloud auth application-default login`, or use --local for the offline emulator"
)

_INPUT_CODES = frozenset({StatusCode.INVALID_ARGUMENT, StatusCode.OUT_OF_RANGE})


class CliError(Exception):
    """A failure the command line explains itself, with the exit code it deserves."""

    exit_code = EXIT_FAILURE

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class InputError(CliError):
    """The user's input cannot be used: a bad flag value, file or JSON document (exit 2)."""

    exit_code = EXIT_USAGE


def one_line(text: str) -> str:
    r"""`text` with every run of whitespace (newlines included) turned into one space.

    >>> one_line("no such\n  file")
    'no such file'
    """
    return " ".join(text.split())


def service_error_text(error: GroundwireError) -> str:
    """`CODE: what went wrong`, with what to do about it when that is the user's to fix.

    The advice is the command line's, given once: the library's own (`pass credentials=`)
    is replaced.

    >>> from groundwire.wire.error_codecs import error_from_status
    >>> service_error_text(error_from_status(16, "token expired"))[:45]
    'UNAUTHENTICATED: token expired (run `gcloud a'
    """
    text = error_text(error)
    if error.code != StatusCode.UNAUTHENTICATED:
        return text
    from groundwire.client.connection import ADC_ADVICE

    library_advice = f"; {ADC_ADVICE}"  # for callers of the library: credentials= and all
    if text.endswith(library_advice):
        return f"{text.removesuffix(library_advice)}; {CREDENTIALS_HINT}"
    return f"{text} ({CREDENTIALS_HINT})"


def error_text(error: GroundwireError) -> str:
    """`CODE: what went wrong` in one line, naming the BadRequest field violations if any.

    What a record of the failure holds (a batch output line, a Beam `failed` element):
    no advice for a terminal, which a worker in a pipeline could not follow.

    >>> from groundwire.contract.errors import bad_request
    >>> error_text(bad_request([("facts[3].fact_text", "is empty")], "invalid"))
    'INVALID_ARGUMENT: facts[3].fact_text: is empty'
    """
    from groundwire.features.records import error_message

    return f"{error.code.name}: {error_message(error)}"


def service_exit_code(error: GroundwireError) -> int:
    """2 when the service rejected the input itself, 1 for every other service failure."""
    return EXIT_USAGE if error.code in _INPUT_CODES else EXIT_FAILURE


def _is_google_auth_error(error: BaseException) -> bool:
    try:
        from google.auth.exceptions import GoogleAuthError
    except ImportError:
        return False
    return isinstance(error, GoogleAuthError)


def describe(error: BaseException) -> tuple[str, int] | None:
    """The one-line message and exit code for `error`; None for errors nobody anticipated.

    >>> describe(InputError("--rate must be positive"))
    ('--rate must be positive', 2)
    """
    if isinstance(error, CliError):
        return one_line(error.message), error.exit_code
    if isinstance(error, GroundwireError):
        return service_error_text(error), service_exit_code(error)
    if _is_google_auth_error(error):
        first = str(error).strip().splitlines()[0] if str(error).strip() else "not found"
        return one_line(f"no usable Google credentials ({first}); {CREDENTIALS_HINT}"), EXIT_FAILURE
    if isinstance(error, json.JSONDecodeError):
        return one_line(f"not valid JSON: {error}"), EXIT_USAGE
    if isinstance(error, OSError):
        where = f"{error.filename}: " if error.filename else ""
        return one_line(f"{where}{error.strerror or error}"), EXIT_FAILURE
    if isinstance(error, ValueError):
        return one_line(str(error)), EXIT_USAGE
    return None
