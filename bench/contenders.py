"""The clients compared in the throughput benchmark, each making the same CheckGrounding call.

Every contender builds its request from the same user-level inputs (an answer string and
(text, attributes) facts) on every call, as an application would, gets the canned 10-claim
response back, and reads every claim's text, position and citations from it (lazily decoded
responses, as proto-plus makes, would otherwise look free). Imports happen inside the
factories, so a worker process loads only the library it measures.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Literal

from bench import workload

SyncCall = Callable[[], Any]
AsyncCall = Callable[[], Awaitable[Any]]


@dataclass(frozen=True)
class Contender:
    """One client configuration: who made it, which protocol, sync or asyncio."""

    name: str
    library: str  # "groundwire", "official" or "stub"
    protocol: str  # "grpc" or "rest"
    asynchronous: bool


CONTENDERS = (
    Contender("groundwire-grpc", "groundwire", "grpc", False),
    Contender("groundwire-grpc-async", "groundwire", "grpc", True),
    Contender("groundwire-rest", "groundwire", "rest", False),
    Contender("groundwire-rest-async", "groundwire", "rest", True),
    Contender("official-grpc", "official", "grpc", False),
    Contender("official-grpc-async", "official", "grpc", True),
    Contender("official-rest", "official", "rest", False),
    Contender("stub-grpc", "stub", "grpc", False),
    Contender("stub-grpc-async", "stub", "grpc", True),
)
BY_NAME = {contender.name: contender for contender in CONTENDERS}


def _inputs() -> tuple[str, list[tuple[str, dict[str, str]]]]:
    typical = workload.typical()
    return typical.answer, [(fact.text, fact.attributes) for fact in typical.facts]


def read_groundwire(result: Any) -> Any:
    """Touches what an application reads from a groundwire result, and returns the result.

    That is each claim's text, its str offsets and its cited chunks.
    """
    for claim in result.claims:
        _ = (claim.text, claim.start, claim.end, claim.citations)
    return result


def read_official(response: Any) -> Any:
    """The same for a protobuf or proto-plus response: text, byte offsets, citation indices."""
    for claim in response.claims:
        _ = (claim.claim_text, claim.start_pos, claim.end_pos, list(claim.citation_indices))
    return response


def _transport(protocol: str) -> Literal["grpc", "rest"]:
    if protocol not in ("grpc", "rest"):
        raise ValueError(f"unknown protocol {protocol!r}")
    return "grpc" if protocol == "grpc" else "rest"


def groundwire_sync(
    protocol: str, grpc_address: str, http_url: str
) -> tuple[SyncCall, Callable[[], None]]:
    """groundwire's GroundingClient on one protocol (no fallback)."""
    from groundwire import GroundingClient

    answer, facts = _inputs()
    client = GroundingClient(
        workload.PROJECT,
        transport=_transport(protocol),
        endpoint=grpc_address,
        rest_endpoint=http_url,
    )
    return (lambda: read_groundwire(client.check_grounding(answer, facts))), client.close


async def groundwire_async(
    protocol: str, grpc_address: str, http_url: str
) -> tuple[AsyncCall, Callable[[], Awaitable[None]]]:
    """groundwire's AsyncGroundingClient on one protocol (no fallback)."""
    from groundwire import AsyncGroundingClient

    answer, facts = _inputs()
    client = AsyncGroundingClient(
        workload.PROJECT,
        transport=_transport(protocol),
        endpoint=grpc_address,
        rest_endpoint=http_url,
    )

    async def call() -> Any:
        return read_groundwire(await client.check_grounding(answer, facts))

    return call, client.close


def _official_request(discoveryengine: Any) -> Callable[[], Any]:
    answer, facts = _inputs()

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
    protocol: str, grpc_address: str, http_url: str
) -> tuple[SyncCall, Callable[[], None]]:
    """google-cloud-discoveryengine's GroundedGenerationServiceClient, gRPC or REST."""
    from google.auth.credentials import AnonymousCredentials
    from google.cloud import discoveryengine_v1
    from google.cloud.discoveryengine_v1.services.grounded_generation_service import transports

    if protocol == "grpc":
        import grpc

        channel = grpc.insecure_channel(grpc_address)
        client = discoveryengine_v1.GroundedGenerationServiceClient(
            transport=transports.GroundedGenerationServiceGrpcTransport(channel=channel)
        )
    else:
        client = discoveryengine_v1.GroundedGenerationServiceClient(
            client_options={"api_endpoint": http_url},
            transport="rest",
            credentials=AnonymousCredentials(),
        )  # type: ignore[no-untyped-call]
    build = _official_request(discoveryengine_v1)
    return (lambda: read_official(client.check_grounding(request=build()))), (
        client.transport.close
    )


async def official_async(
    protocol: str, grpc_address: str, http_url: str
) -> tuple[AsyncCall, Callable[[], Awaitable[None]]]:
    """google-cloud-discoveryengine's GroundedGenerationServiceAsyncClient over grpc.aio."""
    import grpc
    from google.cloud import discoveryengine_v1
    from google.cloud.discoveryengine_v1.services.grounded_generation_service import transports

    assert protocol == "grpc", "the official asyncio client is measured over gRPC only"
    channel = grpc.aio.insecure_channel(grpc_address)
    client = discoveryengine_v1.GroundedGenerationServiceAsyncClient(
        transport=transports.GroundedGenerationServiceGrpcAsyncIOTransport(channel=channel)
    )
    build = _official_request(discoveryengine_v1)

    async def call() -> Any:
        return read_official(await client.check_grounding(request=build()))

    return call, lambda: channel.close(None)


def _stub_request() -> Callable[[], Any]:
    from groundwire_protos.google.cloud.discoveryengine.v1 import check_grounding_pb2

    answer, facts = _inputs()

    def build() -> Any:
        request = check_grounding_pb2.CheckGroundingRequest(
            grounding_config=workload.GROUNDING_CONFIG, answer_candidate=answer
        )
        for text, attributes in facts:
            request.facts.add(fact_text=text, attributes=attributes)
        return request

    return build


def stub_sync(
    protocol: str, grpc_address: str, http_url: str
) -> tuple[SyncCall, Callable[[], None]]:
    """The floor: a bare generated gRPC stub on raw protobuf messages, nothing else."""
    import grpc
    from groundwire_protos.google.cloud.discoveryengine.v1 import (
        grounded_generation_service_pb2_grpc as service,
    )

    channel = grpc.insecure_channel(grpc_address)
    stub = service.GroundedGenerationServiceStub(channel)
    build = _stub_request()
    return (lambda: read_official(stub.CheckGrounding(build(), timeout=60.0))), channel.close


async def stub_async(
    protocol: str, grpc_address: str, http_url: str
) -> tuple[AsyncCall, Callable[[], Awaitable[None]]]:
    """The asyncio floor: the same bare stub over a grpc.aio channel."""
    import grpc
    from groundwire_protos.google.cloud.discoveryengine.v1 import (
        grounded_generation_service_pb2_grpc as service,
    )

    channel = grpc.aio.insecure_channel(grpc_address)
    stub = service.GroundedGenerationServiceStub(channel)
    build = _stub_request()

    async def call() -> Any:
        return read_official(await stub.CheckGrounding(build(), timeout=60.0))

    return call, lambda: channel.close(None)


SYNC_FACTORIES = {"groundwire": groundwire_sync, "official": official_sync, "stub": stub_sync}
ASYNC_FACTORIES = {"groundwire": groundwire_async, "official": official_async, "stub": stub_async}
