package agent

import (
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/byref/byref/llm"
	"github.com/byref/byref/run"
	"github.com/byref/byref/schema"
)

// Outcome is how a run (or its latest turn, after a follow-up) ended.
type Outcome struct {
	// RunID is the run's ID.
	RunID run.ID
	// Status is completed, failed or canceled; or awaiting, from Run and
	// Resume, when the run awaits an answer Options.Answer does not give.
	Status run.Status
	// Await is what an awaiting run awaits (its ID, kind, message, and the
	// call or snippet to approve); nil otherwise. Agent.Resume answers
	// it.
	Await *run.AwaitRequested
	// Result is the result's JSON: the literal null when the run completed
	// without one (it could not do its task, or hit a limit).
	Result json.RawMessage
	// Reason says why the run failed, was canceled, or has a null result.
	Reason string
	// ResultVariable names the variable the model gave as the result by
	// reference, or "".
	ResultVariable string
	// Redacted reports that the result is a secret or derived from one:
	// Result is null for everybody but the host, which reads the value in
	// Go from ResultVariable (variable.As, agent.Value).
	Redacted bool
	// Steps is the number of model calls made.
	Steps int
	// Usage totals the tokens the model reported, with the parts of the
	// input its provider's prompt cache read and wrote, the part of the
	// output spent reasoning, and the cost the provider reported (Cost,
	// distinct from Outcome.Cost), a restored run's earlier calls included.
	Usage llm.Usage
	// Cost is what Usage cost, in dollars, at the model's price in
	// Options.Prices; 0 when the model has none.
	Cost float64
}

// OK reports whether the run completed with a non-null result.
func (o Outcome) OK() bool {
	return o.Status == run.StatusCompleted && len(o.Result) > 0 && string(o.Result) != "null"
}

// ResultAs decodes an outcome's result into a T.
func ResultAs[T any](o Outcome) (T, error) {
	var v T
	if !o.OK() {
		return v, fmt.Errorf("agent: run %s has no result (%s: %s)", o.RunID, o.Status, o.Reason)
	}
	if err := json.Unmarshal(o.Result, &v); err != nil {
		return v, fmt.Errorf("agent: the result of run %s is not a %T: %w", o.RunID, v, err)
	}
	return v, nil
}

// ResultSchemaFor returns the JSON Schema of T, for RunOptions.ResultSchema
// (pair it with ResultAs). It panics if T cannot be JSON, a programmer's
// error.
func ResultSchemaFor[T any]() json.RawMessage {
	s, err := schema.For(reflect.TypeFor[T]())
	if err != nil {
		panic(fmt.Sprintf("agent.ResultSchemaFor: %v", err))
	}
	return s
}
