// The shared case of `make test-polyglot` (conformance/grounding_case.json) and the checks every
// TypeScript client makes of its answers, so that the generated and the official clients are
// held to the same expectations.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";

import { resolveByteSpans } from "@groundwire/offsets";

/** A claim as the check expects it, written by hand in the case file. */
export interface ExpectedClaim {
  text: string;
  bytes: [number, number];
  utf16: [number, number];
  codePoints: [number, number];
  citationIndices: number[];
}

/** The requests (Google's JSON) and expectations of conformance/grounding_case.json. */
export interface GroundingCase {
  check: { request: Record<string, unknown> & { answerCandidate: string }; expected: ExpectedClaim[] };
  generate: { location: string; request: Record<string, unknown>; answerContains: string };
  corroborate: { request: Record<string, unknown>; expectedFactIndexes: number[] };
  invalid: { request: Record<string, unknown>; code: string; badRequestField: string };
}

/** A claim as any client reads it from a CheckGroundingResponse. */
export interface ReceivedClaim {
  startPos?: number | null | undefined;
  endPos?: number | null | undefined;
  claimText: string;
  citationIndices: readonly number[];
}

/** What the driver compares across languages: the check's score, byte offsets and citations. */
export interface CheckSummary {
  supportScore: number;
  claims: Array<{ start: number; end: number; citationIndices: number[] }>;
}

/** The value of a required environment variable; a clear failure when it is not set. */
export function required(name: string): string {
  const value = process.env[name];
  if (!value) {
    throw new Error(`${name} is not set (make test-polyglot sets it)`);
  }
  return value;
}

/** The shared case, from $GROUNDWIRE_CASE. */
export function loadCase(): GroundingCase {
  return JSON.parse(readFileSync(required("GROUNDWIRE_CASE"), "utf-8")) as GroundingCase;
}

/**
 * Asserts a CheckGrounding answer against the case: byte offsets, texts and citations as
 * written by hand, and the string indices @groundwire/offsets finds slice out each claim.
 */
export function assertCheck(
  groundingCase: GroundingCase,
  supportScore: number | null | undefined,
  claims: readonly ReceivedClaim[],
): CheckSummary {
  const answer = groundingCase.check.request.answerCandidate;
  const expected = groundingCase.check.expected;
  assert.equal(typeof supportScore, "number", "the check has a support score");
  assert.equal(claims.length, expected.length, "one claim per sentence");
  const spans = resolveByteSpans(
    answer,
    claims.map((claim) => [claim.startPos ?? null, claim.endPos ?? null, claim.claimText] as const),
  );
  claims.forEach((claim, position) => {
    const want = expected[position];
    const span = spans[position];
    assert.ok(want && span);
    assert.equal(claim.claimText, want.text);
    assert.deepEqual([claim.startPos, claim.endPos], want.bytes, `byte offsets of ${want.text}`);
    assert.deepEqual([...claim.citationIndices], want.citationIndices, `citations of ${want.text}`);
    assert.deepEqual([span.start, span.end], want.utf16, `string indices of ${want.text}`);
    assert.equal(answer.slice(span.start, span.end), want.text);
    assert.equal(span.adjusted || span.located, false);
  });
  return {
    supportScore: supportScore as number,
    claims: claims.map((claim) => ({
      start: claim.startPos ?? 0,
      end: claim.endPos ?? 0,
      citationIndices: [...claim.citationIndices],
    })),
  };
}

/** Prints the one final stdout line the driver reads. */
export function report(language: string, check: CheckSummary): void {
  console.log(JSON.stringify({ language, check }));
}

/** Logs a step to stderr, so that stdout holds only the final line. */
export function step(text: string): void {
  console.error(`  ${text}`);
}
