// Google's official Node clients (@google-cloud/discoveryengine, @google-cloud/aiplatform)
// pointed at a running `groundwire serve`, with the options docs/polyglot.md gives: plaintext
// gRPC, and REST (gax's "fallback"), with no credentials either way. Asserts; prints the
// driver's one JSON line last (gRPC's CheckGrounding on the shared case).
import assert from "node:assert/strict";

import { v1 as aiplatform } from "@google-cloud/aiplatform";
import { v1 as discoveryengine } from "@google-cloud/discoveryengine";
import { googleAuthLibrary, grpc } from "google-gax";

import { assertCheck, type CheckSummary, type GroundingCase, loadCase, report, required, step } from "./grounding_case.js";

type Protocol = "grpc" | "rest";

/** The official clients' options for the emulator at host:port, over gRPC or REST. */
function emulatorOptions(hostAndPort: string, protocol: Protocol) {
  const url = new URL(`http://${hostAndPort}`);
  const common = {
    apiEndpoint: url.hostname,
    port: Number(url.port),
    // No Application Default Credentials lookup, no metadata server probe: nothing to send.
    authClient: new googleAuthLibrary.PassThroughClient(),
  };
  return protocol === "grpc"
    ? { ...common, sslCreds: grpc.credentials.createInsecure() }
    : { ...common, fallback: true, protocol: "http" };
}

/** The summary with its score as the proto's float: REST's JSON gives the shortest decimal. */
const float32Summary = (summary: CheckSummary): CheckSummary => ({
  ...summary,
  supportScore: Math.fround(summary.supportScore),
});

async function discoveryEngine(groundingCase: GroundingCase, address: string, protocol: Protocol): Promise<CheckSummary> {
  const client = new discoveryengine.GroundedGenerationServiceClient(emulatorOptions(address, protocol));
  try {
    const [checked] = await client.checkGrounding(groundingCase.check.request);
    const summary = assertCheck(
      groundingCase,
      checked.supportScore,
      (checked.claims ?? []).map((claim) => ({
        startPos: claim.startPos,
        endPos: claim.endPos,
        claimText: claim.claimText ?? "",
        citationIndices: claim.citationIndices ?? [],
      })),
    );
    step(`official discoveryengine ${protocol}: CheckGrounding offsets and citations as written`);

    const [generated] = await client.generateGroundedContent(groundingCase.generate.request);
    const text = generated.candidates?.[0]?.content?.parts?.map((part) => part.text ?? "").join("") ?? "";
    assert.match(text, new RegExp(groundingCase.generate.answerContains));
    step(`official discoveryengine ${protocol}: GenerateGroundedContent`);

    const error = await client
      .checkGrounding(groundingCase.invalid.request)
      .then(() => assert.fail("an invalid request was answered"), (reason: unknown) => reason);
    assertBadRequest(error, groundingCase, protocol);
    step(`official discoveryengine ${protocol}: ${groundingCase.invalid.code} with its BadRequest`);

    if (protocol === "grpc") {
      // gax refuses bidirectional streaming over REST itself; the REST stream is read with
      // @groundwire/offsets' JSON array reader in the generated client's run instead.
      await streamOverGrpc(client, groundingCase);
    }
    return summary;
  } finally {
    await client.close();
  }
}

async function streamOverGrpc(
  client: InstanceType<typeof discoveryengine.GroundedGenerationServiceClient>,
  groundingCase: GroundingCase,
): Promise<void> {
  const stream = client.streamGenerateGroundedContent();
  const texts: string[] = [];
  const ended = new Promise<void>((resolve, reject) => {
    stream.on("data", (response: { candidates?: Array<{ content?: { parts?: Array<{ text?: string | null }> } }> }) => {
      texts.push(response.candidates?.[0]?.content?.parts?.map((part) => part.text ?? "").join("") ?? "");
    });
    stream.on("end", resolve);
    stream.on("error", reject);
  });
  stream.write(groundingCase.generate.request);
  stream.write(groundingCase.generate.request);
  stream.end();
  await ended;
  const wanted = groundingCase.generate.answerContains;
  assert.equal(texts.join("").split(wanted).length - 1, 2, `two streamed answers: ${texts.join("")}`);
  step(`official discoveryengine grpc: the bidirectional stream, ${texts.length} responses`);
}

/**
 * Over gRPC, gax gives a GoogleError with the canonical code and the decoded details. Over REST,
 * gax 5 lets google-auth-library's fetch throw first: a GaxiosError with the HTTP status, whose
 * message is Google's error JSON, details included.
 */
function assertBadRequest(error: unknown, groundingCase: GroundingCase, protocol: Protocol): void {
  assert.ok(error instanceof Error, String(error));
  const { code, statusDetails } = error as Error & { code?: number | string; statusDetails?: unknown[] };
  let details = statusDetails ?? [];
  if (protocol === "grpc") {
    assert.equal(code, grpc.status[groundingCase.invalid.code as keyof typeof grpc.status]);
  } else {
    const body = JSON.parse(error.message) as { error: { code: number; status: string; details: unknown[] } };
    assert.deepEqual([code, body.error.code, body.error.status], [400, 400, groundingCase.invalid.code]);
    details = body.error.details;
  }
  const fields = details.flatMap(
    (detail) => (detail as { fieldViolations?: Array<{ field?: string }> }).fieldViolations ?? [],
  );
  assert.deepEqual(
    fields.map((violation) => violation.field),
    [groundingCase.invalid.badRequestField],
  );
}

async function vertexAi(groundingCase: GroundingCase, address: string, protocol: Protocol): Promise<void> {
  const client = new aiplatform.VertexRagServiceClient(emulatorOptions(address, protocol));
  try {
    const [response] = await client.corroborateContent(groundingCase.corroborate.request);
    assert.equal(typeof response.corroborationScore, "number");
    assert.deepEqual(response.claims?.[0]?.factIndexes, groundingCase.corroborate.expectedFactIndexes);
    step(`official aiplatform ${protocol}: CorroborateContent`);
  } finally {
    await client.close();
  }
}

const groundingCase = loadCase();
const grpcAddress = required("GROUNDWIRE_GRPC");
const restAddress = new URL(required("GROUNDWIRE_REST")).host;
const overGrpc = await discoveryEngine(groundingCase, grpcAddress, "grpc");
const overRest = await discoveryEngine(groundingCase, restAddress, "rest");
assert.deepEqual(float32Summary(overRest), float32Summary(overGrpc), "REST checks as gRPC does");
await vertexAi(groundingCase, grpcAddress, "grpc");
await vertexAi(groundingCase, restAddress, "rest");
report("node-official", overGrpc);
