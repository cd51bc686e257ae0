/**
 * @groundwire/offsets: Google's grounding APIs count claim positions in UTF-8 bytes; JavaScript
 * strings count UTF-16 code units. This package converts between them as groundwire's Python
 * client does, and reads the REST stream's JSON array incrementally.
 */
export { type ClaimPosition, type Span, resolveByteSpans } from "./offsets.js";
export { JsonArrayError, JsonArrayReader, readJsonArray } from "./jsonArray.js";
