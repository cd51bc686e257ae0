"""REST transcoding follows the google.api.http rules in the descriptors."""

from __future__ import annotations

import dataclasses
import json

import pytest
from google.rpc.error_details_pb2 import BadRequest
from groundwire_protos.google.cloud.discoveryengine.v1.check_grounding_pb2 import (
    CheckGroundingRequest,
)
from groundwire_protos.google.cloud.discoveryengine.v1beta.grounded_generation_pb2 import (
    GenerateGroundedContentRequest,
)

from groundwire.contract import apis, errors, transcoding
from groundwire.emulator import rest_transcoding
from groundwire.wire.jsonstream import JsonArrayStream
from tests.support.typed import typed

CHECK = apis.method("discoveryengine", "v1", "CheckGrounding")
STREAM = apis.method("discoveryengine", "v1beta", "StreamGenerateGroundedContent")
CONFIG = "projects/p/locations/global/groundingConfigs/default_grounding_config"
LOCATION = "projects/p/locations/global"


def test_the_path_comes_from_the_rule_and_path_fields_leave_the_body() -> None:
    request = CHECK.request_class(grounding_config=CONFIG, answer_candidate="東京です")
    http = transcoding.encode_request(CHECK, request)
    assert (http.verb, http.path) == ("POST", f"/v1/{CONFIG}:check")
    assert json.loads(http.body) == {"answerCandidate": "東京です"}


def test_a_rule_whose_body_is_one_field_sends_that_field_alone() -> None:
    rule = dataclasses.replace(CHECK.http, body="grounding_spec")
    one_field = dataclasses.replace(CHECK, http=rule)
    spec = {"citation_threshold": 0.6}
    request = CHECK.request_class(
        grounding_config=CONFIG, answer_candidate="東京です", grounding_spec=spec
    )
    http = transcoding.encode_request(one_field, request)
    assert (http.verb, http.path) == ("POST", f"/v1/{CONFIG}:check")
    assert json.loads(http.body) == {"citationThreshold": 0.6}


def test_a_rule_with_no_body_sends_none() -> None:
    no_body = dataclasses.replace(CHECK, http=dataclasses.replace(CHECK.http, body=""))
    request = CHECK.request_class(grounding_config=CONFIG, answer_candidate="東京です")
    assert transcoding.encode_request(no_body, request).body == b""


def test_a_resource_name_that_does_not_fit_the_rule_names_the_field() -> None:
    request = CHECK.request_class(grounding_config="configs/x", answer_candidate="a")
    with pytest.raises(errors.InvalidArgument) as caught:
        transcoding.encode_request(CHECK, request)
    violations = typed(BadRequest, caught.value.details[0]).field_violations
    assert violations[0].field == "grounding_config"


def test_a_stream_is_one_post_with_a_json_array_body() -> None:
    requests = [
        typed(GenerateGroundedContentRequest, STREAM.request_class(location=LOCATION))
        for _ in range(3)
    ]
    requests[1].contents.add(role="user").parts.add(text="hi")
    http = transcoding.encode_stream_request(STREAM, requests)
    assert http.path == "/v1beta/projects/p/locations/global:streamGenerateGroundedContent"
    body = json.loads(http.body)
    assert len(body) == 3
    assert body[1]["contents"][0]["parts"][0]["text"] == "hi"


def test_a_stream_body_decodes_back_to_the_requests_it_encodes() -> None:
    requests = [STREAM.request_class(location=LOCATION) for _ in range(2)]
    typed(GenerateGroundedContentRequest, requests[0]).contents.add(role="user").parts.add(
        text="東京は？"
    )
    http = transcoding.encode_stream_request(STREAM, requests)
    route = rest_transcoding.match_route(apis.all_methods(), http.verb, http.path)
    assert route is not None
    assert rest_transcoding.decode_body(route.method, http.body, route.bindings) == requests


@pytest.mark.parametrize("sse", [False, True])
def test_streamed_responses_framed_by_the_server_are_read_back_by_the_client(sse: bool) -> None:
    elements = [json.dumps({"n": n}).encode() for n in range(3)]
    framed = [rest_transcoding.stream_frame(i, data, sse=sse) for i, data in enumerate(elements)]
    if sse:
        assert all(frame.startswith(b"data: ") for frame in framed)
        assert [frame[len(b"data: ") :].strip() for frame in framed] == elements
        return
    wire = rest_transcoding.STREAM_OPEN + b"".join(framed) + rest_transcoding.STREAM_CLOSE
    stream = JsonArrayStream()
    read = [element for byte in range(len(wire)) for element in stream.feed(wire[byte : byte + 1])]
    stream.close()
    assert read == elements


def test_every_method_routes_back_to_itself() -> None:
    methods = apis.all_methods()
    for method in methods:
        request = method.request_class()
        setattr(
            request,
            method.routing_field,
            {
                "grounding_config": CONFIG,
            }.get(method.routing_field, "projects/p/locations/us-central1"),
        )
        path = transcoding.path_for(method, request)
        route = rest_transcoding.match_route(methods, "POST", path)
        assert route is not None
        assert route.method == method
        assert route.bindings == {method.routing_field: getattr(request, method.routing_field)}


def test_unknown_paths_and_verbs_do_not_route() -> None:
    methods = apis.all_methods()
    assert rest_transcoding.match_route(methods, "POST", "/v2/projects/p:check") is None
    assert rest_transcoding.match_route(methods, "GET", f"/v1/{CONFIG}:check") is None


def test_decoding_is_strict_about_unknown_fields_only_when_asked() -> None:
    body = b'{"answerCandidate": "a", "surprise": 1}'
    decoded = transcoding.decode_message(body, CHECK.request_class)
    assert typed(CheckGroundingRequest, decoded).answer_candidate == "a"
    with pytest.raises(errors.InvalidArgument):
        transcoding.decode_message(body, CHECK.request_class, ignore_unknown_fields=False)
    with pytest.raises(errors.InvalidArgument):
        transcoding.decode_message(b"{not json", CHECK.request_class)


def test_google_system_parameters_are_understood() -> None:
    assert rest_transcoding.system_parameters("$alt=json;enum-encoding=int").enum_encoding_int
    assert rest_transcoding.system_parameters("alt=sse").alt == "sse"
    assert rest_transcoding.system_parameters("").alt == "json"
    with pytest.raises(errors.InvalidArgument):
        rest_transcoding.system_parameters("alt=proto")
