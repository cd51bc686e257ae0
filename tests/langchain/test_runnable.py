"""CheckGroundingRunnable: LangChain's grounding wrapper as a drop-in, each of its bugs fixed.

Every test runs real langchain-core against the embedded emulator; each bug case names the
wrapper's behaviour (langchain-google-community's `VertexAICheckGroundingWrapper`) it fixes.
"""

from __future__ import annotations

import asyncio
import json
import re
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("langchain_core", reason="groundwire[langchain] is not installed")

from google.auth.credentials import AnonymousCredentials
from langchain_core.documents import Document
from langchain_core.runnables import RunnableConfig, RunnableLambda

from groundwire import (
    ConfigurationError,
    GroundwireError,
    InvalidArgument,
    NotFound,
    PermissionDenied,
    Unavailable,
)
from groundwire.client.connection import connection
from groundwire.client.interceptors import CallInfo, CallObserver, Outcome
from groundwire.contract.errors import StatusCode
from groundwire.emulator import Emulator, emulator
from groundwire.emulator.faults import FaultPolicy
from groundwire.integrations.langchain.runnable import (
    CheckGroundingResponse,
    CheckGroundingRunnable,
)
from tests.reliability.processes import free_port

PARIS = Document(page_content="Paris is the capital of France.", metadata={"source": "atlas"})
TOKYO = Document(page_content="Tokyo is the capital of Japan.")
TOKYO_JA = Document(page_content="東京は日本の首都であり、最大の都市です。")
TOO_LONG = " ".join(["word"] * 5_000)  # past the 4,096 tokens an answer may have


class Recorder:
    """An interceptor that keeps each call's request, thread, and the peak of calls in flight."""

    def __init__(self) -> None:
        self.calls: list[CallInfo] = []
        self.threads: list[str] = []
        self.in_flight = 0
        self.peak = 0
        self._lock = threading.Lock()

    def start(self, call: CallInfo) -> CallObserver:
        with self._lock:
            self.calls.append(call)
            self.threads.append(threading.current_thread().name)
            self.in_flight += 1
            self.peak = max(self.peak, self.in_flight)
        return _Finished(self)

    @property
    def request(self) -> Any:
        assert self.calls, "no call was made"
        return self.calls[-1].request


class _Finished:
    def __init__(self, recorder: Recorder) -> None:
        self._recorder = recorder

    def metadata(self) -> tuple[tuple[str, str], ...]:
        return ()

    def on_attempt(self, attempt: object) -> None:
        return None

    def on_finish(self, outcome: Outcome) -> None:
        with self._recorder._lock:
            self._recorder.in_flight -= 1


@pytest.fixture(scope="module")
def emu() -> Iterator[Emulator]:
    with emulator() as running:
        yield running


@pytest.fixture
def recorder() -> Recorder:
    return Recorder()


def runnable_for(emu: Emulator, recorder: Recorder | None = None, **options: Any) -> Any:
    """The runnable as a wrapper user builds it (its names), pointed at the emulator."""
    arguments: dict[str, Any] = {
        "project_id": "my-project",
        "endpoint": emu.grpc_address,
        "rest_endpoint": emu.http_url,
        **options,
    }
    if recorder is not None:
        arguments["interceptors"] = [recorder]
    return CheckGroundingRunnable(**arguments)


def with_documents(*documents: Document) -> RunnableConfig:
    return {"configurable": {"documents": list(documents)}}


def without_markers(text: str) -> str:
    return re.sub(r"\[\d+\]", "", text)


# -- the wrapper's bugs, fixed ----------------------------------------------------------------


