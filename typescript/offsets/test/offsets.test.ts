// The shared cases of conformance/offsets.json, which every language's helper must pass.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import { type ClaimPosition, resolveByteSpans } from "../src/index.js";

interface Expected {
  codePoints: [number, number];
  utf16: [number, number];
  bytes: [number, number];
  adjusted: boolean;
  located: boolean;
}

interface Case {
  name: string;
  text: string;
  claims: ClaimPosition[];
  expected: Expected[];
}

const casesFile = process.env.GROUNDWIRE_OFFSETS ?? new URL("../../../../conformance/offsets.json", import.meta.url);
const cases = (JSON.parse(readFileSync(casesFile, "utf-8")) as { cases: Case[] }).cases;

const codePointsBefore = (text: string, index: number): number => [...text.slice(0, index)].length;
const bytesBefore = (text: string, index: number): number => Buffer.byteLength(text.slice(0, index), "utf-8");

test("the shared file has cases", () => {
  assert.ok(cases.length >= 10, `only ${cases.length} cases in ${String(casesFile)}`);
});

for (const shared of cases) {
  test(`offsets case ${shared.name}`, () => {
    const spans = resolveByteSpans(shared.text, shared.claims);
    const resolved = spans.map((span) => ({
      codePoints: [codePointsBefore(shared.text, span.start), codePointsBefore(shared.text, span.end)],
      utf16: [span.start, span.end],
      bytes: [bytesBefore(shared.text, span.start), bytesBefore(shared.text, span.end)],
      adjusted: span.adjusted,
      located: span.located,
    }));
    assert.deepEqual(resolved, shared.expected);
    spans.forEach((span, position) => {
      const [sentStart, sentEnd] = shared.claims[position] ?? [];
      assert.equal(span.startByte, sentStart ?? null);
      assert.equal(span.endByte, sentEnd ?? null);
    });
  });
}

test("positions that fit are taken literally, and a claim's text is sliced by them", () => {
  const text = "👋 Tokyo is big.";
  const [span] = resolveByteSpans(text, [[5, 18, "Tokyo is big."]]);
  assert.ok(span);
  assert.equal(text.slice(span.start, span.end), "Tokyo is big.");
  assert.deepEqual([span.start, span.end, span.adjusted, span.located], [3, 16, false, false]);
});
