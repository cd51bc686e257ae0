package dev.groundwire.offsets;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;

/**
 * Holds {@link GroundingOffsets} to every case of conformance/offsets.json (the cases every
 * language's helper must agree on): exits non-zero naming each claim that disagrees.
 */
public final class OffsetsConformance {
  private OffsetsConformance() {}

  /** Checks every case of the file named by the first argument. */
  public static void main(String[] arguments) throws IOException {
    String json = new String(Files.readAllBytes(Paths.get(arguments[0])), StandardCharsets.UTF_8);
    JsonArray cases = JsonParser.parseString(json).getAsJsonObject().getAsJsonArray("cases");
    int failures = 0;
    int checked = 0;
    for (JsonElement element : cases) {
      JsonObject testCase = element.getAsJsonObject();
      String name = testCase.get("name").getAsString();
      String text = testCase.get("text").getAsString();
      List<GroundingOffsets.Claim> claims = new ArrayList<>();
      for (JsonElement claim : testCase.getAsJsonArray("claims")) {
        JsonArray fields = claim.getAsJsonArray();
        claims.add(
            new GroundingOffsets.Claim(
                position(fields.get(0)), position(fields.get(1)), fields.get(2).getAsString()));
      }
      List<GroundingOffsets.Span> spans = GroundingOffsets.resolve(text, claims);
      JsonArray expected = testCase.getAsJsonArray("expected");
      if (spans.size() != expected.size()) {
        System.err.printf("%s: %d spans, expected %d%n", name, spans.size(), expected.size());
        failures++;
        continue;
      }
      for (int i = 0; i < spans.size(); i++) {
        GroundingOffsets.Span span = spans.get(i);
        String got = describe(text, span);
        String want = describe(expected.get(i).getAsJsonObject());
        checked++;
        if (!got.equals(want)) {
          System.err.printf("%s, claim %d: got %s, expected %s%n", name, i, got, want);
          failures++;
        }
      }
    }
    if (failures > 0 || checked == 0) {
      System.err.printf("java offsets: %d of %d claims disagree%n", failures, checked);
      System.exit(1);
    }
    System.out.printf("java offsets: all %d claims of %d cases agree%n", checked, cases.size());
  }

  private static Integer position(JsonElement value) {
    return value.isJsonNull() ? null : value.getAsInt();
  }

  /** A span in the file's terms: UTF-16, code points, bytes and flags. */
  private static String describe(String text, GroundingOffsets.Span span) {
    return String.format(
        "utf16 [%d, %d) codePoints [%d, %d) bytes [%d, %d) adjusted %b located %b",
        span.start,
        span.end,
        text.codePointCount(0, span.start),
        text.codePointCount(0, span.end),
        span.startByte,
        span.endByte,
        span.adjusted,
        span.located);
  }

  private static String describe(JsonObject expected) {
    JsonArray utf16 = expected.getAsJsonArray("utf16");
    JsonArray codePoints = expected.getAsJsonArray("codePoints");
    JsonArray bytes = expected.getAsJsonArray("bytes");
    return String.format(
        "utf16 [%d, %d) codePoints [%d, %d) bytes [%d, %d) adjusted %b located %b",
        utf16.get(0).getAsInt(),
        utf16.get(1).getAsInt(),
        codePoints.get(0).getAsInt(),
        codePoints.get(1).getAsInt(),
        bytes.get(0).getAsInt(),
        bytes.get(1).getAsInt(),
        expected.get("adjusted").getAsBoolean(),
        expected.get("located").getAsBoolean());
  }
}
