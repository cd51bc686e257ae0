/**
 * Turns the claim positions Google's grounding APIs send (UTF-8 byte offsets) into JavaScript
 * string indices (UTF-16 code units), with the policy of groundwire's Python client:
 *
 * - an offset inside a multi-byte character snaps outward: a start to the first byte of that
 *   character, an end to the byte after it, so the span still covers the claim (`adjusted`);
 * - an offset past the end clamps to the end, a negative one to 0 (`adjusted`);
 * - a missing start or end means the claim text is searched for instead (`located`), first
 *   from the end of the previous claim (claims come in order), then from the start of the text;
 * - a start after its end is searched for the same way, and flagged `adjusted` as well;
 * - a claim that cannot be found (or has no text to search for) gets an empty span at the end
 *   of the previous claim (0 for the first), flagged both `located` and `adjusted`.
 *
 * Offsets inside a grapheme cluster but on a code point boundary (a ZWJ emoji sequence, a letter
 * and its combining accent) are valid positions and are kept as they are.
 */

/** One claim as the API sends it: [startPos, endPos, claimText], end exclusive, null when omitted. */
export type ClaimPosition = readonly [number | null | undefined, number | null | undefined, string];

/** Where one claim sits in the answer, as JavaScript string indices: `text.slice(start, end)`. */
export interface Span {
  /** UTF-16 index of the claim's first code unit. */
  readonly start: number;
  /** UTF-16 index just past the claim. */
  readonly end: number;
  /** The start exactly as the API sent it (UTF-8 bytes), null when omitted. */
  readonly startByte: number | null;
  /** The end exactly as the API sent it (UTF-8 bytes), null when omitted. */
  readonly endByte: number | null;
  /** The span differs from what the API's positions literally said. */
  readonly adjusted: boolean;
  /** The span was found by searching for the claim text. */
  readonly located: boolean;
}

const encoder = new TextEncoder();

/**
 * Resolves claims given as UTF-8 byte offsets into string indices, in one walk over the text.
 *
 * @example
 * const [span] = resolveByteSpans("東京は首都", [[0, 6, "東京"]]);
 * "東京は首都".slice(span.start, span.end); // "東京"
 */
export function resolveByteSpans(text: string, claims: readonly ClaimPosition[]): Span[] {
  const utf8 = encoder.encode(text);
  const fitted = claims.map(([start, end]) => fitToCharacters(utf8, start ?? null, end ?? null));
  const indexOfByte = utf16IndicesOf(
    text,
    fitted.flatMap((fit) => (fit === null ? [] : [fit.start, fit.end])),
  );
  const spans: Span[] = [];
  let previousEnd = 0;
  claims.forEach(([sentStart, sentEnd, claimText], position) => {
    const startByte = sentStart ?? null;
    const endByte = sentEnd ?? null;
    const fit = fitted[position] ?? null;
    let span: Span;
    if (fit === null) {
      const found = locate(text, claimText, previousEnd);
      const reversed = startByte !== null && endByte !== null;
      span = {
        start: found.start,
        end: found.end,
        startByte,
        endByte,
        adjusted: reversed || !found.found,
        located: true,
      };
    } else {
      span = {
        start: lookUp(indexOfByte, fit.start),
        end: lookUp(indexOfByte, fit.end),
        startByte,
        endByte,
        adjusted: fit.adjusted,
        located: false,
      };
    }
    spans.push(span);
    previousEnd = span.end;
  });
  return spans;
}

interface Fit {
  readonly start: number;
  readonly end: number;
  readonly adjusted: boolean;
}

/** Clamps (start, end) into the text and snaps them outward onto character boundaries. */
function fitToCharacters(utf8: Uint8Array, start: number | null, end: number | null): Fit | null {
  if (start === null || end === null || start > end) {
    return null;
  }
  let fittedStart = Math.min(Math.max(start, 0), utf8.length);
  let fittedEnd = Math.min(Math.max(end, 0), utf8.length);
  while (insideCharacter(utf8, fittedStart)) {
    fittedStart -= 1;
  }
  while (insideCharacter(utf8, fittedEnd)) {
    fittedEnd += 1;
  }
  return { start: fittedStart, end: fittedEnd, adjusted: fittedStart !== start || fittedEnd !== end };
}

/** True when `offset` falls on a UTF-8 continuation byte, that is, inside a character. */
function insideCharacter(utf8: Uint8Array, offset: number): boolean {
  const byte = utf8[offset];
  return byte !== undefined && (byte & 0xc0) === 0x80;
}

/** The UTF-16 index of each byte offset (all on character boundaries), in one walk over the text. */
function utf16IndicesOf(text: string, byteOffsets: readonly number[]): Map<number, number> {
  const wanted = [...new Set(byteOffsets)].sort((a, b) => a - b);
  const indexOfByte = new Map<number, number>();
  let byte = 0;
  let index = 0;
  for (const offset of wanted) {
    while (byte < offset && index < text.length) {
      const codePoint = text.codePointAt(index) ?? 0;
      byte += utf8Length(codePoint);
      index += codePoint > 0xffff ? 2 : 1;
    }
    indexOfByte.set(offset, index);
  }
  return indexOfByte;
}

function utf8Length(codePoint: number): number {
  if (codePoint < 0x80) return 1;
  if (codePoint < 0x800) return 2;
  if (codePoint < 0x10000) return 3;
  return 4;
}

function lookUp(indexOfByte: ReadonlyMap<number, number>, offset: number): number {
  const index = indexOfByte.get(offset);
  if (index === undefined) {
    throw new Error(`no string index was computed for byte ${offset}`);
  }
  return index;
}

/** Finds `claimText` after the previous claim, else anywhere; an empty span when it is not there. */
function locate(
  text: string,
  claimText: string,
  previousEnd: number,
): { start: number; end: number; found: boolean } {
  if (claimText === "") {
    return { start: previousEnd, end: previousEnd, found: false };
  }
  let start = text.indexOf(claimText, previousEnd);
  if (start < 0) {
    start = text.indexOf(claimText);
  }
  if (start < 0) {
    return { start: previousEnd, end: previousEnd, found: false };
  }
  return { start, end: start + claimText.length, found: true };
}
