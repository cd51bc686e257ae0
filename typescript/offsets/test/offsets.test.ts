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

/** Where each code point starts, in UTF-8 bytes and UTF-16 units: the brute-force reference. */
function boundaries(text: string): Array<{ byte: number; utf16: number }> {
  const found = [{ byte: 0, utf16: 0 }];
  for (const character of text) {
    const last = found[found.length - 1] as { byte: number; utf16: number };
    found.push({ byte: last.byte + Buffer.byteLength(character), utf16: last.utf16 + character.length });
  }
  return found;
}

test("any positions in any text snap outward onto code points, as a brute-force search finds", () => {
  const alphabet = ["a", " ", "é", "東", "👋", "\u200d", "\u0301", "🇫", "ß"];
  let seed = 25;
  const random = (below: number): number => {
    seed = (seed * 48271) % 2147483647; // Park-Miller: exact in doubles
    return seed % below;
  };
  for (let round = 0; round < 500; round += 1) {
    const text = Array.from({ length: random(12) }, () => alphabet[random(alphabet.length)]).join("");
    const marks = boundaries(text);
    const length = Buffer.byteLength(text);
    const start = random(length + 6) - 3;
    const end = start + random(length + 3);
    const [span] = resolveByteSpans(text, [[start, end, "not searched"]]);
    const clampedStart = Math.min(Math.max(start, 0), length);
    const clampedEnd = Math.min(Math.max(end, 0), length);
    const snappedStart = marks.filter((mark) => mark.byte <= clampedStart).pop();
    const snappedEnd = marks.find((mark) => mark.byte >= clampedEnd);
    assert.ok(span && snappedStart && snappedEnd);
    assert.deepEqual(
      [span.start, span.end, span.adjusted, span.located],
      [snappedStart.utf16, snappedEnd.utf16, snappedStart.byte !== start || snappedEnd.byte !== end, false],
      JSON.stringify({ text, start, end }),
    );
  }
});
