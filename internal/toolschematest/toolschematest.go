// Package toolschematest holds a client's tool for tests of the runs that
// call one: a tool an AG-UI front end declares, which the client runs.
package toolschematest

import (
	"encoding/json"

	"github.com/byref/byref/action"
	"github.com/byref/byref/internal/toolschema"
)

// Confirm is the tool "confirm" of a run's client, as agui makes one of a
// front end's tool: it takes {"what": string}, the client runs it, and
// its answer is the call's result.
func Confirm() *action.Action {
	a, err := toolschema.Client("confirm", "Ask the user to confirm.", json.RawMessage(`{"type":"object","properties":{"what":{"type":"string"}},"required":["what"]}`),
		func([]byte) string { return "the client runs this call" })
	if err != nil {
		panic(err)
	}
	return a
}
