// The TypeScript client generated from protos/ (protobuf-es + connect-es) against a running
// `groundwire serve`: all ten RPC paths over plaintext gRPC (HTTP/2), the REST stream through
// @groundwire/offsets' JSON array reader, and an error's google.rpc.BadRequest. Asserts; exits
// non-zero on the first mismatch; prints the driver's one JSON line last.
import assert from "node:assert/strict";

import { type DescMessage, type JsonValue, fromJson, type MessageShape } from "@bufbuild/protobuf";
import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { readJsonArray } from "@groundwire/offsets";

import * as aiplatform from "../../build/polyglot/ts/google/cloud/aiplatform/v1/vertex_rag_service_pb.js";
import * as checkV1 from "../../build/polyglot/ts/google/cloud/discoveryengine/v1/check_grounding_pb.js";
import * as generationV1 from "../../build/polyglot/ts/google/cloud/discoveryengine/v1/grounded_generation_pb.js";
import * as serviceV1 from "../../build/polyglot/ts/google/cloud/discoveryengine/v1/grounded_generation_service_pb.js";
import * as checkV1alpha from "../../build/polyglot/ts/google/cloud/discoveryengine/v1alpha/check_grounding_pb.js";
import * as generationV1alpha from "../../build/polyglot/ts/google/cloud/discoveryengine/v1alpha/grounded_generation_pb.js";
import * as serviceV1alpha from "../../build/polyglot/ts/google/cloud/discoveryengine/v1alpha/grounded_generation_service_pb.js";
import * as checkV1beta from "../../build/polyglot/ts/google/cloud/discoveryengine/v1beta/check_grounding_pb.js";
import * as generationV1beta from "../../build/polyglot/ts/google/cloud/discoveryengine/v1beta/grounded_generation_pb.js";
import * as serviceV1beta from "../../build/polyglot/ts/google/cloud/discoveryengine/v1beta/grounded_generation_service_pb.js";
import { BadRequestSchema } from "../../build/polyglot/ts/google/rpc/error_details_pb.js";
import { assertCheck, type CheckSummary, type GroundingCase, loadCase, report, required, step } from "./grounding_case.js";

// v1alpha's CheckGroundingSpec has no enableClaimLevelScore (as in Google's v1alpha): its
// request drops the fields it does not know; the claims, offsets and citations stay the same.
const VERSIONS = [
  { name: "v1", service: serviceV1.GroundedGenerationService, check: checkV1, generation: generationV1, ignoreUnknownFields: false },
  { name: "v1beta", service: serviceV1beta.GroundedGenerationService, check: checkV1beta, generation: generationV1beta, ignoreUnknownFields: false },
  { name: "v1alpha", service: serviceV1alpha.GroundedGenerationService, check: checkV1alpha, generation: generationV1alpha, ignoreUnknownFields: true },
] as const;

const parse = <Desc extends DescMessage>(schema: Desc, json: unknown, ignoreUnknownFields = false): MessageShape<Desc> =>
  fromJson(schema, json as JsonValue, { ignoreUnknownFields });

type Part = { data: { case: "text"; value: string } | { case: undefined; value?: undefined } };
type Answer = { candidates: ReadonlyArray<{ content?: { parts: readonly Part[] } | undefined }> };

/** The answer's text, joined over every part of the first candidate of each response. */
function answerText(responses: readonly Answer[]): string {
  const partText = (part: Part): string => (part.data.case === "text" ? part.data.value : "");
  return responses.map((response) => response.candidates[0]?.content?.parts.map(partText).join("") ?? "").join("");
}

async function checkEveryVersion(groundingCase: GroundingCase, grpcUrl: string): Promise<CheckSummary> {
  const transport = createGrpcTransport({ baseUrl: grpcUrl });
  let first: CheckSummary | undefined;
  for (const version of VERSIONS) {
    const client = createClient(version.service, transport);
    const response = await client.checkGrounding(
      parse(version.check.CheckGroundingRequestSchema, groundingCase.check.request, version.ignoreUnknownFields),
    );
    const summary = assertCheck(groundingCase, response.supportScore, response.claims);
    if (first === undefined) {
      first = summary;
    } else {
      assert.deepEqual(summary, first, `${version.name} checks as v1 does`);
    }
    step(`CheckGrounding ${version.name}: ${response.claims.length} claims, offsets and citations as written`);
  }
  assert.ok(first);
  return first;
}

