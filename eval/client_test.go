package eval_test

import (
	"context"
	"strings"
	"testing"

	"github.com/byref/byref/action"
	"github.com/byref/byref/agent"
	"github.com/byref/byref/eval"
	"github.com/byref/byref/internal/toolschematest"
	"github.com/byref/byref/llm"
	"github.com/byref/byref/run"
)

func confirmModel() llm.Model {
	return steps(
		llm.CallTool("confirm", `{"what":"the budget"}`),
		llm.CallTool("terminate", `{"success":true,"result":"<<var:confirm_result>>"}`),
	)
}

// A run that called a front-end tool is refused as a case, naming the
// tool and why; a case whose run calls one fails its trial with the same
// reason, and is not answered with a made-up value.
func TestClientTools(t *testing.T) {
	ctx := context.Background()
	opts := testAgent()
	opts.Model = confirmModel()
	rt, err := agent.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	h, err := rt.Create(ctx, agent.RunOptions{Task: "Confirm the budget."})
	if err != nil {
		t.Fatal(err)
	}
	if err := h.State().AddActions(toolschematest.Confirm()); err != nil {
		t.Fatal(err)
	}
	if err := h.Begin(ctx); err != nil {
		t.Fatal(err)
	}
	for e, err := range h.Events(ctx, 1) {
		if err != nil {
			t.Fatal(err)
		}
		if req, ok := e.Payload.(run.AwaitRequested); ok {
			if err := h.Resume(ctx, req.ID, run.Answer{Input: []byte(`"yes"`)}); err != nil {
				t.Fatal(err)
			}
			break
		}
	}
	if o, err := h.Wait(ctx); err != nil || o.Status != run.StatusCompleted {
		t.Fatal(o, err)
	}
	events, err := rt.Store().Read(ctx, h.ID(), 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, err = eval.FromRun(ctx, events, "confirm", &eval.Set{Agent: testAgent(), Types: typesOf()})
	if err == nil || !strings.Contains(err.Error(), "called confirm, tools its client ran") || !strings.Contains(err.Error(), "front-end") {
		t.Fatalf("FromRun of a run with a front-end tool: %v", err)
	}

	// An agent whose action is the client's: the trial fails, saying why.
	agentOpts := testAgent()
	agentOpts.Actions = action.MustSet(toolschematest.Confirm())
	set := &eval.Set{Agent: agentOpts, Cases: []*eval.Case{{Name: "confirm", Task: "Confirm the budget.", Expect: []eval.Expectation{eval.Status(run.StatusCompleted)}}}}
	r, err := eval.Run(ctx, set, eval.Options{Model: confirmModel()})
	if err != nil {
		t.Fatal(err)
	}
	tr := r.Cases[0].Trials[0]
	if tr.Passed || tr.Status != run.StatusCanceled || !strings.Contains(tr.Error, "the run called confirm, a tool its client runs") {
		t.Fatalf("trial %+v", tr)
	}
}
