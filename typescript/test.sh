#!/usr/bin/env bash
# make test-polyglot's TypeScript step (conformance/run_polyglot.py runs it with the emulator's
# addresses): pack the offsets package as a team would (its `prepare` builds it) and test it on
# conformance/offsets.json; install it, from the tarball and from its path, into a fresh project
# outside the repository (consumer/), which compiles and runs; compile the client generated from
# protos/, the official clients' and docs/polyglot.md's snippets ($POLYGLOT_SNIPPETS) with tsc,
# strict; run both clients. Only their report lines go to stdout.
set -euo pipefail
: "${POLYGLOT_SNIPPETS:?}"
cd "$(dirname "$0")"
here=$(pwd)
outside=$(mktemp -d)
trap 'rm -rf "$outside"' EXIT

(cd "$outside" && npm pack "$here/offsets" --loglevel=error) >&2
node --test offsets/dist/test/ >&2
# From the path, npm would run prepare again: the pack just built the folder.
for source in "$outside"/groundwire-offsets-0.1.0.tgz "$here/offsets"; do
	project="$outside/project-$(basename "$source")"
	cp -r consumer "$project"
	(cd "$project" &&
		npm install --no-audit --no-fund --loglevel=error --prefer-offline --ignore-scripts "$source" &&
		node_modules/.bin/tsc -p . && node dist/index.js) >&2
done

# The snippets are ES modules that import the clients' packages (tsconfig.json compiles them too).
ls "$POLYGLOT_SNIPPETS"/*.ts >/dev/null
echo '{"type": "module"}' >"$POLYGLOT_SNIPPETS/package.json"
ln -sfn "$here/node_modules" "$POLYGLOT_SNIPPETS/../node_modules"
node_modules/.bin/tsc -p .
node dist/typescript/client/generated.js
node dist/typescript/client/official.js
