#!/usr/bin/env bash
# make test-polyglot's Go part: the offsets module's tests against conformance/offsets.json,
# docs/polyglot.md's Go snippets ($POLYGLOT_SNIPPETS) built as a team's own module, then the
# client built from the generated code in $POLYGLOT_BUILD and run against the emulator.
#
# Everything comes from Debian (apt-packages.txt) and builds offline. The offsets module has no
# dependencies, so it builds as a module. The client builds in GOPATH mode over Debian's
# /usr/share/gocode: module mode needs every go.mod in grpc's dependency graph, which neither
# Debian ships nor GOPROXY=off can fetch; the snippets' module gets empty stand-ins for those.
set -euo pipefail
: "${GROUNDWIRE_GRPC:?}" "${GROUNDWIRE_CASE:?}" "${GROUNDWIRE_OFFSETS:?}" "${POLYGLOT_BUILD:?}" "${POLYGLOT_SNIPPETS:?}"
here=$(cd "$(dirname "$0")" && pwd)
generated=$(cd "$POLYGLOT_BUILD" && pwd)
offsets_file=$(realpath "$GROUNDWIRE_OFFSETS")
case_file=$(realpath "$GROUNDWIRE_CASE")
export GOPROXY=off GOFLAGS=-mod=mod GOTOOLCHAIN=local

(cd "$here/offsets" && GROUNDWIRE_OFFSETS=$offsets_file go test ./...)

# The snippets' module, in a folder beside a checkout named groundwire as the page says, so that
# its go.mod's require and replace lines are the page's own. Module mode, offline: the modules
# that the generated code imports are replaced with Debian's sources; those that only appear in
# their go.mod files (tools, tests, other transports) with empty stand-ins, which fail any import.
team=$(mktemp -d)
trap 'rm -rf "$team"' EXIT
ln -s "$here/.." "$team/groundwire"
cp -r "$POLYGLOT_SNIPPETS" "$team/app"
debian=(google.golang.org/protobuf google.golang.org/grpc google.golang.org/genproto
	github.com/golang/protobuf github.com/google/go-cmp golang.org/x/net golang.org/x/sys
	golang.org/x/text golang.org/x/oauth2)
absent=(golang.org/x/lint golang.org/x/tools golang.org/x/mod golang.org/x/term honnef.co/go/tools
	github.com/cncf/udpa/go github.com/envoyproxy/go-control-plane github.com/golang/glog
	github.com/google/uuid cloud.google.com/go/compute/metadata google.golang.org/appengine)
replaces=()
for module in "${debian[@]}"; do replaces+=(-replace "$module=/usr/share/gocode/src/$module"); done
for module in "${absent[@]}"; do
	mkdir -p "$team/absent/$module"
	echo "module $module" >"$team/absent/$module/go.mod"
	replaces+=(-replace "$module=$team/absent/$module")
done
(cd "$team/app" && go mod edit "${replaces[@]}" && go build -o "$team/snippets" . && "$team/snippets")

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
