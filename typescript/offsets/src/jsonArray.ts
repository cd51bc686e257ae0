/**
 * Reads the REST stream's answer (`:streamGenerateGroundedContent` sends one JSON array whose
 * elements arrive over time) element by element, as the bytes come in. A counter of braces
 * alone breaks on a brace inside a string ("{" in a claim, an escaped quote before it); this
 * reader follows strings and their escapes, and holds no more than the element being read.
 */

/** The stream was not one well-formed JSON array, or an element was larger than allowed. */
export class JsonArrayError extends Error {
  override name = "JsonArrayError";
}

const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const COMMA = 0x2c;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

type Where = "beforeArray" | "beforeElement" | "firstElement" | "inElement" | "afterElement" | "done";

function isWhitespace(byte: number): boolean {
  return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;
}

/**
 * An incremental reader with no I/O: `push` it the bytes as they arrive, it returns the
 * elements completed by them; `end` says the stream is over and checks the array was closed.
 *
 * @example
 * const reader = new JsonArrayReader();
 * reader.push(new TextEncoder().encode('[{"text": "a } b"}, {"te'));  // [{text: "a } b"}]
 * reader.push(new TextEncoder().encode('xt": 2}]'));                    // [{text: 2}]
 * reader.end();
 */
export class JsonArrayReader {
  private where: Where = "beforeArray";
  private depth = 0;
  private inString = false;
  private escaped = false;
  private pieces: Uint8Array[] = [];
  private elementBytes = 0;
  private readonly decoder = new TextDecoder("utf-8", { fatal: true });

  /** @param maxElementBytes the largest element accepted (default 64 MiB), so a hostile stream cannot exhaust memory. */
  constructor(private readonly maxElementBytes: number = 64 * 1024 * 1024) {}

  /** Reads the next bytes of the stream; returns the elements they completed, in order. */
  push(chunk: Uint8Array): unknown[] {
    const elements: unknown[] = [];
    let elementStart = this.where === "inElement" ? 0 : -1;
    for (let offset = 0; offset < chunk.length; offset += 1) {
      const byte = chunk[offset] as number;
      if (this.where === "inElement") {
        const ends = this.elementEndsAt(byte);
        if (ends === "continues") {
          continue;
        }
        const stop = ends === "after" ? offset + 1 : offset;
        elements.push(this.finishElement(chunk.subarray(elementStart, stop)));
        elementStart = -1;
        this.where = "afterElement";
        if (ends === "after") {
          continue;
        }
      }
      if (isWhitespace(byte)) {
        continue;
      }
      switch (this.where) {
        case "beforeArray":
          this.expect(byte === OPEN_BRACKET, byte, "the stream to start with '['");
          this.where = "firstElement";
          break;
        case "afterElement":
          if (byte === COMMA) {
            this.where = "beforeElement";
          } else {
            this.expect(byte === CLOSE_BRACKET, byte, "',' or ']' after an element");
            this.where = "done";
          }
          break;
        case "firstElement":
          if (byte === CLOSE_BRACKET) {
            this.where = "done";
            break;
          }
        // falls through: an element starts here
        case "beforeElement":
          this.expect(byte !== CLOSE_BRACKET && byte !== COMMA, byte, "an element");
          this.where = "inElement";
          elementStart = offset;
          this.depth = 0;
          this.inString = false;
          this.escaped = false;
          offset -= 1; // read this byte again, as the element's first
          break;
        case "done":
          this.expect(false, byte, "nothing after the array's ']'");
          break;
        default:
          break;
      }
    }
    if (this.where === "inElement" && elementStart >= 0) {
      this.keep(chunk.subarray(elementStart));
    }
    return elements;
  }

  /** Says the stream is over; throws when the array was not closed. */
  end(): void {
    if (this.where !== "done") {
      throw new JsonArrayError("the stream ended before the JSON array was closed");
    }
  }

  /** Where the element being read ends, if `byte` ends it: with it ("after") or before it. */
  private elementEndsAt(byte: number): "continues" | "after" | "before" {
    if (this.inString) {
      if (this.escaped) {
        this.escaped = false;
      } else if (byte === BACKSLASH) {
        this.escaped = true;
      } else if (byte === QUOTE) {
        this.inString = false;
        return this.depth === 0 ? "after" : "continues";
      }
      return "continues";
    }
    if (byte === QUOTE) {
      this.inString = true;
    } else if (byte === OPEN_BRACE || byte === OPEN_BRACKET) {
      this.depth += 1;
    } else if (byte === CLOSE_BRACE || byte === CLOSE_BRACKET) {
      if (this.depth === 0) {
        return "before"; // a number, true, false or null, ended by the array's ']'
      }
      this.depth -= 1;
      return this.depth === 0 ? "after" : "continues";
    } else if (this.depth === 0 && (byte === COMMA || isWhitespace(byte))) {
      return "before";
    }
    return "continues";
  }

  private keep(piece: Uint8Array): void {
    this.elementBytes += piece.length;
    if (this.elementBytes > this.maxElementBytes) {
      throw new JsonArrayError(`an element is larger than ${this.maxElementBytes} bytes`);
    }
    this.pieces.push(piece.slice());
  }

  private finishElement(lastPiece: Uint8Array): unknown {
    this.keep(lastPiece);
    const whole = new Uint8Array(this.elementBytes);
    let at = 0;
    for (const piece of this.pieces) {
      whole.set(piece, at);
      at += piece.length;
    }
    this.pieces = [];
    this.elementBytes = 0;
    let text: string;
    try {
      text = this.decoder.decode(whole);
    } catch {
      throw new JsonArrayError("an element is not valid UTF-8");
    }
    try {
      return JSON.parse(text) as unknown;
    } catch (error) {
      throw new JsonArrayError(`an element is not valid JSON: ${(error as Error).message}`);
    }
  }

  private expect(ok: boolean, byte: number, what: string): void {
    if (!ok) {
      throw new JsonArrayError(`expected ${what}, found ${JSON.stringify(String.fromCharCode(byte))}`);
    }
  }
}

/**
 * Yields each element of a streamed JSON array as soon as its last byte arrives.
 *
 * @example
 * const response = await fetch(url, { method: "POST", body: JSON.stringify([request]) });
 * for await (const element of readJsonArray(response.body!)) console.log(element);
 */
export async function* readJsonArray(
  chunks: AsyncIterable<Uint8Array>,
  maxElementBytes?: number,
): AsyncGenerator<unknown, void, undefined> {
  const reader = new JsonArrayReader(maxElementBytes);
  for await (const chunk of chunks) {
    yield* reader.push(chunk);
  }
  reader.end();
}
