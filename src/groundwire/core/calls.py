"""Turns a user's call into (method, request, headers, result builder), for every client.

The sync and async clients differ only in how they wait; everything they decide about a
call (which RPC, the request message, validation, routing headers, how to read the
response) is decided here, without I/O.
"""

from __future__ import annotations

import itertools
from collections.abc import (
    AsyncIterable,
    AsyncIterator,
    Callable,
    Iterable,
    Iterator,
    Mapping,
    Sequence,
)
from dataclasses import dataclass
from typing import Any, Generic, Literal, TypeVar

from google.protobuf import message

from groundwire.core import apis, endpoints, requests, results
from groundwire.core.errors import bad_request
from groundwire.core.offsets import OffsetUnit

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
        if self.api_version not in apis.DISCOVERY_VERSIONS:
            raise ValueError(
                f"api_version must be one of {apis.DISCOVERY_VERSIONS}, got {self.api_version!r}"
            )
        if not self.project:
            raise ValueError("project is required (the Google Cloud project id or number)")


@dataclass(frozen=True)
class Call(Generic[ResultT]):
    """One unary call, ready for any transport."""

    method: apis.Method
    request: message.Message
    metadata: tuple[tuple[str, str], ...]
    finish: Callable[[message.Message], ResultT]


@dataclass(frozen=True)
class StreamCall:
    """One streaming call: requests are produced lazily (a live, bidirectional exchange)."""

    method: apis.Method
    requests: Iterable[message.Message]
    metadata: tuple[tuple[str, str], ...]
    interactive: bool  # True when requests is an open iterator rather than a fixed sequence

    @staticmethod
    def finish(response: message.Message) -> results.GenerateResult:
        """Reads one streamed response."""
        return results.generate_result(response)


def _ready_request(method: apis.Method, value: Any) -> message.Message | None:
    """`value` as a request message of `method`, when the user passed one."""
    if isinstance(value, (str, bytes)):
        return None
    return requests._as_message(value, method.request_class)


