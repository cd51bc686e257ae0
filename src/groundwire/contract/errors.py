"""One error model for every failure, whichever protocol carried it: the codes and their classes.

Each canonical code has one error class and one HTTP status (the only code↔HTTP mapping); the
wire formats are in `groundwire.wire.error_codecs`. Protobuf is imported only when needed.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from typing import TYPE_CHECKING, ClassVar, TypeVar

from groundwire.contract.scrubber import scrub_message, scrub_secrets

if TYPE_CHECKING:
    from google.protobuf.message import Message

_M = TypeVar("_M", bound="Message")


class StatusCode(enum.IntEnum):
    """The canonical status codes of google.rpc.Code, with gRPC's numbers."""

    OK = 0
    CANCELLED = 1
    UNKNOWN = 2
    INVALID_ARGUMENT = 3
    DEADLINE_EXCEEDED = 4
    NOT_FOUND = 5
    ALREADY_EXISTS = 6
    PERMISSION_DENIED = 7
    RESOURCE_EXHAUSTED = 8
    FAILED_PRECONDITION = 9
    ABORTED = 10
    OUT_OF_RANGE = 11
    UNIMPLEMENTED = 12
    INTERNAL = 13
    UNAVAILABLE = 14
    DATA_LOSS = 15
    UNAUTHENTICATED = 16


RETRYABLE_CODES = frozenset(
    {StatusCode.UNAVAILABLE, StatusCode.RESOURCE_EXHAUSTED, StatusCode.DEADLINE_EXCEEDED}
)
"""Codes worth another attempt of these idempotent methods; the retry policy has the last word."""

_HTTP_STATUS_BY_CODE = {
    StatusCode.OK: 200,
    StatusCode.CANCELLED: 499,
    StatusCode.UNKNOWN: 500,
    StatusCode.INVALID_ARGUMENT: 400,
    StatusCode.DEADLINE_EXCEEDED: 504,
    StatusCode.NOT_FOUND: 404,
    StatusCode.ALREADY_EXISTS: 409,
    StatusCode.PERMISSION_DENIED: 403,
    StatusCode.RESOURCE_EXHAUSTED: 429,
    StatusCode.FAILED_PRECONDITION: 400,
    StatusCode.ABORTED: 409,
    StatusCode.OUT_OF_RANGE: 400,
    StatusCode.UNIMPLEMENTED: 501,
    StatusCode.INTERNAL: 500,
    StatusCode.UNAVAILABLE: 503,
    StatusCode.DATA_LOSS: 500,
    StatusCode.UNAUTHENTICATED: 401,
}

_CODE_BY_HTTP_STATUS = {
    400: StatusCode.INVALID_ARGUMENT,
    401: StatusCode.UNAUTHENTICATED,
    403: StatusCode.PERMISSION_DENIED,
    404: StatusCode.NOT_FOUND,
    408: StatusCode.DEADLINE_EXCEEDED,
    409: StatusCode.ABORTED,
    412: StatusCode.FAILED_PRECONDITION,
    416: StatusCode.OUT_OF_RANGE,
    429: StatusCode.RESOURCE_EXHAUSTED,
    499: StatusCode.CANCELLED,
    500: StatusCode.INTERNAL,
    501: StatusCode.UNIMPLEMENTED,
    502: StatusCode.UNAVAILABLE,
    503: StatusCode.UNAVAILABLE,
    504: StatusCode.DEADLINE_EXCEEDED,
}


