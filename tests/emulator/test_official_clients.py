"""Google's official clients, in their own process, get sensible answers from the emulator."""

from __future__ import annotations

import json

import pytest

from groundwire.emulator import Emulator
from tests.emulator.support import run_python

pytestmark = pytest.mark.official

ANSWER = "Café au lait is coffee with milk. 東京は日本の首都です。 The moon is made of cheese."
FACTS = ["Bananas are yellow.", "Café au lait is coffee with hot milk.", "東京は日本の首都です。"]

CHECK_GROUNDING = """
import json, sys
import grpc
from google.api_core import exceptions
from google.auth.credentials import AnonymousCredentials
from google.cloud import discoveryengine_{version} as de
from google.cloud.discoveryengine_{version}.services.grounded_generation_service import transports

transport, address, answer, facts = sys.argv[1], sys.argv[2], sys.argv[3], json.loads(sys.argv[4])
if transport == "grpc":
    channel = grpc.insecure_channel(address)
    client = de.GroundedGenerationServiceClient(
        transport=transports.GroundedGenerationServiceGrpcTransport(channel=channel))
else:
    client = de.GroundedGenerationServiceClient(
        transport="rest", credentials=AnonymousCredentials(),
        client_options={{"api_endpoint": address}})
response = client.check_grounding(request=de.CheckGroundingRequest(
    grounding_config="projects/p/locations/global/groundingConfigs/default_grounding_config",
    answer_candidate=answer, facts=[de.GroundingFact(fact_text=text) for text in facts]))
sources = [chunk.source for chunk in response.cited_chunks]
try:
    client.check_grounding(request=de.CheckGroundingRequest(
        grounding_config="projects/p/locations/global/groundingConfigs/default_grounding_config",
        answer_candidate="a", facts=[de.GroundingFact(fact_text="x" * 10_001)]))
    error = None
except exceptions.BadRequest as raised:  # InvalidArgument over gRPC, BadRequest over REST
    details = [getattr(d, "field_violations", None) or d.get("fieldViolations")
               for d in raised.details]
    error = ["BadRequest", [v.field if hasattr(v, "field") else v["field"]
                                     for violations in details for v in violations]]
print(json.dumps({{
    "support_score": response.support_score,
    "claims": [{{"start": c.start_pos, "end": c.end_pos, "text": c.claim_text,
                "sources": [sources[i] for i in c.citation_indices]}} for c in response.claims],
    "error": error,
}}))
"""

CORROBORATE = """
import json, sys
import grpc
from google.auth.credentials import AnonymousCredentials
from google.cloud import aiplatform_v1 as ai
from google.cloud.aiplatform_v1.services.vertex_rag_service import transports

transport, address, content, facts = sys.argv[1], sys.argv[2], sys.argv[3], json.loads(sys.argv[4])
if transport == "grpc":
    client = ai.VertexRagServiceClient(transport=transports.VertexRagServiceGrpcTransport(
        channel=grpc.insecure_channel(address)))
else:
    client = ai.VertexRagServiceClient(transport="rest", credentials=AnonymousCredentials(),
                                       client_options={"api_endpoint": address})
response = client.corroborate_content(request=ai.CorroborateContentRequest(
    parent="projects/p/locations/us-central1",
    content=ai.Content(parts=[ai.Part(text=content)]),
    facts=[ai.Fact(summary=text) for text in facts]))
print(json.dumps({
    "score": response.corroboration_score,
    "claims": [{"start": c.start_index, "end": c.end_index, "facts": list(c.fact_indexes),
                "score": c.score} for c in response.claims],
}))
"""

STREAM = """
import json, sys
import grpc
from google.cloud import discoveryengine_v1 as de
from google.cloud.discoveryengine_v1.services.grounded_generation_service import transports

client = de.GroundedGenerationServiceClient(
    transport=transports.GroundedGenerationServiceGrpcTransport(
        channel=grpc.insecure_channel(sys.argv[1])))
request = de.GenerateGroundedContentRequest(
    location="projects/p/locations/global",
    contents=[de.GroundedGenerationContent(
        role="user", parts=[de.GroundedGenerationContent.Part(text="What is the capital?")])],
    grounding_spec=de.GenerateGroundedContentRequest.GroundingSpec(grounding_sources=[
        de.GenerateGroundedContentRequest.GroundingSource(
            inline_source=de.GenerateGroundedContentRequest.GroundingSource.InlineSource(
                grounding_facts=[de.GroundingFact(fact_text="Paris is the capital of France.")]
            ))]))
pieces = [r.candidates[0].content.parts[0].text
          for r in client.stream_generate_grounded_content(requests=iter([request, request]))]
print(json.dumps(pieces))
"""


def address(emu: Emulator, transport: str) -> str:
    return emu.grpc_address if transport == "grpc" else emu.http_url


def check_claims(emu: Emulator, transport: str, version: str = "v1") -> dict[str, object]:
    script = CHECK_GROUNDING.format(version=version)
    output = run_python(script, transport, address(emu, transport), ANSWER, json.dumps(FACTS))
    result: dict[str, object] = json.loads(output)
    return result


@pytest.mark.parametrize("transport", ["grpc", "rest"])
def test_check_grounding_cites_the_right_fact_at_the_right_bytes(
    emu: Emulator, transport: str
) -> None:
    result = check_claims(emu, transport)
    claims = result["claims"]
    assert isinstance(claims, list)
    assert [claim["sources"] for claim in claims] == [["1"], ["2"], []]
    for claim in claims:
        assert ANSWER.encode()[claim["start"] : claim["end"]].decode() == claim["text"]
    assert claims[1]["start"] == len("Café au lait is coffee with milk. ".encode())
    assert result["error"] == ["BadRequest", ["facts[0].fact_text"]]


@pytest.mark.parametrize("version", ["v1beta", "v1alpha"])
def test_older_api_versions_check_grounding_over_grpc(emu: Emulator, version: str) -> None:
    result = check_claims(emu, "grpc", version)
    claims = result["claims"]
    assert isinstance(claims, list)
    assert [claim["sources"] for claim in claims] == [["1"], ["2"], []]


@pytest.mark.parametrize("transport", ["grpc", "rest"])
def test_corroborate_content_reports_corroborated_claims(emu: Emulator, transport: str) -> None:
    content = "Ça va. Paris is the capital of France. The moon is made of cheese."
    facts = ["Bananas are yellow.", "Paris is the capital and largest city of France."]
    output = run_python(CORROBORATE, transport, address(emu, transport), content, json.dumps(facts))
    result = json.loads(output)
    (claim,) = result["claims"]
    assert content.encode()[claim["start"] : claim["end"]].decode() == (
        "Paris is the capital of France."
    )
    assert claim["facts"] == [1]
    assert 0 < result["score"] < 1


def test_the_official_bidi_stream_gets_each_answer_in_pieces(emu: Emulator) -> None:
    pieces = json.loads(run_python(STREAM, emu.grpc_address))
    assert len(pieces) >= 4
    assert "".join(pieces).count("Paris is the capital of France.") == 2
