"""The clients compared in the throughput benchmark, and the workloads each runs.

Every contender builds its request from the same user-level inputs (an answer string and
(text, attributes) facts) on every call, as an application would, gets a canned response back
and reads from it what its workload says:

- `score`: the support score and the number of claims;
- `full`: every claim's text, its position as Python str indices, and the text of each chunk it
  cites. groundwire's results carry str offsets; the bare stub and the official client convert
  Google's UTF-8 byte offsets the plain way (encode the answer once per response, decode each
  prefix) and, as a careful user does, decode each cited chunk's text once per response;
- each on three response shapes: today's 12 KB answer (`score`, `full`: 10 claims citing 5
  chunks, with cited facts and claim scores), a user's 2.5 KB one (`score-user`, `full-user`:
  10 claims, 2 citations each over 3 chunks, no cited facts, no claim scores) and a 1-claim
  one (`score-one`, `full-one`: the user's request, one claim);
- `long`: `full` on a 4,096-token answer with 50 claims.

The bare stub (the floor every ratio uses) sends the two headers groundwire and the official
client send; `stub-grpc-per-citation`, an extra contender, decodes a chunk once per citation
(the reader the floor used before issue 38).

Every groundwire contender but `groundwire-grpc-validate` runs with `validate=False`, since the
stub and the official client validate nothing. Imports happen inside the factories, so a worker
process loads only the library it measures.
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Literal

from bench import workload

SyncCall = Callable[[], Any]
AsyncCall = Callable[[], Awaitable[Any]]
Inputs = tuple[str, list[tuple[str, dict[str, str]]]]
Endpoints = dict[str, tuple[str, str]]
"""Per canned answer (`typical`, `long`): the server's (gRPC host:port, HTTP base URL)."""


@dataclass(frozen=True)
class ClientWorkload:
    """What a caller asks for and what it reads from the answer."""

    name: str
    answer: str  # which canned answer the server sends: "typical" or "long"
    reads: str  # "score" or "full"
    title: str


SHAPES = {
    "typical": "12 KB: 10 claims, 2 citations each over 5 chunks, cited facts, claim scores",
    "user": "a user's 2.5 KB: 10 claims, 2 citations each over 3 chunks",
    "one": "1 claim, 2 citations over 3 chunks",
}
"""The canned answers the score and full workloads run on, by name: what each response holds."""
_SUFFIX = {"typical": "", "user": "-user", "one": "-one"}
WORKLOADS = {
    found.name: found
    for found in (
        *(
            workload_of_shape
            for shape, title in SHAPES.items()
            for workload_of_shape in (
                ClientWorkload(
                    f"score{_SUFFIX[shape]}",
                    shape,
                    "score",
                    f"score: support score and number of claims ({title})",
                ),
                ClientWorkload(
                    f"full{_SUFFIX[shape]}",
                    shape,
                    "full",
                    f"full: every claim's text, str offsets and cited chunks' text ({title})",
                ),
            )
        ),
        ClientWorkload(
            "long",
            "long",
            "full",
            f"full, long answer: {workload.LONG_CLAIMS} claims over a 4,096-token answer, "
            "2 citations each",
        ),
    )
}
GRPC_WORKLOADS = tuple(WORKLOADS)
FULL_WORKLOADS = tuple(name for name, chosen in WORKLOADS.items() if chosen.reads == "full")
REST_WORKLOADS = ("full",)


@dataclass(frozen=True)
class Contender:
    """One client configuration: who made it, which protocol, sync or asyncio, what it runs."""

    name: str
    library: str  # "groundwire", "official" or "stub"
    protocol: str  # "grpc" or "rest"
    asynchronous: bool
    workloads: tuple[str, ...]
    validate: bool = False
    observed: bool = False  # with one interceptor that counts attempts and outcomes
    per_citation: bool = False  # a stub decoding a chunk's text once per citation of it


CONTENDERS = (
    Contender("groundwire-grpc", "groundwire", "grpc", False, GRPC_WORKLOADS),
    Contender("groundwire-grpc-async", "groundwire", "grpc", True, GRPC_WORKLOADS),
    Contender(
        "groundwire-grpc-validate", "groundwire", "grpc", False, GRPC_WORKLOADS, validate=True
    ),
    Contender("groundwire-grpc-observed", "groundwire", "grpc", False, ("score",), observed=True),
    Contender("official-grpc", "official", "grpc", False, GRPC_WORKLOADS),
    Contender("official-grpc-async", "official", "grpc", True, GRPC_WORKLOADS),
    Contender("stub-grpc", "stub", "grpc", False, GRPC_WORKLOADS),
    Contender("stub-grpc-async", "stub", "grpc", True, GRPC_WORKLOADS),
    Contender("stub-grpc-per-citation", "stub", "grpc", False, FULL_WORKLOADS, per_citation=True),
    Contender("groundwire-rest", "groundwire", "rest", False, REST_WORKLOADS),
    Contender("groundwire-rest-async", "groundwire", "rest", True, REST_WORKLOADS),
    Contender("official-rest", "official", "rest", False, REST_WORKLOADS),
)
BY_NAME = {contender.name: contender for contender in CONTENDERS}


