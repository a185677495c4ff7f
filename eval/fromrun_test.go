package eval_test

import (
	"context"
	"strings"
	"testing"

	"github.com/byref/byref/agent"
	"github.com/byref/byref/eval"
	"github.com/byref/byref/run"
	"github.com/byref/byref/variable"
)

// TestFromRun turns a stored run into a case with a cassette, and replays
// it; an agent that no longer does what the log says is refused.
func TestFromRun(t *testing.T) {
	ctx := context.Background()
	opts := testAgent()
	opts.Model = goodModel()
	rt, err := agent.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	o, err := rt.Run(ctx, agent.RunOptions{
		Task: "How many words are in the memo?", ModelName: "scripted:good",
		Variables: []variable.Spec{{Name: "memo", Value: &Doc{Title: "memo", Body: "a b c"}}},
	})
	if err != nil || o.Status != run.StatusCompleted {
		t.Fatal(o, err)
	}
	events, err := rt.Store().Read(ctx, o.RunID, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	c, err := eval.FromRun(ctx, events, "memo", &eval.Set{Agent: testAgent(), Types: typesOf()})
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, e := range c.Expect {
		kinds = append(kinds, e.String())
	}
	got := strings.Join(kinds, "; ")
	for _, want := range []string{"status completed", "result equals 13", "word_count.doc got a reference to doc", "calls (exact) word_count(doc=\"<<var:doc>>\")", "at most 2 steps"} {
		if !strings.Contains(got, want) {
			t.Errorf("no %q in %s", want, got)
		}
	}
	if len(c.Variables) != 1 || c.Variables[0].Name != "memo" || c.Variables[0].Type != "*eval_test.Doc" {
		t.Fatalf("variables %+v", c.Variables)
	}
	if c.Cassette == nil || len(c.Cassette.Exchanges) != 2 || c.Cassette.Model != "scripted:good" {
		t.Fatalf("cassette %+v", c.Cassette)
	}
	set := &eval.Set{Agent: testAgent(), Cases: []*eval.Case{c}, Types: typesOf()}
	r, err := eval.Run(ctx, set, eval.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !r.OK() {
		t.Fatalf("the case made from the run fails: %+v", r.Cases[0].Trials[0].Failures)
	}

	// An agent whose word_count is gone cannot reproduce the run.
	changed := testAgent()
	changed.Actions = nil
	if _, err := eval.FromRun(ctx, events, "memo", &eval.Set{Agent: changed, Types: typesOf()}); err == nil || !strings.Contains(err.Error(), "could not be reproduced") {
		t.Fatalf("err = %v", err)
	}
}