def refuse_options_beside(method: apis.Method, given: Iterable[str]) -> None:
    """Refuses options given beside a ready request: they would be silently dropped.

    One rule for every method: a ready request says everything it means, so an option given
    with it (facts, a threshold, a source) is an `InvalidArgument` naming each option.

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


def _prepare(
    config: ClientConfig, method: apis.Method, request: message.Message
) -> tuple[tuple[str, str], ...]:
    if config.validate:
        requests.validate(method, request)
    return endpoints.request_metadata(method, request, quota_project=config.quota_project)


def check_grounding(
    config: ClientConfig,
    answer_candidate: str | message.Message,
    facts: Iterable[requests.FactLike],
    **options: Any,
) -> Call[results.CheckGroundingResult]:
    """Plans a CheckGrounding call (see `GroundingClient.check_grounding`)."""
    method = apis.method("discoveryengine", config.api_version, "CheckGrounding")
    request = _ready_request(method, answer_candidate)
    if request is not None:
        given = [name for name, value in options.items() if value is not None]
        if options.get("grounding_config") == requests.DEFAULT_GROUNDING_CONFIG:
            given.remove("grounding_config")
        refuse_options_beside(method, [*given, *(["facts"] if list(facts) else [])])
    else:
        if not isinstance(answer_candidate, str):
            raise bad_request(
                [("answer_candidate", "expected text or a CheckGroundingRequest")],
                "answer_candidate is not text",
            )
        request = requests.check_grounding_request(
            method,
            project=config.project,
            location=config.location,
            answer_candidate=answer_candidate,
            facts=facts,
            **options,
        )
    answer = request.answer_candidate  # type: ignore[attr-defined]
    return Call(
        method,
        request,
        _prepare(config, method, request),
        lambda response: results.check_grounding_result(answer, response),
    )


def corroborate_content(
    config: ClientConfig,
    content: str | message.Message,
    facts: Iterable[requests.FactLike],
    *,
    citation_threshold: float | None = None,
) -> Call[results.CorroborationResult]:
    """Plans a CorroborateContent call (aiplatform v1, whatever `api_version` says)."""
    method = apis.method("aiplatform", "v1", "CorroborateContent")
    request = _ready_request(method, content)
    if request is not None:
        given = ["citation_threshold"] if citation_threshold is not None else []
        refuse_options_beside(method, [*given, *(["facts"] if list(facts) else [])])
    else:
        request = requests.corroborate_content_request(
            method,
            project=config.project,
            location=config.location,
            content=content,
            facts=facts,
            citation_threshold=citation_threshold,
        )
    raw: Any = request
    text = "".join(part.text for part in raw.content.parts)
    facts_sent = tuple(raw.facts)
    unit = config.corroborate_offset_unit
    return Call(
        method,
        request,
        _prepare(config, method, request),
        lambda response: results.corroboration_result(text, facts_sent, response, unit),
    )


def generate_grounded_content(
    config: ClientConfig, prompt: Any, **options: Any
) -> Call[results.GenerateResult]:
    """Plans a GenerateGroundedContent call from a prompt, turns, or a ready request."""
    method = apis.method("discoveryengine", config.api_version, "GenerateGroundedContent")
    request = _ready_request(method, prompt)
    if request is not None:
        refuse_options_beside(method, options)
    else:
        request = requests.generate_grounded_content_request(
            method, project=config.project, location=config.location, prompt=prompt, **options
        )
    return Call(method, request, _prepare(config, method, request), results.generate_result)


def stream_generate_grounded_content(
    config: ClientConfig, prompt: Any, **options: Any
) -> StreamCall:
    """Plans a StreamGenerateGroundedContent call.

    `prompt` may be a prompt or turns (one request built from them and `options`), a ready
    request, or an iterable of requests — a list for a fixed exchange, an iterator or
    generator for a live one that sends while it reads (gRPC only).
    """
    method = _stream_method(config)
    single = _ready_request(method, prompt)
    if single is not None:
        refuse_options_beside(method, options)
    elif _is_prompt(prompt):
        single = requests.generate_grounded_content_request(
            method, project=config.project, location=config.location, prompt=prompt, **options
        )
    if single is not None:
        if config.validate:
            requests.validate(method, single)
        return StreamCall(method, (single,), _stream_metadata(config, method, single), False)
    refuse_options_beside(method, options)
    converted = _checked_requests(config, method, prompt)
    if isinstance(prompt, Sequence):
        fixed = list(converted)
        first = fixed[0] if fixed else None
        return StreamCall(method, fixed, _stream_metadata(config, method, first), False)
    # A live exchange: its first request is read now (gRPC would read it at once anyway), so
    # that the routing header names the location the requests really name.
    first = next(converted, None)
    live = converted if first is None else itertools.chain((first,), converted)
    return StreamCall(method, live, _stream_metadata(config, method, first), True)


def live_stream(config: ClientConfig, requests_: AsyncIterable[Any]) -> StreamCall:
    """Plans a live StreamGenerateGroundedContent call fed by an async iterator (gRPC only)."""
    method = _stream_method(config)
    metadata = _stream_metadata(config, method, None)

    async def checked() -> AsyncIterator[message.Message]:
        index = 0
        async for item in requests_:
            yield _checked_request(config, method, item, index)
            index += 1

    return StreamCall(method, checked(), metadata, interactive=True)  # type: ignore[arg-type]


def _stream_method(config: ClientConfig) -> apis.Method:
    return apis.method("discoveryengine", config.api_version, "StreamGenerateGroundedContent")


def _stream_metadata(
    config: ClientConfig, method: apis.Method, first: message.Message | None
) -> tuple[tuple[str, str], ...]:
    """The stream's headers, routed by its first request (the client's location without one)."""
    if first is None:
        location = requests.resource_name(config.project, config.location)
        first = method.request_class(location=location)
    return endpoints.request_metadata(method, first, quota_project=config.quota_project)


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


def _checked_requests(
    config: ClientConfig, method: apis.Method, items: Iterable[Any]
) -> Iterator[message.Message]:
    for index, item in enumerate(items):
        yield _checked_request(config, method, item, index)


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
        requests.validate(method, request)
    return request
