package offsets

import (
	"encoding/json"
	"fmt"
	"os"
	"testing"
)

// conformanceCase is one case of conformance/offsets.json, the cases every language's helper
// must agree on.
type conformanceCase struct {
	Name     string            `json:"name"`
	Text     string            `json:"text"`
	Claims   [][3]interface{}  `json:"claims"`
	Expected []conformanceSpan `json:"expected"`
}

type conformanceSpan struct {
	CodePoints [2]int `json:"codePoints"`
	Bytes      [2]int `json:"bytes"`
	Adjusted   bool   `json:"adjusted"`
	Located    bool   `json:"located"`
}

// casesPath is the shared file: GROUNDWIRE_OFFSETS, else the repository's copy.
func casesPath() string {
	if path := os.Getenv("GROUNDWIRE_OFFSETS"); path != "" {
		return path
	}
	return "../../conformance/offsets.json"
}

// position reads a claim position: a JSON number, or nil for null.
func position(t *testing.T, value interface{}) *int32 {
	if value == nil {
		return nil
	}
	number, ok := value.(float64)
	if !ok {
		t.Fatalf("a claim position is %v, not a number or null", value)
	}
	offset := int32(number)
	return &offset
}

func TestResolveAgreesWithEveryConformanceCase(t *testing.T) {
	raw, err := os.ReadFile(casesPath())
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		Cases []conformanceCase `json:"cases"`
	}
	if err := json.Unmarshal(raw, &file); err != nil {
		t.Fatal(err)
	}
	if len(file.Cases) == 0 {
		t.Fatal("no cases in the conformance file")
	}
	for _, testCase := range file.Cases {
		testCase := testCase
		t.Run(testCase.Name, func(t *testing.T) {
			claims := make([]Claim, len(testCase.Claims))
			for i, claim := range testCase.Claims {
				text, _ := claim[2].(string)
				claims[i] = Claim{Start: position(t, claim[0]), End: position(t, claim[1]), Text: text}
			}
			spans := Resolve(testCase.Text, claims)
			if len(spans) != len(testCase.Expected) {
				t.Fatalf("%d spans, expected %d", len(spans), len(testCase.Expected))
			}
			for i, want := range testCase.Expected {
				got := spans[i]
				gotSpan := conformanceSpan{
					CodePoints: [2]int{got.StartRune, got.EndRune},
					Bytes:      [2]int{got.Start, got.End},
					Adjusted:   got.Adjusted,
					Located:    got.Located,
				}
				if gotSpan != want {
					t.Errorf("claim %d: got %+v, expected %+v", i, gotSpan, want)
				}
			}
		})
	}
}

func ExampleResolve() {
	answer := "東京は首都。Café 👋."
	start, end := int32(18), int32(29) // the API's UTF-8 byte offsets of "Café 👋."
	spans := Resolve(answer, []Claim{{Start: &start, End: &end, Text: "Café 👋."}})
	span := spans[0]
	fmt.Println(answer[span.Start:span.End], span.StartRune, span.EndRune, span.Adjusted)
	// Output: Café 👋. 6 13 false
}
