// Command client calls the groundwire emulator with Go code generated from groundwire's protos
// and exits non-zero unless every answer is what the contract says (make test-polyglot).
//
// It reads GROUNDWIRE_GRPC (host:port, plaintext) and GROUNDWIRE_CASE (the shared requests and
// what each must give) and prints one JSON line: the CheckGrounding score and claims, for the
// driver to compare with every other language's.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"strconv"
	"strings"
	"time"

	aiplatformpb "github.com/groundwire/groundwire/genproto/aiplatform/v1"
	discoveryenginepb "github.com/groundwire/groundwire/genproto/discoveryengine/v1"
	"github.com/groundwire/groundwire/go/offsets"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
)

const callTimeout = 30 * time.Second

// polyglotCase is conformance/grounding_case.json: the requests every language sends, in
// Google's JSON, and what each must find, written by hand.
type polyglotCase struct {
	Check struct {
		Request  json.RawMessage `json:"request"`
		Expected []expectedClaim `json:"expected"`
	} `json:"check"`
	Generate struct {
		Request        json.RawMessage `json:"request"`
		AnswerContains string          `json:"answerContains"`
	} `json:"generate"`
	Corroborate struct {
		Request             json.RawMessage `json:"request"`
		ExpectedFactIndexes []int32         `json:"expectedFactIndexes"`
	} `json:"corroborate"`
	Invalid struct {
		Request         json.RawMessage `json:"request"`
		Code            codes.Code      `json:"code"`
		BadRequestField string          `json:"badRequestField"`
	} `json:"invalid"`
}

// expectedClaim is one claim as the case expects it: its text, where it sits (UTF-8 bytes as
// the API sends them, and code points) and the facts it cites.
type expectedClaim struct {
	Text            string   `json:"text"`
	Bytes           [2]int32 `json:"bytes"`
	CodePoints      [2]int   `json:"codePoints"`
	CitationIndices []int32  `json:"citationIndices"`
}

// checkLine is the "check" object of the final JSON line.
type checkLine struct {
	SupportScore json.RawMessage `json:"supportScore"`
	Claims       []claimLine     `json:"claims"`
}

type claimLine struct {
	Start           int32   `json:"start"`
	End             int32   `json:"end"`
	CitationIndices []int32 `json:"citationIndices"`
}

func main() {
	address, casePath := os.Getenv("GROUNDWIRE_GRPC"), os.Getenv("GROUNDWIRE_CASE")
	if address == "" || casePath == "" {
		fail("GROUNDWIRE_GRPC and GROUNDWIRE_CASE must be set")
	}
	raw, err := os.ReadFile(casePath)
	check(err == nil, "read the case: %v", err)
	var testCase polyglotCase
	err = json.Unmarshal(raw, &testCase)
	check(err == nil, "the case %s is not the expected JSON: %v", casePath, err)

	dialContext, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	// The emulator takes no credentials: plaintext, and nothing that looks for any.
	connection, err := grpc.DialContext(dialContext, address, grpc.WithInsecure(), grpc.WithBlock())
	check(err == nil, "dial %s: %v", address, err)
	defer connection.Close()
	grounding := discoveryenginepb.NewGroundedGenerationServiceClient(connection)

	line := checkGrounding(grounding, &testCase)
	answer := generateGroundedContent(grounding, &testCase)
	streamGenerateGroundedContent(grounding, &testCase, answer)
	corroborateContent(aiplatformpb.NewVertexRagServiceClient(connection), &testCase)
	invalidArgumentHasBadRequest(grounding, &testCase)

	output, err := json.Marshal(struct {
		Language string    `json:"language"`
		Check    checkLine `json:"check"`
	}{"go", line})
	check(err == nil, "encode the result: %v", err)
	fmt.Println(string(output))
}

// request reads one of the case's requests, in Google's JSON, into message.
func request(raw json.RawMessage, message proto.Message) {
	err := protojson.Unmarshal(raw, message)
	check(err == nil, "the case's %s is not valid: %v", message.ProtoReflect().Descriptor().Name(), err)
}

