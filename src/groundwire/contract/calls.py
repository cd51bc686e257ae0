"""Turns a user's call into (method, request, headers, result reader), for every client.

No I/O: the RPC's spec (`groundwire.contract.spec`) decides; the clients only wait.
"""

from __future__ import annotations

import itertools
from collections.abc import (
    AsyncIterable,
    AsyncIterator,
    Iterable,
    Mapping,
    Sequence,
)
from dataclasses import dataclass
from typing import Any, Generic, Literal, TypeVar

from google.protobuf import message

from groundwire.contract import apis, requests, results
from groundwire.contract.errors import bad_request
from groundwire.contract.facts import as_message
from groundwire.contract.offsets import OffsetUnit
from groundwire.contract.spec import SPECS, Spec, route, spec_for
from groundwire.contract.version import DISCOVERY_VERSIONS

ResultT = TypeVar("ResultT")
TransportName = Literal["auto", "grpc", "rest"]


@dataclass(frozen=True)
class ClientConfig:
    """What a client was configured with that shapes every request."""

    project: str
    location: str = "global"
    api_version: str = "v1"
    validate: bool = True
    quota_project: str | None = None
    corroborate_offset_unit: OffsetUnit = "utf8"

    def __post_init__(self) -> None:
        if self.api_version not in DISCOVERY_VERSIONS:
            raise ValueError(
                f"api_version must be one of {DISCOVERY_VERSIONS}, got {self.api_version!r}"
            )
        if not self.project:
            raise ValueError("project is required (the Google Cloud project id or number)")


@dataclass(slots=True)
class Call(Generic[ResultT]):
    """One unary call, ready for any transport: the request as sent, and how to read it.

    Treat it as immutable; not frozen because a frozen dataclass pays per field set, per call.
    """

    spec: Spec
    method: apis.Method
    request: message.Message
    metadata: tuple[tuple[str, str], ...]
    offset_unit: OffsetUnit = "utf8"
    subject: Any = None
    """What the user passed, when the request was built from it (its text is the request's)."""

    def finish(self, response: message.Message) -> ResultT:
        """The user's result for the call's response (read by the RPC's spec)."""
        result: ResultT = self.spec.read(self.request, response, self.offset_unit, self.subject)
        return result


@dataclass(frozen=True)
class StreamCall:
    """One streaming call: requests are produced lazily (a live, bidirectional exchange)."""

    method: apis.Method
    requests: Iterable[message.Message]
    metadata: tuple[tuple[str, str], ...]
    interactive: bool  # True when requests is an open iterator rather than a fixed sequence

    def finish(self, response: message.Message) -> results.GenerateResult:
        """Reads one streamed response (read by the RPC's spec)."""
        result: results.GenerateResult = spec_for(self.method).read(None, response, "utf8", None)
        return result


def _ready_request(method: apis.Method, value: Any) -> message.Message | None:
    """`value` as a request message of `method`, when the user passed one."""
    if isinstance(value, (str, bytes)):
        return None
    return as_message(value, method.request_class)


def refuse_options_beside(method: apis.Method, given: Iterable[str]) -> None:
    """Refuses options given beside a ready request (`InvalidArgument`): they would be dropped.

    Example:
        >>> refuse_options_beside(apis.method("discoveryengine", "v1", "CheckGrounding"), [])
    """
    names = sorted(set(given))
    if names:
        raise bad_request(
            [
                (name, "cannot be given beside a ready request: set it on the request")
                for name in names
            ],
            f"{', '.join(names)} cannot be given beside a ready "
            f"{method.request_class.DESCRIPTOR.name}; set them on the request instead",
        )


def _request(
    config: ClientConfig, spec: Spec, method: apis.Method, subject: Any, options: dict[str, Any]
) -> message.Message:
    """The request to send: the user's ready one (alone), or one built by the spec."""
    request = _ready_request(method, subject)
    if request is not None:
        refuse_options_beside(method, spec.given(options))
        return request
    return spec.build(method, config.project, config.location, subject, **options)


