package dev.groundwire.offsets;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Turns the claim positions Google's grounding APIs send (UTF-8 byte offsets) into Java String
 * indices (UTF-16 code units), so {@code text.substring(span.start, span.end)} is the claim.
 *
 * <p>Positions that do not fit the text follow groundwire's Python policy, never silently wrong,
 * always flagged:
 *
 * <ul>
 *   <li>an offset inside a multi-byte character snaps outward: a start to the first byte of that
 *       character, an end to the byte after it ({@code adjusted});
 *   <li>an offset past the end clamps to the end, a negative one to 0 ({@code adjusted});
 *   <li>a missing start or end means the claim text is searched for instead ({@code located}),
 *       first from the end of the previous claim, then from the start of the text;
 *   <li>a start after its end is searched for the same way, and flagged {@code adjusted} as well;
 *   <li>a claim that cannot be found (or has no text) gets an empty span at the end of the
 *       previous claim (0 for the first), flagged both {@code located} and {@code adjusted}.
 * </ul>
 *
 * <p>Offsets inside a grapheme cluster but on a character boundary (a ZWJ emoji sequence, a
 * letter and its combining accent) are kept as they are. For a CheckGrounding response:
 *
 * <pre>{@code
 * List<GroundingOffsets.Claim> claims = new ArrayList<>();
 * for (CheckGroundingResponse.Claim claim : response.getClaimsList()) {
 *   claims.add(new GroundingOffsets.Claim(
 *       claim.hasStartPos() ? claim.getStartPos() : null,
 *       claim.hasEndPos() ? claim.getEndPos() : null,
 *       claim.getClaimText()));
 * }
 * List<GroundingOffsets.Span> spans = GroundingOffsets.resolve(answer, claims);
 * }</pre>
 */
public final class GroundingOffsets {
  private GroundingOffsets() {}

  /** One claim as the API sends it: UTF-8 byte offsets (end exclusive, null when omitted). */
  public static final class Claim {
    public final Integer startByte;
    public final Integer endByte;
    public final String text;

    /** A claim from its positions as sent (null when omitted) and its text. */
    public Claim(Integer startByte, Integer endByte, String text) {
      this.startByte = startByte;
      this.endByte = endByte;
      this.text = text;
    }
  }

  /** Where one claim sits: String indices, and the UTF-8 byte offsets they stand for. */
  public static final class Span {
    /** {@code text.substring(start, end)} is the claim. */
    public final int start;
    public final int end;
    public final int startByte;
    public final int endByte;
    /** The span differs from what the API's positions literally said. */
    public final boolean adjusted;
    /** The span was found by searching for the claim text. */
    public final boolean located;

    Span(int start, int end, int startByte, int endByte, boolean adjusted, boolean located) {
      this.start = start;
      this.end = end;
      this.startByte = startByte;
      this.endByte = endByte;
      this.adjusted = adjusted;
      this.located = located;
    }
  }

  /** Places every claim in {@code text}, in order, following the class's policy. */
  public static List<Span> resolve(String text, List<Claim> claims) {
    Layout layout = new Layout(text);
    List<Span> spans = new ArrayList<>(claims.size());
    int previousEnd = 0;
    for (Claim claim : claims) {
      Span span;
      if (claim.startByte == null
          || claim.endByte == null
          || claim.startByte > claim.endByte) {
        boolean reversed = claim.startByte != null && claim.endByte != null;
        span = locate(text, claim.text, previousEnd, layout, reversed);
      } else {
        int startByte = layout.snapBack(claim.startByte);
        int endByte = layout.snapForward(claim.endByte);
        boolean adjusted = startByte != claim.startByte || endByte != claim.endByte;
        span =
            new Span(
                layout.utf16At(startByte),
                layout.utf16At(endByte),
                startByte,
                endByte,
                adjusted,
                false);
      }
      spans.add(span);
      previousEnd = span.end;
    }
    return spans;
  }

  /** The claim text after the previous claim, else anywhere, else empty at the previous end. */
  private static Span locate(
      String text, String claimText, int previousEnd, Layout layout, boolean reversed) {
    int start = claimText.isEmpty() ? -1 : text.indexOf(claimText, previousEnd);
    if (start < 0 && !claimText.isEmpty()) {
      start = text.indexOf(claimText);
    }
    if (start < 0) {
      int atByte = layout.byteAt(previousEnd);
      return new Span(previousEnd, previousEnd, atByte, atByte, true, true);
    }
    int end = start + claimText.length();
    return new Span(start, end, layout.byteAt(start), layout.byteAt(end), reversed, true);
  }

  /** Where each character of a text starts, in UTF-8 bytes and in UTF-16 units. */
  private static final class Layout {
    /** The UTF-16 index at each byte offset; -1 inside a character. */
    private final int[] utf16AtByte;
    /** The byte offset at each UTF-16 index; -1 inside a surrogate pair. */
    private final int[] byteAtUtf16;

    Layout(String text) {
      int bytes = 0;
      for (int i = 0; i < text.length(); ) {
        int codePoint = text.codePointAt(i);
        bytes += utf8Length(codePoint);
        i += Character.charCount(codePoint);
      }
      utf16AtByte = new int[bytes + 1];
      byteAtUtf16 = new int[text.length() + 1];
      Arrays.fill(utf16AtByte, -1);
      Arrays.fill(byteAtUtf16, -1);
      int byteOffset = 0;
      for (int i = 0; i < text.length(); ) {
        int codePoint = text.codePointAt(i);
        utf16AtByte[byteOffset] = i;
        byteAtUtf16[i] = byteOffset;
        byteOffset += utf8Length(codePoint);
        i += Character.charCount(codePoint);
      }
      utf16AtByte[bytes] = text.length();
      byteAtUtf16[text.length()] = bytes;
    }

    private static int utf8Length(int codePoint) {
      if (codePoint < 0x80) {
        return 1;
      }
      if (codePoint < 0x800) {
        return 2;
      }
      return codePoint < 0x10000 ? 3 : 4;
    }

    private int length() {
      return utf16AtByte.length - 1;
    }

    /** A byte offset clamped into the text and moved back to its character's first byte. */
    int snapBack(int offset) {
      int snapped = Math.min(Math.max(offset, 0), length());
      while (utf16AtByte[snapped] < 0) {
        snapped--;
      }
      return snapped;
    }

    /** A byte offset clamped into the text and moved forward past its character. */
    int snapForward(int offset) {
      int snapped = Math.min(Math.max(offset, 0), length());
      while (utf16AtByte[snapped] < 0) {
        snapped++;
      }
      return snapped;
    }

    int utf16At(int byteOffset) {
      return utf16AtByte[byteOffset];
    }

    int byteAt(int utf16Index) {
      return byteAtUtf16[utf16Index];
    }
  }
}