def _interceptors(contender: Contender) -> list[Any]:
    """One interceptor observing every attempt and outcome, for the `observed` contender."""
    if not contender.observed:
        return []
    from groundwire.client.interceptors import Attempt, CallInfo, Outcome

    class Counting:
        """Counts attempts and outcomes: the least an interceptor that observes does."""

        def __init__(self) -> None:
            self.attempts = 0
            self.outcomes = 0

        def start(self, call: CallInfo) -> Counting:
            return self

        def metadata(self) -> tuple[tuple[str, str], ...]:
            return ()

        def on_attempt(self, attempt: Attempt) -> None:
            self.attempts += 1

        def on_finish(self, outcome: Outcome) -> None:
            self.outcomes += 1

    return [Counting()]


@functools.cache
def answer_workload(answer: str) -> workload.Workload:
    """The request a canned answer belongs to: `typical`, `user`, `one` or `long`."""
    chosen = {"user": workload.users, "one": workload.users, "long": workload.long_answer}
    return chosen.get(answer, workload.typical)()


@functools.cache
def canned(answer: str) -> Any:
    """The canned response the server sends for `answer` (a shape of SHAPES, or `long`)."""
    found = answer_workload(answer)
    if answer == "long":
        return workload.canned_response(found, workload.LONG_CLAIMS)
    if answer == "typical":
        return workload.canned_response(found)
    claims = 1 if answer == "one" else None
    return workload.canned_response(found, claims, cited_facts=False, claim_scores=False)


def inputs(answer: str) -> Inputs:
    """The answer string and (text, attributes) facts of that canned answer's request."""
    found = answer_workload(answer)
    return found.answer, [(fact.text, fact.attributes) for fact in found.facts]


def read_groundwire_score(result: Any) -> tuple[float, int]:
    """What a `score` caller reads from a groundwire result."""
    return result.support_score, len(result.claims)


def read_groundwire_full(result: Any) -> list[tuple[str, int, int, list[str]]]:
    """What a `full` caller reads from a groundwire result: text, str offsets, cited texts."""
    return [
        (claim.text, claim.start, claim.end, [chunk.text for chunk in claim.citations])
        for claim in result.claims
    ]


def read_protobuf_score(response: Any, answer: str) -> tuple[float, int]:
    """What a `score` caller reads from a protobuf or proto-plus response."""
    return response.support_score, len(response.claims)


def read_protobuf_full(response: Any, answer: str) -> list[tuple[str, int, int, list[str]]]:
    """The same as `read_groundwire_full`, from a raw response, as a careful user reads it.

    Offsets are converted by hand (one encode per answer); each cited chunk's text is decoded
    once, at its first citation.
    """
    encoded = answer.encode()
    chunks = response.cited_chunks
    texts: dict[int, str] = {}
    read = []
    for claim in response.claims:
        cited = []
        for index in claim.citation_indices:
            text = texts.get(index)
            if text is None:
                text = texts[index] = chunks[index].chunk_text
            cited.append(text)
        start, end = claim.start_pos, claim.end_pos
        read.append(
            (claim.claim_text, len(encoded[:start].decode()), len(encoded[:end].decode()), cited)
        )
    return read


def read_protobuf_full_per_citation(
    response: Any, answer: str
) -> list[tuple[str, int, int, list[str]]]:
    """`read_protobuf_full`, decoding a chunk's text again at each citation of it."""
    encoded = answer.encode()
    return [
        (
            claim.claim_text,
            len(encoded[: claim.start_pos].decode()),
            len(encoded[: claim.end_pos].decode()),
            [response.cited_chunks[index].chunk_text for index in claim.citation_indices],
        )
        for claim in response.claims
    ]


def expected_reading(name: str) -> Any:
    """What workload `name` must read from its canned answer (to check every contender)."""
    chosen = WORKLOADS[name]
    response = canned(chosen.answer)
    answer = inputs(chosen.answer)[0]
    if chosen.reads == "score":
        return read_protobuf_score(response, answer)
    return read_protobuf_full(response, answer)