def test_the_api_is_v1_with_claim_scores_and_answers_past_the_v1alpha_limit(
    emu: Emulator, recorder: Recorder
) -> None:
    # The wrapper called v1alpha: no claim scores, and answers of at most 1,024 characters.
    answer = " ".join(["Tokyo is the capital of Japan."] * 40)
    assert len(answer) > 1_024
    with runnable_for(emu, recorder) as check:
        response = check.invoke(answer, config=with_documents(TOKYO))
    assert ".v1.GroundedGenerationService/CheckGrounding" in recorder.calls[0].procedure
    assert response.claims
    assert all(claim["score"] is not None for claim in response.claims)
    assert response.support_score > 0.9


def test_v1alpha_is_still_there_for_whoever_asks_for_it_with_its_limits(emu: Emulator) -> None:
    with runnable_for(emu, api_version="v1alpha") as check:
        response = check.invoke("Tokyo is the capital of Japan.", config=with_documents(TOKYO))
        assert [claim["score"] for claim in response.claims] == [None]
        with pytest.raises(InvalidArgument, match=r"1,?024"):
            check.invoke("Tokyo is big. " * 80, config=with_documents(TOKYO))


def test_metadata_of_any_type_is_sent_as_strings(emu: Emulator, recorder: Recorder) -> None:
    # The wrapper passed metadata through; an integer crashed the request's construction.
    document = Document(
        page_content="Tokyo is the capital of Japan.",
        metadata={
            "page": 3,
            "year": 1868,
            "weight": 0.5,
            "reviewed": True,
            "authors": ["Sato", "Suzuki"],
            "title": "Atlas",
            "missing": None,
            "id": "doc-1",
            "relevance_score": 0.93,
        },
    )
    with runnable_for(emu, recorder) as check:
        response = check.invoke("Tokyo is the capital of Japan.", config=with_documents(document))
    sent = dict(recorder.request.facts[0].attributes)
    assert sent == {
        "page": "3",
        "year": "1868",
        "weight": "0.5",
        "reviewed": "true",
        "authors": '["Sato", "Suzuki"]',
        "title": "Atlas",
    }
    assert response.cited_chunks[0]["source"] is document
    assert document.metadata["page"] == 3  # the caller's document is left as it was


def test_citations_name_their_document_when_documents_without_text_are_left_out(
    emu: Emulator, recorder: Recorder
) -> None:
    # The wrapper dropped the empty documents, then looked the fact index up in the full
    # list: fact 1 (Tokyo) named documents[1], the Paris one.
    documents = [Document(page_content=""), PARIS, Document(page_content=""), TOKYO]
    with runnable_for(emu, recorder) as check:
        response = check.invoke(
            "Tokyo is the capital of Japan. Paris is the capital of France.",
            config=with_documents(*documents),
        )
    assert [fact.fact_text for fact in recorder.request.facts] == [
        PARIS.page_content,
        TOKYO.page_content,
    ]
    by_text = {chunk["chunk_text"]: chunk["source"] for chunk in response.cited_chunks}
    assert by_text[TOKYO.page_content] is TOKYO
    assert by_text[PARIS.page_content] is PARIS
    for claim in response.claims:
        for index in claim["citation_indices"]:
            source = response.cited_chunks[index]["source"]
            assert source.page_content.split(" is ")[0] in claim["claim_text"]


def test_claims_carry_str_offsets_beside_the_apis_utf8_bytes(emu: Emulator) -> None:
    # The wrapper passed the API's UTF-8 byte offsets through as its only positions.
    answer = "東京は日本の首都です。 Tokyo is the capital of Japan. 👍🏽"
    with runnable_for(emu) as check:
        response = check.invoke(answer, config=with_documents(TOKYO_JA, TOKYO))
    encoded = answer.encode()
    english = next(claim for claim in response.claims if claim["claim_text"].startswith("Tokyo"))
    assert set(english) >= {"claim_text", "start_pos", "end_pos", "citation_indices"}
    assert english["start_pos"] != english["start"]  # bytes, past the Japanese sentence
    for claim in response.claims:
        assert answer[claim["start"] : claim["end"]] == claim["claim_text"]
        assert encoded[claim["start_pos"] : claim["end_pos"]].decode() == claim["claim_text"]