class GroundwireError(Exception):
    """A failed call: canonical ``code``, ``message`` and decoded ``google.rpc`` ``details``.

    The same over gRPC or REST. ``http_status`` is the status the REST call got, or the one
    ``code`` maps to; ``retry_delay`` the seconds the server asked to wait (RetryInfo or
    Retry-After), else None. Credentials are scrubbed from the message and the details.

    Example:
        >>> error = Unavailable("backend unavailable")
        >>> (type(error).__name__, error.code.name, error.retryable, error.http_status)
        ('Unavailable', 'UNAVAILABLE', True, 503)
    """

    code: ClassVar[StatusCode] = StatusCode.UNKNOWN
    permanent: ClassVar[bool] = False
    """True for a failure no retry can cure, whatever its code (see `MessageTooLarge`)."""
    connected: ClassVar[bool] = True
    """False when the attempt made no connection at all (`transports.base.ConnectionFailure`)."""

    def __init__(
        self,
        message: str,
        *,
        details: Sequence[Message] = (),
        http_status: int | None = None,
        retry_delay: float | None = None,
    ) -> None:
        self.message = scrub_secrets(message)
        super().__init__(self.message)
        self.details: tuple[Message, ...] = tuple(scrub_message(detail) for detail in details)
        self.http_status = status_to_http(self.code) if http_status is None else http_status
        self.retry_delay = retry_info_delay(self.details) if retry_delay is None else retry_delay

    @property
    def retryable(self) -> bool:
        """Whether the code is one worth retrying (the retry policy decides finally)."""
        return not self.permanent and self.code in RETRYABLE_CODES

    def detail(self, kind: type[_M]) -> _M | None:
        """The first detail of type ``kind``, e.g. ``error.detail(BadRequest)``; None if absent."""
        return next((detail for detail in self.details if isinstance(detail, kind)), None)

    def __str__(self) -> str:
        return f"{self.code.name}: {self.message}"

    def __repr__(self) -> str:
        kinds = ", ".join(detail.DESCRIPTOR.name for detail in self.details)
        return f"{type(self).__name__}({self.message!r}, details=[{kinds}])"


class Cancelled(GroundwireError):
    """The call was cancelled, usually by the caller."""

    code = StatusCode.CANCELLED


class Unknown(GroundwireError):
    """The server failed without saying how, or sent a code this client does not know."""

    code = StatusCode.UNKNOWN


class InvalidArgument(GroundwireError):
    """The request is malformed; BadRequest details name the fields."""

    code = StatusCode.INVALID_ARGUMENT


class DeadlineExceeded(GroundwireError):
    """The deadline passed before the call finished."""

    code = StatusCode.DEADLINE_EXCEEDED


class NotFound(GroundwireError):
    """A resource named in the request (project, grounding config) does not exist."""

    code = StatusCode.NOT_FOUND


class AlreadyExists(GroundwireError):
    """The resource to create exists already."""

    code = StatusCode.ALREADY_EXISTS


class PermissionDenied(GroundwireError):
    """The caller is known but may not do this (API disabled, missing IAM role)."""

    code = StatusCode.PERMISSION_DENIED


class ResourceExhausted(GroundwireError):
    """A quota or rate limit was hit; QuotaFailure / RetryInfo details say which and how long."""

    code = StatusCode.RESOURCE_EXHAUSTED


class FailedPrecondition(GroundwireError):
    """The system is not in a state that allows the call."""

    code = StatusCode.FAILED_PRECONDITION


class Aborted(GroundwireError):
    """The call was aborted, typically by a concurrency conflict."""

    code = StatusCode.ABORTED


class OutOfRange(GroundwireError):
    """A value is past the valid range."""

    code = StatusCode.OUT_OF_RANGE


class Unimplemented(GroundwireError):
    """The method is not available at this endpoint or API version."""

    code = StatusCode.UNIMPLEMENTED


class Internal(GroundwireError):
    """The server broke an invariant of its own."""

    code = StatusCode.INTERNAL


class Unavailable(GroundwireError):
    """The service cannot be reached or is overloaded for now."""

    code = StatusCode.UNAVAILABLE


class DataLoss(GroundwireError):
    """Unrecoverable data loss or corruption."""

    code = StatusCode.DATA_LOSS


class Unauthenticated(GroundwireError):
    """The call has no valid credentials."""

    code = StatusCode.UNAUTHENTICATED