def _reader(contender: Contender, reads: str, answer: str) -> Callable[[Any], Any]:
    if contender.library == "groundwire":
        return read_groundwire_score if reads == "score" else read_groundwire_full
    read = read_protobuf_score if reads == "score" else read_protobuf_full
    if contender.per_citation and reads == "full":
        read = read_protobuf_full_per_citation
    return lambda response: read(response, answer)


def _transport(protocol: str) -> Literal["grpc", "rest"]:
    if protocol not in ("grpc", "rest"):
        raise ValueError(f"unknown protocol {protocol!r}")
    return "grpc" if protocol == "grpc" else "rest"


# Each factory makes one client for one canned server and returns (call, close); `call` sends
# the request built from `inputs` and returns the raw result, which the workload then reads.


def groundwire_sync(
    contender: Contender, endpoint: tuple[str, str], inputs: Inputs
) -> tuple[SyncCall, Callable[[], None]]:
    """groundwire's GroundingClient on one protocol (no fallback)."""
    from groundwire import GroundingClient

    answer, facts = inputs
    client = GroundingClient(
        workload.PROJECT,
        transport=_transport(contender.protocol),
        endpoint=endpoint[0],
        rest_endpoint=endpoint[1],
        validate=contender.validate,
        interceptors=_interceptors(contender),
    )
    return (lambda: client.check_grounding(answer, facts)), client.close


async def groundwire_async(
    contender: Contender, endpoint: tuple[str, str], inputs: Inputs
) -> tuple[AsyncCall, Callable[[], Awaitable[None]]]:
    """groundwire's AsyncGroundingClient on one protocol (no fallback)."""
    from groundwire import AsyncGroundingClient

    answer, facts = inputs
    client = AsyncGroundingClient(
        workload.PROJECT,
        transport=_transport(contender.protocol),
        endpoint=endpoint[0],
        rest_endpoint=endpoint[1],
        validate=contender.validate,
    )
    return (lambda: client.check_grounding(answer, facts)), client.close


def _official_request(discoveryengine: Any, inputs: Inputs) -> Callable[[], Any]:
    answer, facts = inputs

    def build() -> Any:
        return discoveryengine.CheckGroundingRequest(
            grounding_config=workload.GROUNDING_CONFIG,
            answer_candidate=answer,
            facts=[
                discoveryengine.GroundingFact(fact_text=text, attributes=attributes)
                for text, attributes in facts
            ],
        )

    return build


def official_sync(
    contender: Contender, endpoint: tuple[str, str], inputs: Inputs
) -> tuple[SyncCall, Callable[[], None]]:
    """google-cloud-discoveryengine's GroundedGenerationServiceClient, gRPC or REST."""
    from google.auth.credentials import AnonymousCredentials
    from google.cloud import discoveryengine_v1
    from google.cloud.discoveryengine_v1.services.grounded_generation_service import transports

    if contender.protocol == "grpc":
        import grpc

        channel = grpc.insecure_channel(endpoint[0])
        client = discoveryengine_v1.GroundedGenerationServiceClient(
            transport=transports.GroundedGenerationServiceGrpcTransport(channel=channel)
        )
    else:
        client = discoveryengine_v1.GroundedGenerationServiceClient(
            client_options={"api_endpoint": endpoint[1]},
            transport="rest",
            credentials=AnonymousCredentials(),  # type: ignore[no-untyped-call]
        )
    build = _official_request(discoveryengine_v1, inputs)
    return (lambda: client.check_grounding(request=build())), client.transport.close


async def official_async(
    contender: Contender, endpoint: tuple[str, str], inputs: Inputs
) -> tuple[AsyncCall, Callable[[], Awaitable[None]]]:
    """google-cloud-discoveryengine's GroundedGenerationServiceAsyncClient over grpc.aio."""
    import grpc
    from google.cloud import discoveryengine_v1
    from google.cloud.discoveryengine_v1.services.grounded_generation_service import transports

    assert contender.protocol == "grpc", "the official asyncio client is measured over gRPC only"
    channel = grpc.aio.insecure_channel(endpoint[0])
    client = discoveryengine_v1.GroundedGenerationServiceAsyncClient(
        transport=transports.GroundedGenerationServiceGrpcAsyncIOTransport(channel=channel)
    )
    build = _official_request(discoveryengine_v1, inputs)
    return (lambda: client.check_grounding(request=build())), lambda: channel.close(None)


def _stub_request(inputs: Inputs) -> Callable[[], Any]:
    from groundwire_protos.google.cloud.discoveryengine.v1 import check_grounding_pb2

    answer, facts = inputs

    def build() -> Any:
        request = check_grounding_pb2.CheckGroundingRequest(
            grounding_config=workload.GROUNDING_CONFIG, answer_candidate=answer
        )
        for text, attributes in facts:
            request.facts.add(fact_text=text, attributes=attributes)
        return request

    return build


