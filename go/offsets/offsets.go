// Package offsets turns the claim positions Google's grounding APIs send (UTF-8 byte offsets)
// into spans of a Go string: byte indices to slice it with, and rune indices.
//
// Positions that do not fit the text follow groundwire's Python policy, never silently wrong,
// always flagged:
//
//   - an offset inside a multi-byte character snaps outward: a start to the first byte of that
//     character, an end to the byte after it (Adjusted);
//   - an offset past the end clamps to the end, a negative one to 0 (Adjusted);
//   - a missing start or end means the claim text is searched for instead (Located), first from
//     the end of the previous claim, then from the start of the text;
//   - a start after its end is searched for the same way, and flagged Adjusted as well;
//   - a claim that cannot be found (or has no text) gets an empty span at the end of the
//     previous claim (0 for the first), flagged both Located and Adjusted.
//
// Offsets inside a grapheme cluster but on a character boundary (a ZWJ emoji sequence, a letter
// and its combining accent) are kept as they are.
package offsets

import (
	"sort"
	"strings"
	"unicode/utf8"
)

// Claim is one claim as the API sends it: Start and End are UTF-8 byte offsets (end
// exclusive), nil when omitted, as in the generated code's StartPos and EndPos; Text is the
// claim's text.
type Claim struct {
	Start, End *int32
	Text       string
}

// Span is where one claim sits in the text. text[Start:End] is the claim, and
// []rune(text)[StartRune:EndRune] the same claim in runes.
type Span struct {
	Start, End         int
	StartRune, EndRune int
	// Adjusted says the span differs from what the API's positions literally said.
	Adjusted bool
	// Located says the span was found by searching for the claim text.
	Located bool
}

// Resolve places every claim in text, in order, following the package's policy.
//
// For a CheckGrounding response:
//
//	claims := make([]offsets.Claim, len(response.Claims))
//	for i, claim := range response.Claims {
//		claims[i] = offsets.Claim{Start: claim.StartPos, End: claim.EndPos, Text: claim.ClaimText}
//	}
//	spans := offsets.Resolve(answer, claims)
func Resolve(text string, claims []Claim) []Span {
	spans := make([]Span, len(claims))
	previousEnd := 0
	for i, claim := range claims {
		span := &spans[i]
		if claim.Start == nil || claim.End == nil || *claim.Start > *claim.End {
			found := false
			span.Start, span.End, found = locate(text, claim.Text, previousEnd)
			reversed := claim.Start != nil && claim.End != nil
			span.Adjusted, span.Located = reversed || !found, true
		} else {
			span.Start = snapBack(text, clamp(int(*claim.Start), len(text)))
			span.End = snapForward(text, clamp(int(*claim.End), len(text)))
			span.Adjusted = span.Start != int(*claim.Start) || span.End != int(*claim.End)
		}
		previousEnd = span.End
	}
	addRuneIndices(text, spans)
	return spans
}

// clamp keeps offset within [0, length].
func clamp(offset, length int) int {
	if offset < 0 {
		return 0
	}
	if offset > length {
		return length
	}
	return offset
}

// snapBack moves an offset inside a character to that character's first byte.
func snapBack(text string, offset int) int {
	for offset < len(text) && !utf8.RuneStart(text[offset]) {
		offset--
	}
	return offset
}

// snapForward moves an offset inside a character to the byte after that character.
func snapForward(text string, offset int) int {
	for offset < len(text) && !utf8.RuneStart(text[offset]) {
		offset++
	}
	return offset
}

// locate finds claimText after previousEnd, else anywhere; an empty span at previousEnd and
// found false when it is nowhere (or empty).
func locate(text, claimText string, previousEnd int) (start, end int, found bool) {
	if claimText == "" {
		return previousEnd, previousEnd, false
	}
	if index := strings.Index(text[previousEnd:], claimText); index >= 0 {
		start = previousEnd + index
	} else if start = strings.Index(text, claimText); start < 0 {
		return previousEnd, previousEnd, false
	}
	return start, start + len(claimText), true
}

// addRuneIndices fills in every span's rune indices in one walk over the text.
func addRuneIndices(text string, spans []Span) {
	byteOffsets := make([]int, 0, 2*len(spans))
	for _, span := range spans {
		byteOffsets = append(byteOffsets, span.Start, span.End)
	}
	sort.Ints(byteOffsets)
	runeAt := make(map[int]int, len(byteOffsets))
	previous, runes := 0, 0
	for _, offset := range byteOffsets {
		runes += utf8.RuneCountInString(text[previous:offset])
		runeAt[offset] = runes
		previous = offset
	}
	for i := range spans {
		spans[i].StartRune, spans[i].EndRune = runeAt[spans[i].Start], runeAt[spans[i].End]
	}
}
