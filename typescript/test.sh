#!/usr/bin/env bash
# make test-polyglot's TypeScript step (conformance/run_polyglot.py runs it with the emulator's
# addresses): compile the offsets package and test it on conformance/offsets.json, compile the
# client generated from protos/ and the official clients' (tsc, strict), and run both. Only
# their report lines go to stdout.
set -euo pipefail
cd "$(dirname "$0")"
node_modules/.bin/tsc -p offsets
node --test offsets/dist/test/ >&2
node_modules/.bin/tsc -p .
node dist/typescript/client/generated.js
node dist/typescript/client/official.js