def stub_sync(
    contender: Contender, endpoint: tuple[str, str], inputs: Inputs
) -> tuple[SyncCall, Callable[[], None]]:
    """The floor: a bare generated gRPC stub on raw protobuf messages, nothing else."""
    import grpc
    from groundwire_protos.google.cloud.discoveryengine.v1 import (
        grounded_generation_service_pb2_grpc as service,
    )

    channel = grpc.insecure_channel(endpoint[0])
    stub = service.GroundedGenerationServiceStub(channel)
    build = _stub_request(inputs)
    headers = _groundwire_headers()
    return (lambda: stub.CheckGrounding(build(), timeout=60.0, metadata=headers)), channel.close


def _groundwire_headers() -> tuple[tuple[str, str], ...]:
    """The headers groundwire (and the official client) send with each call of the workload.

    The routing header `x-goog-request-params` (Google's front end routes by it) and
    `x-goog-api-client`: what a stub user calling the real service would send too.
    """
    from groundwire.contract.spec import SPECS, route

    method = SPECS["CheckGrounding"].method("v1")
    request = method.request_class(grounding_config=workload.GROUNDING_CONFIG)
    return route(method, request, None)


async def stub_async(
    contender: Contender, endpoint: tuple[str, str], inputs: Inputs
) -> tuple[AsyncCall, Callable[[], Awaitable[None]]]:
    """The asyncio floor: the same bare stub over a grpc.aio channel."""
    import grpc
    from groundwire_protos.google.cloud.discoveryengine.v1 import (
        grounded_generation_service_pb2_grpc as service,
    )

    channel = grpc.aio.insecure_channel(endpoint[0])
    stub = service.GroundedGenerationServiceStub(channel)
    build = _stub_request(inputs)
    headers = _groundwire_headers()
    return (
        lambda: stub.CheckGrounding(build(), timeout=60.0, metadata=headers)
    ), lambda: channel.close(None)


SYNC_FACTORIES = {"groundwire": groundwire_sync, "official": official_sync, "stub": stub_sync}
ASYNC_FACTORIES = {"groundwire": groundwire_async, "official": official_async, "stub": stub_async}


def answers(contender: Contender) -> tuple[str, ...]:
    """The canned answers (servers) `contender`'s workloads need, in a stable order."""
    return tuple(dict.fromkeys(WORKLOADS[name].answer for name in contender.workloads))


def build_sync(
    contender: Contender, endpoints: Endpoints
) -> tuple[dict[str, SyncCall], Callable[[], None]]:
    """One blocking call per workload of `contender` (one client per canned server)."""
    factory = SYNC_FACTORIES[contender.library]
    raw_calls: dict[str, SyncCall] = {}
    closers: list[Callable[[], None]] = []
    for answer in answers(contender):
        raw_calls[answer], close = factory(contender, endpoints[answer], inputs(answer))
        closers.append(close)
    found: dict[str, SyncCall] = {}
    for name in contender.workloads:
        chosen = WORKLOADS[name]
        read = _reader(contender, chosen.reads, inputs(chosen.answer)[0])
        found[name] = _read_after_sync(raw_calls[chosen.answer], read)

    def close_all() -> None:
        for close in closers:
            close()

    return found, close_all


async def build_async(
    contender: Contender, endpoints: Endpoints
) -> tuple[dict[str, AsyncCall], Callable[[], Awaitable[None]]]:
    """One awaitable call per workload of `contender` (one client per canned server)."""
    factory = ASYNC_FACTORIES[contender.library]
    raw_calls: dict[str, AsyncCall] = {}
    closers: list[Callable[[], Awaitable[None]]] = []
    for answer in answers(contender):
        raw_calls[answer], close = await factory(contender, endpoints[answer], inputs(answer))
        closers.append(close)
    found: dict[str, AsyncCall] = {}
    for name in contender.workloads:
        chosen = WORKLOADS[name]
        found[name] = _read_after(
            raw_calls[chosen.answer],
            _reader(contender, chosen.reads, inputs(chosen.answer)[0]),
        )

    async def close_all() -> None:
        for close in closers:
            await close()

    return found, close_all


def _read_after_sync(raw: SyncCall, read: Callable[[Any], Any]) -> SyncCall:
    return lambda: read(raw())


def _read_after(raw: AsyncCall, read: Callable[[Any], Any]) -> AsyncCall:
    async def call() -> Any:
        return read(await raw())

    return call
