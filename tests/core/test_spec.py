"""One spec per RPC: the client and the emulator validate, route and read a request alike."""

from __future__ import annotations

import inspect
from collections.abc import Iterator
from typing import Any

import pytest
from google.rpc import error_details_pb2
from hypothesis import given
from hypothesis import strategies as st

from groundwire.client.aio import AsyncGroundingClient
from groundwire.client.sync import GroundingClient
from groundwire.contract import apis, calls, requests, validation
from groundwire.contract.errors import InvalidArgument
from groundwire.contract.spec import SPECS, spec_for
from groundwire.emulator import Emulator, emulator
from groundwire.features.batch_spec import BATCHABLE, BY_COMMAND

TRANSPORTS = ("grpc", "rest")


@pytest.fixture(scope="module")
def emu() -> Iterator[Emulator]:
    with emulator() as running:
        yield running


def fields_of(error: InvalidArgument) -> list[str]:
    found = error.detail(error_details_pb2.BadRequest)
    assert found is not None
    return [violation.field for violation in found.field_violations]


def refused_by_client(call: Any) -> list[str]:
    """The fields a validating client names, before anything is sent."""
    with pytest.raises(InvalidArgument) as raised:
        call(True)
    return fields_of(raised.value)


def refused_by_emulator(call: Any) -> list[str]:
    """The fields the emulator names for the same request, sent unchecked."""
    with pytest.raises(InvalidArgument) as raised:
        call(False)
    return fields_of(raised.value)


def test_every_rpc_groundwire_knows_has_one_spec() -> None:
    assert {m.name for m in apis.all_methods()} == set(SPECS)
    for method in apis.all_methods():
        assert spec_for(method).method(method.version) == method


def test_options_are_read_from_the_builders_signature() -> None:
    assert SPECS["CheckGrounding"].option_defaults["grounding_config"] == (
        "default_grounding_config"
    )
    assert "citation_threshold" in SPECS["CorroborateContent"].option_defaults
    assert "facts" in SPECS["GenerateGroundedContent"].option_defaults


@pytest.mark.parametrize("rpc", sorted(BATCHABLE))
def test_a_batch_items_text_goes_under_its_builders_own_argument_name(rpc: str) -> None:
    spec = SPECS[rpc]
    subject = inspect.signature(spec.build).parameters
    assert BATCHABLE[rpc].text_keys[0] == list(subject)[3]
    assert set(BATCHABLE[rpc].claim_score_options) <= set(spec.option_defaults)


@pytest.mark.parametrize("rpc", sorted(BATCHABLE))
def test_both_clients_run_a_batch_of_each_batchable_rpc(rpc: str) -> None:
    assert callable(getattr(GroundingClient, BATCHABLE[rpc].many))
    assert callable(getattr(AsyncGroundingClient, BATCHABLE[rpc].many))


@pytest.mark.parametrize("rpc", sorted(BATCHABLE))
def test_a_batch_record_holds_the_score_its_spec_names(rpc: str) -> None:
    spec = SPECS[rpc]
    method = spec.method("v1")
    result = spec.read(method.request_class(), method.response_class(), "utf8", "Hi.")
    assert BATCHABLE[rpc].score in BATCHABLE[rpc].record(result)
    assert BATCHABLE[rpc].score_of(result) is None


def test_each_batch_method_name_of_the_command_line_is_one_rpc() -> None:
    assert len(BY_COMMAND) == len(BATCHABLE)
    assert {batch.rpc for batch in BY_COMMAND.values()} == set(BATCHABLE)


