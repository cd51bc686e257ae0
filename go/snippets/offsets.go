// The harness of docs/polyglot.md's Go offsets snippet: conformance/run_polyglot.py puts the
// snippet in place of the marked line, and go/test.sh builds it in a module whose go.mod has
// the page's require and replace lines (go.mod beside this), against the generated code.
package main

import (
	"fmt"

	discoveryenginepb "github.com/groundwire/groundwire/genproto/discoveryengine/v1"
	"github.com/groundwire/groundwire/go/offsets"
)

func printClaims(request *discoveryenginepb.CheckGroundingRequest, response *discoveryenginepb.CheckGroundingResponse) {
	// <snippet>
}

func main() {
	printClaims(&discoveryenginepb.CheckGroundingRequest{}, &discoveryenginepb.CheckGroundingResponse{})
}
