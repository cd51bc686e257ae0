#!/usr/bin/env bash
# make test-polyglot's Go part: the offsets module's tests against conformance/offsets.json, then
# the client built from the generated code in $POLYGLOT_BUILD and run against the emulator.
#
# Everything comes from Debian (apt-packages.txt) and builds offline. The offsets module has no
# dependencies, so it builds as a module. The client builds in GOPATH mode over Debian's
# /usr/share/gocode: module mode would need every go.mod in grpc's dependency graph, which
# neither Debian ships nor GOPROXY=off can fetch.
set -euo pipefail
: "${GROUNDWIRE_GRPC:?}" "${GROUNDWIRE_CASE:?}" "${GROUNDWIRE_OFFSETS:?}" "${POLYGLOT_BUILD:?}"
here=$(cd "$(dirname "$0")" && pwd)
generated=$(cd "$POLYGLOT_BUILD" && pwd)
offsets_file=$(realpath "$GROUNDWIRE_OFFSETS")
case_file=$(realpath "$GROUNDWIRE_CASE")
export GOPROXY=off GOFLAGS=-mod=mod GOTOOLCHAIN=local

(cd "$here/offsets" && GROUNDWIRE_OFFSETS=$offsets_file go test ./...)

# A GOPATH beside the generated module, whose import paths point at it and at go/.
gopath="$generated-gopath"
project="$gopath/src/github.com/groundwire/groundwire"
rm -rf "$gopath"
mkdir -p "$project"
ln -s "$generated" "$project/genproto"
ln -s "$here" "$project/go"
GO111MODULE=off GOFLAGS= GOPATH="$gopath:/usr/share/gocode" \
	go build -o "$gopath/bin/client" github.com/groundwire/groundwire/go/client
GROUNDWIRE_CASE=$case_file "$gopath/bin/client"