def test_an_rpc_without_a_batch_spec_has_none() -> None:
    assert "GenerateGroundedContent" not in BATCHABLE


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_two_inline_sources_of_150_facts_each_pass_on_both_sides(
    emu: Emulator, transport: str
) -> None:
    method = apis.method("discoveryengine", "v1", "GenerateGroundedContent")
    request: Any = method.request_class(location="projects/emulator-project/locations/global")
    request.contents.add(role="user").parts.add(text="What is Paris?")
    for _ in range(2):
        inline = request.grounding_spec.grounding_sources.add().inline_source
        for index in range(150):
            inline.grounding_facts.add(fact_text=f"Paris is fact number {index}.")
    for validate in (True, False):
        with emu.client(transport=transport, validate=validate) as client:
            assert client.generate_grounded_content(request).text


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_a_long_chunk_text_fact_is_named_by_its_chunk_text_on_both_sides(
    emu: Emulator, transport: str
) -> None:
    method = apis.method("aiplatform", "v1", "CorroborateContent")
    request: Any = method.request_class(parent="projects/emulator-project/locations/global")
    request.content.parts.add(text="Paris is in France.")
    request.facts.add(chunk={"text": "x" * 10_001})

    def call(validate: bool) -> None:
        with emu.client(transport=transport, validate=validate) as client:
            client.corroborate_content(request)

    assert refused_by_client(call) == refused_by_emulator(call) == ["facts[0].chunk.text"]


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_more_than_200_facts_in_one_inline_source_are_refused_on_both_sides(
    emu: Emulator, transport: str
) -> None:
    def call(validate: bool) -> None:
        with emu.client(transport=transport, validate=validate) as client:
            client.generate_grounded_content("What is Paris?", facts=["Paris."] * 201)

    field = "grounding_spec.grounding_sources[0].inline_source.grounding_facts"
    assert refused_by_client(call) == refused_by_emulator(call) == [field]


def test_a_malformed_resource_name_is_refused_on_both_sides_over_grpc(emu: Emulator) -> None:
    method = apis.method("discoveryengine", "v1", "CheckGrounding")
    request = method.request_class(grounding_config="nowhere", answer_candidate="Hi.")

    def call(validate: bool) -> None:
        with emu.client(transport="grpc", validate=validate) as client:
            client.check_grounding(request)

    assert refused_by_client(call) == refused_by_emulator(call) == ["grounding_config"]


def test_a_ready_request_is_routed_by_the_location_it_names() -> None:
    method = apis.method("discoveryengine", "v1", "GenerateGroundedContent")
    request = method.request_class(location="projects/other/locations/eu")
    config = calls.ClientConfig("my-project", validate=False)
    for plan in (
        calls.unary(config, "GenerateGroundedContent", request),
        calls.stream_generate_grounded_content(config, request),
    ):
        assert dict(plan.metadata)["x-goog-request-params"] == (
            "location=projects%2Fother%2Flocations%2Feu"
        )


class _CountingPattern:
    """Wraps the token pattern, counting the matches validation asks for."""

    def __init__(self, pattern: Any) -> None:
        self.pattern = pattern
        self.matches = 0

    def finditer(self, text: str) -> Iterator[Any]:
        for match in self.pattern.finditer(text):
            self.matches += 1
            yield match


def test_validating_an_over_long_answer_stops_counting_at_the_limit(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    counting = _CountingPattern(validation._word_pattern())
    monkeypatch.setattr(validation, "_word_pattern", lambda: counting)
    found = validation.validate_answer_candidate("word " * 1_000_000, "v1")
    assert [field for field, _ in found] == ["answer_candidate"]
    assert counting.matches <= validation.MAX_ANSWER_TOKENS + 1


def test_the_limit_is_still_exact_when_counting_stops_early() -> None:
    assert validation.validate_answer_candidate("word " * 4096, "v1") == []
    assert validation.validate_answer_candidate("word " * 4097, "v1")


CHECK = apis.method("discoveryengine", "v1", "CheckGrounding")
PLAIN_FACTS = st.lists(
    st.one_of(
        st.text(max_size=20),
        st.tuples(st.text(max_size=20), st.dictionaries(st.text(max_size=5), st.text(max_size=5))),
    ),
    max_size=6,
)


@given(PLAIN_FACTS, st.none() | st.floats(0, 1), st.none() | st.booleans())
def test_the_fast_build_makes_the_request_the_careful_build_makes(
    facts: list[Any], threshold: float | None, claim_scores: bool | None
) -> None:
    fast: Any = requests.check_grounding_request(
        CHECK,
        "p",
        "global",
        "Paris.",
        facts,
        citation_threshold=threshold,
        enable_claim_level_score=claim_scores,
    )
    careful = requests._careful_check_grounding_request(
        CHECK,
        fast.grounding_config,
        "Paris.",
        facts,
        threshold,
        claim_scores,
        None,
    )
    assert fast == careful


def test_a_bad_fact_among_plain_ones_is_still_named() -> None:
    bad: Any = ("x", {"a": 1})
    with pytest.raises(InvalidArgument) as raised:
        requests.check_grounding_request(CHECK, "p", "global", "Paris.", ["ok", bad])
    assert fields_of(raised.value) == ["facts[1].attributes"]