// checkGrounding sends the case's CheckGrounding request and asserts its claims: byte offsets,
// citations, and the claim text found at those offsets by the offsets helper.
func checkGrounding(client discoveryenginepb.GroundedGenerationServiceClient, testCase *polyglotCase) checkLine {
	sent := &discoveryenginepb.CheckGroundingRequest{}
	request(testCase.Check.Request, sent)
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	response, err := client.CheckGrounding(ctx, sent)
	check(err == nil, "CheckGrounding: %v", err)
	check(response.SupportScore != nil, "CheckGrounding: no support score")
	expected := testCase.Check.Expected
	check(len(response.Claims) == len(expected), "CheckGrounding: %d claims, expected %d",
		len(response.Claims), len(expected))

	answer := sent.AnswerCandidate
	claims := make([]offsets.Claim, len(response.Claims))
	line := checkLine{Claims: make([]claimLine, len(response.Claims))}
	for i, claim := range response.Claims {
		want := expected[i]
		check(claim.StartPos != nil && claim.EndPos != nil, "claim %d: no positions", i)
		got := claimLine{*claim.StartPos, *claim.EndPos, claim.CitationIndices}
		check(got.Start == want.Bytes[0] && got.End == want.Bytes[1],
			"claim %d: bytes [%d, %d), expected %v", i, got.Start, got.End, want.Bytes)
		check(equalIndices(got.CitationIndices, want.CitationIndices),
			"claim %d: citations %v, expected %v", i, got.CitationIndices, want.CitationIndices)
		check(claim.ClaimText == want.Text, "claim %d: %q, expected %q", i, claim.ClaimText, want.Text)
		claims[i] = offsets.Claim{Start: claim.StartPos, End: claim.EndPos, Text: claim.ClaimText}
		if got.CitationIndices == nil {
			got.CitationIndices = []int32{}
		}
		line.Claims[i] = got
	}
	runes := []rune(answer)
	for i, span := range offsets.Resolve(answer, claims) {
		want := expected[i]
		check(!span.Adjusted && !span.Located, "claim %d: its offsets needed adjusting", i)
		check(answer[span.Start:span.End] == want.Text, "claim %d: %q at its offsets, expected %q",
			i, answer[span.Start:span.End], want.Text)
		check(span.StartRune == want.CodePoints[0] && span.EndRune == want.CodePoints[1],
			"claim %d: runes [%d, %d), expected %v", i, span.StartRune, span.EndRune, want.CodePoints)
		check(string(runes[span.StartRune:span.EndRune]) == want.Text,
			"claim %d: the rune indices do not hold the claim", i)
	}
	// float32's shortest form, as protojson and the other languages write the score.
	line.SupportScore = json.RawMessage(strconv.FormatFloat(float64(*response.SupportScore), 'g', -1, 32))
	return line
}

// generateGroundedContent asserts a grounded answer citing the inline fact; it returns the answer.
func generateGroundedContent(client discoveryenginepb.GroundedGenerationServiceClient, testCase *polyglotCase) string {
	sent := &discoveryenginepb.GenerateGroundedContentRequest{}
	request(testCase.Generate.Request, sent)
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	response, err := client.GenerateGroundedContent(ctx, sent)
	check(err == nil, "GenerateGroundedContent: %v", err)
	check(len(response.Candidates) == 1, "GenerateGroundedContent: %d candidates", len(response.Candidates))
	candidate := response.Candidates[0]
	answer := candidateText(candidate)
	check(strings.Contains(answer, testCase.Generate.AnswerContains),
		"GenerateGroundedContent: %q does not contain %q", answer, testCase.Generate.AnswerContains)
	check(candidate.GroundingScore != nil && *candidate.GroundingScore > 0,
		"GenerateGroundedContent: no grounding score")
	supports := candidate.GetGroundingMetadata().GetGroundingSupport()
	check(len(supports) > 0 && len(supports[0].SupportChunkIndices) > 0,
		"GenerateGroundedContent: the answer cites no fact")
	return answer
}

