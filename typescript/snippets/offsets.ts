// The harness of docs/polyglot.md's TypeScript offsets snippet: conformance/run_polyglot.py puts
// the snippet in place of the marked line, into build/polyglot/snippets/typescript/ (whence the
// import's path), and typescript/test.sh compiles it against the code generated from protos/.
import type { Client } from "@connectrpc/connect";

import type { CheckGroundingRequest } from "../../ts/google/cloud/discoveryengine/v1/check_grounding_pb.js";
import type { GroundedGenerationService } from "../../ts/google/cloud/discoveryengine/v1/grounded_generation_service_pb.js";

declare const client: Client<typeof GroundedGenerationService>;
declare const request: CheckGroundingRequest;

// <snippet>