def test_markers_go_into_the_original_text_at_character_offsets(emu: Emulator) -> None:
    # The wrapper rejoined the claims' texts with single spaces, losing newlines, double
    # spaces and anything between the claims; and put its markers by those texts.
    answer = "東京は日本の首都です。\n\nTokyo is the capital of Japan!  Paris is in Germany.\n"
    with runnable_for(emu) as check:
        response = check.invoke(answer, config=with_documents(TOKYO_JA, TOKYO))
    assert response.answer_with_citations == (
        "東京は日本の首都です。[0]\n\nTokyo is the capital of Japan![1]  Paris is in Germany.\n"
    )
    assert without_markers(response.answer_with_citations) == answer


def test_the_markers_are_the_wrappers_zero_based_indices_into_cited_chunks(emu: Emulator) -> None:
    answer = "Paris is the capital of France. Tokyo is the capital of Japan."
    with runnable_for(emu) as check:
        response = check.invoke(answer, config=with_documents(TOKYO, PARIS))
    for claim in response.claims:
        end = claim["end"]
        markers = "".join(f"[{index}]" for index in claim["citation_indices"])
        assert markers
        position = response.answer_with_citations.index(claim["claim_text"])
        following = response.answer_with_citations[position + end - claim["start"] :]
        assert following.startswith(markers)