// streamGenerateGroundedContent sends the same request on the bidirectional stream and asserts
// the streamed pieces add up to the unary answer, the last one carrying the grounding.
func streamGenerateGroundedContent(
	client discoveryenginepb.GroundedGenerationServiceClient, testCase *polyglotCase, unaryAnswer string,
) {
	sent := &discoveryenginepb.GenerateGroundedContentRequest{}
	request(testCase.Generate.Request, sent)
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	stream, err := client.StreamGenerateGroundedContent(ctx)
	check(err == nil, "StreamGenerateGroundedContent: %v", err)
	check(stream.Send(sent) == nil, "StreamGenerateGroundedContent: send failed")
	check(stream.CloseSend() == nil, "StreamGenerateGroundedContent: close failed")
	streamed, responses := "", 0
	var last *discoveryenginepb.GenerateGroundedContentResponse_Candidate
	for {
		response, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		check(err == nil, "StreamGenerateGroundedContent: %v", err)
		check(len(response.Candidates) == 1, "StreamGenerateGroundedContent: %d candidates",
			len(response.Candidates))
		last = response.Candidates[0]
		streamed += candidateText(last)
		responses++
	}
	check(responses > 0, "StreamGenerateGroundedContent: no response")
	check(streamed == unaryAnswer, "StreamGenerateGroundedContent: %q, the unary answer is %q",
		streamed, unaryAnswer)
	check(last.GroundingScore != nil, "StreamGenerateGroundedContent: the last piece has no score")
}

// candidateText joins a candidate's text parts.
func candidateText(candidate *discoveryenginepb.GenerateGroundedContentResponse_Candidate) string {
	text := ""
	for _, part := range candidate.GetContent().GetParts() {
		text += part.GetText()
	}
	return text
}

// corroborateContent asserts Vertex AI's CorroborateContent finds the supported claim.
func corroborateContent(client aiplatformpb.VertexRagServiceClient, testCase *polyglotCase) {
	sent := &aiplatformpb.CorroborateContentRequest{}
	request(testCase.Corroborate.Request, sent)
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	response, err := client.CorroborateContent(ctx, sent)
	check(err == nil, "CorroborateContent: %v", err)
	check(response.CorroborationScore != nil && *response.CorroborationScore > 0,
		"CorroborateContent: no corroboration score")
	check(len(response.Claims) > 0, "CorroborateContent: no claims")
	claim := response.Claims[0]
	content := sent.Content.Parts[0].GetText()
	check(claim.StartIndex != nil && claim.EndIndex != nil &&
		0 <= *claim.StartIndex && *claim.StartIndex < *claim.EndIndex && int(*claim.EndIndex) <= len(content),
		"CorroborateContent: the claim's positions do not fit the content")
	check(equalIndices(claim.FactIndexes, testCase.Corroborate.ExpectedFactIndexes),
		"CorroborateContent: facts %v, expected %v", claim.FactIndexes, testCase.Corroborate.ExpectedFactIndexes)
}

// invalidArgumentHasBadRequest asserts the case's invalid request is refused with the
// expected code and a google.rpc.BadRequest naming the field.
func invalidArgumentHasBadRequest(client discoveryenginepb.GroundedGenerationServiceClient, testCase *polyglotCase) {
	sent := &discoveryenginepb.CheckGroundingRequest{}
	request(testCase.Invalid.Request, sent)
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	_, err := client.CheckGrounding(ctx, sent)
	refusal, ok := status.FromError(err)
	check(err != nil && ok && refusal.Code() == testCase.Invalid.Code,
		"the invalid request: %v, expected %v", err, testCase.Invalid.Code)
	fields := []string{}
	for _, detail := range refusal.Details() {
		if badRequest, isBadRequest := detail.(*errdetails.BadRequest); isBadRequest {
			for _, violation := range badRequest.FieldViolations {
				fields = append(fields, violation.Field)
			}
		}
	}
	check(reflect.DeepEqual(fields, []string{testCase.Invalid.BadRequestField}),
		"%v's BadRequest names %v, expected %s", refusal.Code(), fields, testCase.Invalid.BadRequestField)
}

// equalIndices compares two index lists, nil and empty alike.
func equalIndices(got, want []int32) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		if got[i] != want[i] {
			return false
		}
	}
	return true
}

// check ends the program with a one-line error unless ok.
func check(ok bool, format string, args ...interface{}) {
	if !ok {
		fail(format, args...)
	}
}

// fail prints a one-line error and exits with status 1.
func fail(format string, args ...interface{}) {
	fmt.Fprintf(os.Stderr, "go client: "+format+"\n", args...)
	os.Exit(1)
}
