package agent_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/byref/byref/action"
	"github.com/byref/byref/agent"
	"github.com/byref/byref/llm"
	"github.com/byref/byref/run"
	"github.com/byref/byref/variable"
)

func researcher(t *testing.T, model func() llm.Model, actions *action.Set) *action.Action {
	t.Helper()
	a, err := agent.AsAction(agent.Child{
		Name:        "researcher",
		Description: "Finds out the weather of a city.",
		Agent:       newAgent(t, model(), agent.Options{Actions: actions}),
	})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func TestChildRun(t *testing.T) {
	child := func() llm.Model {
		return llm.NewScripted(
			llm.CallTool("get_weather", `{"location":"Lima","unit":"c","return":null}`),
			llm.CallTool("terminate", `{"success":true,"result":"<<var:weather>>"}`),
		)
	}
	parent := llm.NewScripted(
		llm.CallTool("researcher", `{"task":"the weather in Lima","return":null}`),
		llm.CallTool("terminate", `{"success":true,"result":"<<var:researcher_result>>"}`),
	)
	store := run.NewMemoryStore()
	rt := newAgent(t, parent, agent.Options{Store: store, Actions: action.MustSet(researcher(t, child, action.MustSet(weatherAction)))})
	h, err := rt.Start(context.Background(), agent.RunOptions{Task: "delegate"})
	if err != nil {
		t.Fatal(err)
	}
	o := wait(t, h)
	if string(o.Result) != `"sunny, 21°C in Lima"` {
		t.Fatalf("outcome = %+v", o)
	}
	// The child's result came back as a variable.
	v, _ := h.State().Variable("researcher_result")
	if raw, ok := v.Value.(json.RawMessage); !ok || string(raw) != `"sunny, 21°C in Lima"` {
		t.Fatalf("researcher_result = %#v", v.Value)
	}
	// The parent's snapshot lists the child; the child names its parent.
	snap, _ := h.Snapshot(context.Background())
	if len(snap.ChildRuns) != 1 || snap.ChildRuns[0].Status != run.StatusCompleted {
		t.Fatalf("child runs = %+v", snap.ChildRuns)
	}
	kids, _, _ := store.List(context.Background(), run.Query{ParentRun: h.ID()})
	if len(kids) != 1 || kids[0].ID != snap.ChildRuns[0].ID || kids[0].ParentToolCall != snap.ToolCalls[0].Call.ID {
		t.Fatalf("children in the store = %+v, snapshot %+v", kids, snap.ChildRuns)
	}
}

func TestCancellingTheParentCancelsTheChild(t *testing.T) {
	started := make(chan struct{})
	block := action.MustNew(action.Spec{Name: "block", Func: func(ctx context.Context) error { close(started); <-ctx.Done(); return ctx.Err() }})
	child := func() llm.Model { return llm.NewScripted(llm.CallTool("block", `{}`)) }
	parent := llm.NewScripted(llm.CallTool("researcher", `{"task":"block forever","return":null}`))
	store := run.NewMemoryStore()
	rt := newAgent(t, parent, agent.Options{Store: store, Actions: action.MustSet(researcher(t, child, action.MustSet(block)))})
	h, _ := rt.Start(context.Background(), agent.RunOptions{Task: "delegate"})
	<-started
	if err := h.Cancel(context.Background()); err != nil {
		t.Fatal(err)
	}
	if o := wait(t, h); o.Status != run.StatusCanceled {
		t.Fatalf("parent = %+v", o)
	}
	kids, _, _ := store.List(context.Background(), run.Query{ParentRun: h.ID()})
	if len(kids) != 1 || kids[0].Status != run.StatusCanceled {
		t.Fatalf("child = %+v", kids)
	}
	snap, _ := h.Snapshot(context.Background())
	if len(snap.ChildRuns) != 1 || snap.ChildRuns[0].Status != run.StatusCanceled {
		t.Fatalf("the parent's snapshot = %+v", snap.ChildRuns)
	}
}

func TestAsActionNeedsAnAgent(t *testing.T) {
	if _, err := agent.AsAction(agent.Child{Name: "x"}); err == nil || !strings.Contains(err.Error(), "Child.Agent is nil") {
		t.Fatalf("err = %v", err)
	}
	_ = variable.Spec{}
}