def unary(config: ClientConfig, rpc: str, subject: Any, **options: Any) -> Call[Any]:
    """Plans one unary call of `rpc`: build (or take) the request, check it, route it.

    Example:
        >>> call = unary(ClientConfig("p"), "CheckGrounding", "Hi.", facts=["Hello."])
        >>> call.method.name, call.request.facts[0].fact_text, call.metadata[0][0]
        ('CheckGrounding', 'Hello.', 'x-goog-request-params')
    """
    spec = SPECS[rpc]
    method = spec.method(config.api_version)
    if type(subject) is str:  # the usual call: a request built from the user's text
        request = spec.build(method, config.project, config.location, subject, **options)
    else:
        request = _request(config, spec, method, subject, options)
    if config.validate:
        spec.check(method, request)
    return Call(
        spec,
        method,
        request,
        route(method, request, config.quota_project),
        config.corroborate_offset_unit,
        subject if isinstance(subject, str) else None,
    )


def stream_generate_grounded_content(
    config: ClientConfig, prompt: Any, **options: Any
) -> StreamCall:
    """Plans a StreamGenerateGroundedContent call.

    `prompt`: a prompt or turns (built with `options`), a ready request, or requests: a list
    (fixed), or an iterator (live: sends while it reads; gRPC only).
    """
    spec = SPECS[_STREAM]
    method = spec.method(config.api_version)
    if _ready_request(method, prompt) is not None or _is_prompt(prompt):
        single = _request(config, spec, method, prompt, options)
        if config.validate:
            spec.check(method, single)
        return StreamCall(method, (single,), _stream_metadata(config, method, single), False)
    refuse_options_beside(method, spec.given(options))
    converted = (_checked_request(config, method, item, index) for index, item in enumerate(prompt))
    if isinstance(prompt, Sequence):
        fixed = list(converted)
        first = fixed[0] if fixed else None
        return StreamCall(method, fixed, _stream_metadata(config, method, first), False)
    # A live exchange's first request is read now (as gRPC would), so it routes the headers.
    first = next(converted, None)
    live = converted if first is None else itertools.chain((first,), converted)
    return StreamCall(method, live, _stream_metadata(config, method, first), True)


def live_stream(config: ClientConfig, requests_: AsyncIterable[Any]) -> StreamCall:
    """Plans a live StreamGenerateGroundedContent call fed by an async iterator (gRPC only)."""
    method = SPECS[_STREAM].method(config.api_version)
    metadata = _stream_metadata(config, method, None)

    async def checked() -> AsyncIterator[message.Message]:
        index = 0
        async for item in requests_:
            yield _checked_request(config, method, item, index)
            index += 1

    return StreamCall(method, checked(), metadata, interactive=True)  # type: ignore[arg-type]


_STREAM = "StreamGenerateGroundedContent"


def _stream_metadata(
    config: ClientConfig, method: apis.Method, first: message.Message | None
) -> tuple[tuple[str, str], ...]:
    """The stream's headers, routed by its first request (the client's location without one)."""
    if first is None:
        location = requests.resource_name(config.project, config.location)
        first = method.request_class(location=location)
    return route(method, first, config.quota_project)


def _is_prompt(value: Any) -> bool:
    if isinstance(value, str):
        return True
    if isinstance(value, Sequence) and value:
        first = value[0]
        return isinstance(first, (str, tuple, Mapping)) or (
            isinstance(first, message.Message)
            and first.DESCRIPTOR.name == "GroundedGenerationContent"
        )
    return False


def _checked_request(
    config: ClientConfig, method: apis.Method, item: Any, index: int
) -> message.Message:
    request = _ready_request(method, item)
    if request is None:
        raise bad_request(
            [(f"requests[{index}]", "expected a GenerateGroundedContentRequest")],
            f"requests[{index}] is not a request",
        )
    if config.validate:
        SPECS[_STREAM].check(method, request)
    return request
