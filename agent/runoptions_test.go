package agent_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/byref/byref/agent"
	"github.com/byref/byref/run"
)

// TestRunOptionsDoNotMarshalSilently: the Spec that RunOptions embeds has
// its own MarshalJSON, which would be promoted and write the Spec alone,
// dropping the run's ID, session, turn, name, tags, message, input and
// history without a word. RunOptions refuses instead, and says what to
// marshal; its Spec still marshals as the log records it.
func TestRunOptionsDoNotMarshalSilently(t *testing.T) {
	opts := agent.RunOptions{
		Spec: agent.Spec{Task: "t", Instructions: "be brief"},
		ID:   "r1", Session: "s1", Turn: "t1", Name: "n", Tags: map[string]string{"k": "v"},
		Message: json.RawMessage(`{"m":1}`), Input: json.RawMessage(`{"i":1}`),
	}
	for _, v := range []any{opts, &opts, struct{ Run agent.RunOptions }{opts}} {
		b, err := json.Marshal(v)
		if err == nil || !strings.Contains(err.Error(), "marshal opts.Spec") || !strings.Contains(err.Error(), "SpecOf(opts)") {
			t.Fatalf("json.Marshal(%T) = %s, %v; want an error naming what to marshal instead", v, b, err)
		}
	}
	var back agent.RunOptions
	if err := json.Unmarshal([]byte(`{"task":"t","id":"r1"}`), &back); err == nil || !strings.Contains(err.Error(), "OptionsOf") {
		t.Fatalf("json.Unmarshal = %+v, %v; want an error naming what to read instead", back, err)
	}

	b, err := json.Marshal(opts.Spec)
	if err != nil || string(b) != `{"task":"t","instructions":"be brief","interactive":true}` {
		t.Fatalf("json.Marshal(opts.Spec) = %s, %v", b, err)
	}
	b, err = json.Marshal(agent.SpecOf(opts))
	if err != nil {
		t.Fatal(err)
	}
	var c run.RunCreated
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatal(err)
	}
	if got := agent.OptionsOf(opts.ID, c); got.Session != "s1" || got.Turn != "t1" || got.Name != "n" || got.Tags["k"] != "v" || string(got.Input) != `{"i":1}` || got.Task != "t" {
		t.Fatalf("SpecOf and OptionsOf give back %+v", got)
	}
}