# Each class above stands for one code: this is the only code → error type mapping.
_ERROR_TYPES = {error_type.code: error_type for error_type in GroundwireError.__subclasses__()}


class MessageTooLarge(ResourceExhausted):
    """A message is over the size limit (`max_response_bytes`, 64 MiB); never retried."""

    permanent = True


class ClientClosed(Cancelled, RuntimeError):
    """The call's client was closed, before or while the call ran; never retried.

    Also a `RuntimeError`, as a call on a closed client raised before.
    """

    permanent = True


class ClientForked(FailedPrecondition, RuntimeError):
    """gRPC cannot be used in this forked process (the message says why); never retried.

    gRPC does not survive a fork made mid-call (docs/client.md, "Fork and event loops"):
    `transport="auto"` then uses REST in the child, `transport="grpc"` raises this.
    """

    permanent = True


class WrongEventLoop(FailedPrecondition, RuntimeError):
    """An `AsyncGroundingClient` is in use on another event loop that is still running.

    A client moves to a new loop once the old one ended; two running loops need a client each.
    """

    permanent = True


class ConfigurationError(InvalidArgument, ValueError):
    """A constructor argument or client option that is malformed or conflicts with another.

    INVALID_ARGUMENT (never retried), and a `ValueError` as the official clients raise.
    """


class EndpointError(InvalidArgument, ValueError):
    """An endpoint, emulator variable or switch that is malformed or unsafe.

    INVALID_ARGUMENT (never retried), and a `ValueError`; the message names the argument or
    variable and gives a correct example.
    """


def error_type_for(code: int) -> type[GroundwireError]:
    """The error class for a status code; codes outside 1..16 (and OK) give Unknown.

    Example:
        >>> error_type_for(5).__name__
        'NotFound'
    """
    return _ERROR_TYPES.get(StatusCode(code) if 0 < code <= 16 else StatusCode.UNKNOWN, Unknown)


def status_to_http(code: int) -> int:
    """The HTTP status Google's REST APIs use for a canonical code (500 for unknown codes).

    Example:
        >>> status_to_http(StatusCode.RESOURCE_EXHAUSTED)
        429
    """
    return _HTTP_STATUS_BY_CODE.get(StatusCode(code), 500) if 0 <= code <= 16 else 500


def code_from_http(status: int) -> StatusCode:
    """The canonical code for an HTTP status when the body does not name one.

    Example:
        >>> code_from_http(503).name
        'UNAVAILABLE'
    """
    return _CODE_BY_HTTP_STATUS.get(status, StatusCode.UNKNOWN)


def bad_request(violations: Sequence[tuple[str, str]], message: str) -> InvalidArgument:
    """An InvalidArgument whose BadRequest detail lists (field, description) violations.

    Example:
        >>> error = bad_request([("facts[3].fact_text", "too long")], "invalid request")
        >>> error.details[0].field_violations[0].field
        'facts[3].fact_text'
    """
    from google.rpc.error_details_pb2 import BadRequest

    detail = BadRequest(
        field_violations=[
            BadRequest.FieldViolation(field=field, description=description)
            for field, description in violations
        ]
    )
    return InvalidArgument(message, details=(detail,))


def retry_info_delay(details: Sequence[Message]) -> float | None:
    """The wait in seconds a RetryInfo among ``details`` asks for; None if there is none.

    Example:
        >>> from google.protobuf.duration_pb2 import Duration
        >>> from google.rpc.error_details_pb2 import RetryInfo
        >>> retry_info_delay([RetryInfo(retry_delay=Duration(seconds=2, nanos=500_000_000))])
        2.5
    """
    for detail in details:
        if detail.DESCRIPTOR.full_name == "google.rpc.RetryInfo":
            retry_delay = detail.retry_delay  # type: ignore[attr-defined]
            return max(float(retry_delay.seconds + retry_delay.nanos / 1e9), 0.0)
    return None
