// The harness of docs/polyglot.md's REST stream snippet (see offsets.ts beside it): the REST
// address and a GenerateGroundedContentRequest in Google's JSON.
declare const rest: string;
declare const request: Record<string, unknown>;

// <snippet>
