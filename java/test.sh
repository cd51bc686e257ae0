#!/usr/bin/env bash
# make test-polyglot's Java part: GroundingOffsets against conformance/offsets.json, then the
# client and docs/polyglot.md's Java snippets ($POLYGLOT_SNIPPETS) compiled with the generated
# code in $POLYGLOT_BUILD, and the client run against the emulator.
# Everything comes from Debian (apt-packages.txt): javac against the jars in /usr/share/java.
set -euo pipefail
: "${GROUNDWIRE_GRPC:?}" "${GROUNDWIRE_CASE:?}" "${GROUNDWIRE_OFFSETS:?}" "${POLYGLOT_BUILD:?}" "${POLYGLOT_SNIPPETS:?}"
here=$(cd "$(dirname "$0")" && pwd)
generated=$(cd "$POLYGLOT_BUILD" && pwd)
classes="$generated-classes"
jars=(protobuf protobuf-util grpc-api grpc-context grpc-core grpc-netty grpc-protobuf
	grpc-protobuf-lite grpc-stub guava gson perfmark-api geronimo-annotation-1.3-spec
	netty-buffer netty-codec netty-codec-http netty-codec-http2 netty-common netty-handler
	netty-resolver netty-transport)
classpath=$(printf '/usr/share/java/%s.jar:' "${jars[@]}")
# Short-lived JVMs: the quick JIT alone halves javac's CPU time on every generated file.
quick=(-J-XX:TieredStopAtLevel=1 -J-XX:+UseSerialGC)
rm -rf "$classes"

javac "${quick[@]}" -d "$classes/offsets" -cp "$classpath" \
	"$here/src/dev/groundwire/offsets/GroundingOffsets.java" \
	"$here/test/dev/groundwire/offsets/OffsetsConformance.java"
java -XX:TieredStopAtLevel=1 -cp "$classes/offsets:$classpath" dev.groundwire.offsets.OffsetsConformance "$GROUNDWIRE_OFFSETS"

ls "$POLYGLOT_SNIPPETS"/*.java >/dev/null
find "$generated" "$here/src" "$here/client" "$POLYGLOT_SNIPPETS" -name '*.java' >"$generated-sources.txt"
javac "${quick[@]}" -nowarn -d "$classes/client" -cp "$classpath" "@$generated-sources.txt"
java -cp "$classes/client:$classpath" dev.groundwire.polyglot.PolyglotClient
