"""groundwire and Google's official clients import into one process, in either order."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

OURS = """
from groundwire_protos.google.cloud.discoveryengine.v1 import check_grounding_pb2 as ours
from groundwire_protos.google.cloud.aiplatform.v1 import vertex_rag_service_pb2 as ours_rag
"""
THEIRS = """
from google.cloud import discoveryengine_v1 as theirs
from google.cloud import aiplatform_v1 as theirs_rag
"""
ACROSS = """
request = ours.CheckGroundingRequest(answer_candidate="Tokyo is 東京.", grounding_config="g")
request.facts.add(fact_text="Tokyo (東京) is the capital.", attributes={"author": "atlas"})
official = theirs.CheckGroundingRequest.deserialize(request.SerializeToString())
assert official.answer_candidate == "Tokyo is 東京.", official
assert official.facts[0].attributes["author"] == "atlas"
back = ours.CheckGroundingRequest.FromString(theirs.CheckGroundingRequest.serialize(official))
assert back == request

fact = theirs_rag.Fact(summary="Water boils at 100 °C.", title="physics")
ours_fact = ours_rag.Fact.FromString(theirs_rag.Fact.serialize(fact))
assert ours_fact.summary == "Water boils at 100 °C." and ours_fact.HasField("title")

# Each library keeps its own registry: ours is not in protobuf's default pool.
from google.protobuf import descriptor_pool
default = descriptor_pool.Default().FindMessageTypeByName(
    "google.cloud.discoveryengine.v1.CheckGroundingRequest")
assert default is not ours.CheckGroundingRequest.DESCRIPTOR
print("ok")
"""


@pytest.mark.official
@pytest.mark.parametrize("first", ["groundwire", "official"])
def test_both_libraries_import_and_exchange_messages(first: str) -> None:
    imports = OURS + THEIRS if first == "groundwire" else THEIRS + OURS
    script = textwrap.dedent(imports + ACROSS)
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok"


def test_groundwire_registers_nothing_in_the_default_pool() -> None:
    script = textwrap.dedent(
        OURS
        + """
from google.protobuf import descriptor_pool
try:
    descriptor_pool.Default().FindMessageTypeByName(
        "google.cloud.discoveryengine.v1.CheckGroundingRequest")
except KeyError:
    print("absent")
"""
    )
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120
    )
    assert result.stdout.strip() == "absent", result.stderr
