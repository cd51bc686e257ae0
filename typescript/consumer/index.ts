// A consumer of @groundwire/offsets as installed from npm pack's tarball or from a path:
// it imports the package by name, resolves a multi-byte answer's byte offsets, and reads a
// JSON array cut mid-character. Asserts; exits non-zero on a mismatch.
import assert from "node:assert/strict";

import { JsonArrayReader, resolveByteSpans } from "@groundwire/offsets";

const answer = "Zoë is in 東京 🇯🇵.";
const tokyo = new TextEncoder().encode("Zoë is in ").length;
const [span] = resolveByteSpans(answer, [[tokyo, tokyo + 6, "東京"]]);
assert.ok(span);
assert.equal(answer.slice(span.start, span.end), "東京");
assert.deepEqual([span.adjusted, span.located], [false, false]);

const reader = new JsonArrayReader();
const json = new TextEncoder().encode(JSON.stringify([{ answer }, { answer: "}" }]));
const midCharacter = '[{"answer":"Zo'.length + 1;
const elements = [...reader.push(json.subarray(0, midCharacter)), ...reader.push(json.subarray(midCharacter))];
reader.end();
assert.deepEqual(elements, [{ answer }, { answer: "}" }]);
console.log("@groundwire/offsets: imported, called and right from outside the repository");