def test_location_id_picks_the_regional_endpoint(
    emu: Emulator, recorder: Recorder, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The wrapper put location_id in the resource name but always called the global host.
    monkeypatch.delenv("GROUNDWIRE_EMULATOR_HOST", raising=False)
    monkeypatch.delenv("GROUNDWIRE_EMULATOR_REST", raising=False)
    with CheckGroundingRunnable(
        project_id="my-project", location_id="eu", credentials=AnonymousCredentials()
    ) as check:
        client = check.client
        endpoints = connection(client._settings, "discoveryengine", "eu", None).endpoints
    assert endpoints.grpc_target == "eu-discoveryengine.googleapis.com:443"
    assert endpoints.rest_base_url == "https://eu-discoveryengine.googleapis.com"
    with runnable_for(emu, recorder, location_id="eu") as check:
        check.invoke("Tokyo is the capital of Japan.", config=with_documents(TOKYO))
    assert recorder.request.grounding_config == (
        "projects/my-project/locations/eu/groundingConfigs/default_grounding_config"
    )


def test_a_server_error_is_its_typed_groundwire_error_not_a_runtime_error() -> None:
    # The wrapper turned every API error into RuntimeError("Error in Vertex AI ...").
    denied = FaultPolicy(rate=1.0, codes=(StatusCode.PERMISSION_DENIED,))
    with (
        emulator(faults=denied) as faulty,
        runnable_for(faulty) as check,
        pytest.raises(PermissionDenied) as raised,
    ):
        check.invoke("Tokyo is the capital of Japan.", config=with_documents(TOKYO))
    assert not isinstance(raised.value, RuntimeError)


def test_an_endpoint_that_refuses_is_unavailable_not_a_runtime_error() -> None:
    port = free_port()
    with (
        CheckGroundingRunnable(
            project_id="my-project", endpoint=f"127.0.0.1:{port}", transport="grpc", retry=None
        ) as check,
        pytest.raises(Unavailable) as raised,
    ):
        check.invoke("Tokyo is the capital of Japan.", config=with_documents(TOKYO))
    assert not isinstance(raised.value, RuntimeError)


@pytest.mark.parametrize(
    "config",
    [
        None,
        {},
        {"configurable": {}},
        {"configurable": {"documents": []}},
        {"configurable": {"documents": [Document(page_content="")]}},
        {"configurable": {"documents": ["Tokyo is the capital of Japan."]}},
        {"configurable": {"documents": "Tokyo is the capital of Japan."}},
    ],
    ids=["no-config", "empty", "no-documents", "none", "no-text", "strings", "one-string"],
)
def test_missing_or_unusable_documents_are_an_invalid_argument(
    emu: Emulator, config: RunnableConfig | None
) -> None:
    # The wrapper raised bare ValueErrors for these.
    with runnable_for(emu) as check, pytest.raises(InvalidArgument):
        check.invoke("Tokyo is the capital of Japan.", config=config)


def test_an_answer_that_is_not_text_is_an_invalid_argument(emu: Emulator) -> None:
    with runnable_for(emu) as check, pytest.raises(InvalidArgument, match="answer"):
        check.invoke(["Tokyo"], config=with_documents(TOKYO))


def test_an_empty_answer_is_an_invalid_argument_not_a_score_of_zero(
    emu: Emulator, recorder: Recorder
) -> None:
    # The wrapper answered "" with support_score 0.0, as if nothing in it were supported.
    with runnable_for(emu, recorder) as check:
        for answer in ("", " \n"):
            with pytest.raises(InvalidArgument, match="answer_candidate is empty"):
                check.invoke(answer, config=with_documents(TOKYO))
        checked, empty = check.batch(
            ["Tokyo is the capital of Japan.", ""],
            config=with_documents(TOKYO),
            return_exceptions=True,
        )

        async def refused() -> None:
            await check.ainvoke("", config=with_documents(TOKYO))

        with pytest.raises(InvalidArgument, match="answer_candidate is empty"):
            asyncio.run(refused())
    assert isinstance(checked, CheckGroundingResponse)
    assert isinstance(empty, InvalidArgument)
    assert len(recorder.calls) == 1  # only the answer with text was sent


# -- native async and batch, on the library's batch API -------------------------------------


def test_ainvoke_runs_on_the_event_loop_not_in_a_thread(emu: Emulator, recorder: Recorder) -> None:
    # Runnable's default ainvoke runs invoke in an executor thread.
    with runnable_for(emu, recorder) as check:

        async def main() -> tuple[CheckGroundingResponse, str]:
            response = await check.ainvoke(
                "Tokyo is the capital of Japan.", config=with_documents(TOKYO)
            )
            await check.aclose()
            return response, threading.current_thread().name

        response, loop_thread = asyncio.run(main())
    assert recorder.threads == [loop_thread]
    assert response.cited_chunks[0]["source"] is TOKYO


def test_batch_runs_concurrently_on_check_grounding_many_in_input_order(recorder: Recorder) -> None:
    slow = FaultPolicy(latency_ms=150)
    answers = [f"Tokyo is the capital of Japan, says answer {index}." for index in range(8)]
    with emulator(faults=slow) as slow_emu, runnable_for(slow_emu, recorder) as check:
        responses = check.batch(answers, config=with_documents(PARIS, TOKYO))
    assert [response.claims[0]["claim_text"] for response in responses] == answers
    assert all(thread.startswith("groundwire-batch") for thread in recorder.threads)
    assert recorder.peak > 1


def test_batch_takes_one_config_per_input_each_with_its_documents(emu: Emulator) -> None:
    configs = [with_documents(TOKYO), with_documents(Document(page_content=""), PARIS)]
    answers = ["Tokyo is the capital of Japan.", "Paris is the capital of France."]
    with runnable_for(emu) as check:
        tokyo, paris = check.batch(answers, config=configs)
    assert tokyo.cited_chunks[0]["source"] is TOKYO
    assert paris.cited_chunks[0]["source"] is PARIS


def test_batch_honours_max_concurrency(recorder: Recorder) -> None:
    slow = FaultPolicy(latency_ms=100)
    answers = [f"Tokyo is the capital of Japan ({index})." for index in range(6)]
    config: RunnableConfig = {**with_documents(TOKYO), "max_concurrency": 2}
    with emulator(faults=slow) as slow_emu, runnable_for(slow_emu, recorder) as check:
        check.batch(answers, config=config)
    assert 1 <= recorder.peak <= 2
    assert len(recorder.calls) == len(answers)


def test_batch_with_return_exceptions_keeps_each_failure_in_its_place(emu: Emulator) -> None:
    configs = [with_documents(TOKYO), {}, with_documents(PARIS)]
    answers = ["Tokyo is the capital of Japan.", "No documents.", TOO_LONG]
    with runnable_for(emu) as check:
        tokyo, missing, too_long = check.batch(answers, config=configs, return_exceptions=True)
    assert isinstance(tokyo, CheckGroundingResponse)
    assert isinstance(missing, InvalidArgument)
    assert isinstance(too_long, InvalidArgument)


def test_batch_without_return_exceptions_raises_the_first_failure(emu: Emulator) -> None:
    answers = ["Tokyo is the capital of Japan.", TOO_LONG]
    with runnable_for(emu) as check, pytest.raises(InvalidArgument):
        check.batch(answers, config=with_documents(TOKYO))


def test_abatch_runs_concurrently_on_the_event_loop(recorder: Recorder) -> None:
    slow = FaultPolicy(latency_ms=150)
    answers = [f"Tokyo is the capital of Japan, says answer {index}." for index in range(6)]
    configs: list[RunnableConfig] = [with_documents(TOKYO) for _ in answers]
    configs[2] = {}
    with emulator(faults=slow) as slow_emu, runnable_for(slow_emu, recorder) as check:

        async def main() -> tuple[list[Any], str]:
            responses = await check.abatch(answers, config=configs, return_exceptions=True)
            await check.aclose()
            return responses, threading.current_thread().name

        responses, loop_thread = asyncio.run(main())
    assert isinstance(responses[2], InvalidArgument)
    assert [response.claims[0]["claim_text"] for i, response in enumerate(responses) if i != 2] == [
        answer for i, answer in enumerate(answers) if i != 2
    ]
    assert set(recorder.threads) == {loop_thread}
    assert recorder.peak > 1


# -- a drop-in: the wrapper's names, LangChain's composition -------------------------------


def test_the_wrappers_constructor_names_are_accepted(emu: Emulator, recorder: Recorder) -> None:
    check = CheckGroundingRunnable(
        project_id="my-project",
        location_id="global",
        grounding_config="my_grounding_config",
        citation_threshold=0.8,
        endpoint=emu.grpc_address,
        interceptors=[recorder],
        timeout=30.0,
    )
    with check, pytest.raises(NotFound, match="my_grounding_config"):  # the emulator has one
        check.invoke("Tokyo is the capital of Japan.", config=with_documents(TOKYO))
    request = recorder.request
    assert request.grounding_config == (
        "projects/my-project/locations/global/groundingConfigs/my_grounding_config"
    )
    assert request.grounding_spec.citation_threshold == pytest.approx(0.8)
    assert request.grounding_spec.enable_claim_level_score is True
    assert check.project == "my-project"
    assert CheckGroundingRunnable.CheckGroundingResponse is CheckGroundingResponse


def test_groundwires_own_names_are_accepted_too(emu: Emulator) -> None:
    with CheckGroundingRunnable(
        "my-project", location="global", endpoint=emu.grpc_address
    ) as check:
        response = check.invoke("Tokyo is the capital of Japan.", config=with_documents(TOKYO))
    assert response.support_score > 0.9


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"project_id": "a", "project": "b"}, "disagree"),
        ({"project_id": "a", "temperature": 0.2}, "no argument 'temperature'"),
        ({"project_id": "a", "citation_threshold": "high"}, "citation_threshold"),
        ({"location_id": "global"}, "needs a project"),
        ({"project_id": "a", "client": object()}, "GroundingClient"),
        ({"project_id": "a", "credentials_path": "/nonexistent/key.json"}, "credentials_path"),
        ({"project_id": "a", "transport": "carrier-pigeon"}, "transport"),
        ({"project_id": "a", "timeout": -1.0}, "timeout must be positive"),
        ({"project_id": "a", "async_client": object()}, "AsyncGroundingClient"),
        (
            {"project_id": "a", "credentials": AnonymousCredentials(), "credentials_path": "k"},
            "not both",
        ),
    ],
    ids=[
        "synonyms-disagree",
        "unknown",
        "wrong-type",
        "no-project",
        "foreign-client",
        "no-key",
        "bad-transport",
        "bad-client-argument",
        "foreign-async-client",
        "two-credentials",
    ],
)
def test_a_bad_constructor_argument_is_a_configuration_error(
    arguments: dict[str, Any], message: str
) -> None:
    with pytest.raises(ConfigurationError, match=message) as raised:
        CheckGroundingRunnable(**arguments)
    assert isinstance(raised.value, GroundwireError)


