// The REST stream's JSON array, read element by element however its bytes are cut.
import assert from "node:assert/strict";
import { test } from "node:test";

import { JsonArrayError, JsonArrayReader, readJsonArray } from "../src/index.js";

const encode = (text: string): Uint8Array => new TextEncoder().encode(text);

function readInPieces(text: string, size: number): unknown[] {
  const bytes = encode(text);
  const reader = new JsonArrayReader();
  const elements: unknown[] = [];
  for (let at = 0; at < bytes.length; at += size) {
    elements.push(...reader.push(bytes.subarray(at, at + size)));
  }
  reader.end();
  return elements;
}

const TRICKY = [
  { text: "a } b { c ] [" },
  { text: 'an escaped quote \\" then } and a backslash \\\\' },
  { text: "東京 👩‍👩‍👧 café", nested: { list: [1, [2, { deeper: "]" }]] } },
  "a string element, with a comma",
  42,
  true,
  null,
  [],
  {},
];

test("every element comes back whole, however the bytes are cut", () => {
  const text = `[\n${TRICKY.map((element) => JSON.stringify(element)).join(" ,\r\n")}\n]`;
  for (const size of [1, 2, 3, 5, 7, 64, text.length]) {
    assert.deepEqual(readInPieces(text, size), TRICKY, `cut every ${size} bytes`);
  }
});

test("an element is given as soon as its last byte arrives", () => {
  const reader = new JsonArrayReader();
  assert.deepEqual(reader.push(encode('[{"text": "a } b"}, {"te')), [{ text: "a } b" }]);
  assert.deepEqual(reader.push(encode('xt": 2}')), [{ text: 2 }]);
  assert.deepEqual(reader.push(encode("]")), []);
  reader.end();
});

test("numbers and literals end at the array's bracket too", () => {
  assert.deepEqual(readInPieces("[1,2.5e3,false]", 1), [1, 2500, false]);
  assert.deepEqual(readInPieces("[]", 1), []);
});

test("a broken stream is a JsonArrayError naming what was wrong", () => {
  const broken: Array<[string, RegExp]> = [
    ['{"text": 1}', /start with '\['/],
    ['[{"text": 1}', /before the JSON array was closed/],
    ['[{"text": 1}] x', /nothing after/],
    ['[{"text": 1} {"text": 2}]', /',' or '\]'/],
    ["[,]", /an element/],
    ['[{"text": tru}]', /not valid JSON/],
  ];
  for (const [text, message] of broken) {
    assert.throws(() => readInPieces(text, 3), (error: unknown) => {
      assert.ok(error instanceof JsonArrayError, text);
      assert.match(error.message, message, text);
      return true;
    });
  }
});

test("an element larger than allowed is refused", () => {
  const reader = new JsonArrayReader(16);
  assert.throws(() => reader.push(encode(`[{"text": "${"x".repeat(32)}"}]`)), JsonArrayError);
});

test("readJsonArray yields from an async stream of chunks", async () => {
  async function* chunks(): AsyncGenerator<Uint8Array> {
    yield encode('[{"a": "}{"}, ');
    yield encode('{"b": [1]}]');
  }
  const elements: unknown[] = [];
  for await (const element of readJsonArray(chunks())) {
    elements.push(element);
  }
  assert.deepEqual(elements, [{ a: "}{" }, { b: [1] }]);
});
