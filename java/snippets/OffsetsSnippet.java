// The harness of docs/polyglot.md's Java offsets snippet: conformance/run_polyglot.py puts the
// snippet in place of the marked line, and java/test.sh compiles it with the generated code.
package dev.groundwire.snippets;

import dev.groundwire.discoveryengine.v1.CheckGroundingRequest;
import dev.groundwire.discoveryengine.v1.CheckGroundingResponse;
import dev.groundwire.offsets.GroundingOffsets;
import java.util.ArrayList;
import java.util.List;

final class OffsetsSnippet {
  private OffsetsSnippet() {}

  static List<GroundingOffsets.Span> spans(CheckGroundingRequest request, CheckGroundingResponse response) {
    // <snippet>
    return spans;
  }
}