def test_a_constructor_error_names_the_argument_but_never_shows_its_value() -> None:
    with pytest.raises(ConfigurationError, match="endpoint") as raised:
        CheckGroundingRunnable(project_id="a", endpoint=["ya29.secret-token"])
    assert "secret" not in str(raised.value)


def test_credentials_path_loads_a_service_account_key(tmp_path: Path) -> None:
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa
    from google.oauth2 import service_account

    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    ).decode()
    path = tmp_path / "key.json"
    path.write_text(
        json.dumps(
            {
                "type": "service_account",
                "project_id": "my-project",
                "private_key_id": "1",
                "private_key": pem,
                "client_email": "checker@my-project.iam.gserviceaccount.com",
                "client_id": "1",
                "token_uri": "https://oauth2.googleapis.com/token",
            }
        )
    )
    with CheckGroundingRunnable(project_id="my-project", credentials_path=str(path)) as check:
        credentials = check.client._settings.credentials
    assert isinstance(credentials, service_account.Credentials)
    assert credentials.service_account_email == "checker@my-project.iam.gserviceaccount.com"


def test_a_given_client_is_used_as_it_is(emu: Emulator) -> None:
    with emu.client() as client:
        check = CheckGroundingRunnable(client=client)
        response = check.invoke("Tokyo is the capital of Japan.", config=with_documents(TOKYO))
        in_a_thread = asyncio.run(
            check.ainvoke("Tokyo is the capital of Japan.", config=with_documents(TOKYO))
        )
        in_threads = asyncio.run(
            check.abatch(["Tokyo is the capital of Japan."], config=with_documents(TOKYO))
        )
        check.close()  # the client is the caller's: it stays open
        client.check_grounding("Tokyo is the capital of Japan.", [TOKYO.page_content])
    assert check.client is client
    assert check.async_client is None
    assert in_a_thread.answer_with_citations == response.answer_with_citations
    assert [answer.answer_with_citations for answer in in_threads] == [
        response.answer_with_citations
    ]


def test_it_composes_in_a_chain_with_the_documents_bound_to_it(emu: Emulator) -> None:
    with runnable_for(emu) as check:
        chain = RunnableLambda(lambda question: f"{question} is the capital of Japan.") | (
            check.with_config(configurable={"documents": [PARIS, TOKYO]})
        )
        response = chain.invoke("Tokyo")
    assert response.answer_with_citations == "Tokyo is the capital of Japan.[0]"
    assert response.cited_chunks[0]["source"] is TOKYO


def test_the_response_dumps_as_the_wrappers_did(emu: Emulator) -> None:
    with runnable_for(emu) as check:
        response = check.invoke("Tokyo is the capital of Japan.", config=with_documents(TOKYO))
    dumped = response.model_dump()
    assert set(dumped) == {"support_score", "cited_chunks", "claims", "answer_with_citations"}
    assert response.result is not None
    assert response.result.to_markdown() == "**Tokyo is the capital of Japan**.[1]"