async function generateEveryVersion(groundingCase: GroundingCase, grpcUrl: string): Promise<void> {
  const transport = createGrpcTransport({ baseUrl: grpcUrl });
  const wanted = groundingCase.generate.answerContains;
  for (const version of VERSIONS) {
    const client = createClient(version.service, transport);
    const request = parse(version.generation.GenerateGroundedContentRequestSchema, groundingCase.generate.request);
    const unary = await client.generateGroundedContent(request);
    assert.match(answerText([unary]), new RegExp(wanted));
    assert.ok((unary.candidates[0]?.groundingMetadata?.supportChunks.length ?? 0) > 0, "the answer cites a fact");

    const streamed = [];
    for await (const response of client.streamGenerateGroundedContent(twice(request))) {
      streamed.push(response);
    }
    assert.ok(streamed.length >= 2, `${version.name}: the stream answered each request`);
    const text = answerText(streamed);
    assert.equal(text.split(wanted).length - 1, 2, `${version.name}: two streamed answers: ${text}`);
    step(`GenerateGroundedContent and the bidirectional stream ${version.name}: ${streamed.length} responses`);
  }
}

async function* twice<T>(request: T): AsyncGenerator<T> {
  yield request;
  yield request;
}

async function streamOverRest(groundingCase: GroundingCase, restUrl: string): Promise<void> {
  const { location, request } = groundingCase.generate;
  const response = await fetch(`${restUrl}/v1/${location}:streamGenerateGroundedContent`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify([request, request]),
  });
  assert.equal(response.status, 200);
  assert.ok(response.body);
  const elements = [];
  for await (const element of readJsonArray(response.body)) {
    elements.push(parse(generationV1.GenerateGroundedContentResponseSchema, element));
  }
  assert.ok(elements.length >= 2);
  assert.equal(answerText(elements).split(groundingCase.generate.answerContains).length - 1, 2);
  step(`the REST stream: ${elements.length} JSON array elements, read as they came`);
}

async function corroborate(groundingCase: GroundingCase, grpcUrl: string): Promise<void> {
  const client = createClient(aiplatform.VertexRagService, createGrpcTransport({ baseUrl: grpcUrl }));
  const response = await client.corroborateContent(parse(aiplatform.CorroborateContentRequestSchema, groundingCase.corroborate.request));
  assert.equal(typeof response.corroborationScore, "number");
  assert.deepEqual(response.claims[0]?.factIndexes, groundingCase.corroborate.expectedFactIndexes);
  step(`CorroborateContent: score ${response.corroborationScore}`);
}

async function invalidRequest(groundingCase: GroundingCase, grpcUrl: string): Promise<void> {
  const client = createClient(serviceV1.GroundedGenerationService, createGrpcTransport({ baseUrl: grpcUrl }));
  const error = await client
    .checkGrounding(parse(checkV1.CheckGroundingRequestSchema, groundingCase.invalid.request))
    .then(() => assert.fail("an invalid request was answered"), (reason: unknown) => reason);
  assert.ok(error instanceof ConnectError, String(error));
  assert.equal(Code[error.code], "InvalidArgument");
  const [badRequest] = error.findDetails(BadRequestSchema);
  assert.equal(badRequest?.fieldViolations[0]?.field, groundingCase.invalid.badRequestField);
  step(`an invalid request: ${groundingCase.invalid.code} with google.rpc.BadRequest on ${groundingCase.invalid.badRequestField}`);
}

const groundingCase = loadCase();
const grpcUrl = `http://${required("GROUNDWIRE_GRPC")}`;
const check = await checkEveryVersion(groundingCase, grpcUrl);
await generateEveryVersion(groundingCase, grpcUrl);
await streamOverRest(groundingCase, required("GROUNDWIRE_REST"));
await corroborate(groundingCase, grpcUrl);
await invalidRequest(groundingCase, grpcUrl);
report("typescript", check);
