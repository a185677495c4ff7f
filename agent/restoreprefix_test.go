package agent_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/byref/byref/agent"
	"github.com/byref/byref/llm"
	"github.com/byref/byref/run"
)

// byTurn answers with responses[n], n the number of the model's answers
// in the conversation: a function of the conversation, so that a restored
// run's model goes on where the first one stopped.
func byTurn(responses ...llm.Response) *llm.Scripted {
	return llm.NewScriptedFunc(func(req llm.Request) (llm.Response, error) {
		n := 0
		for _, m := range req.Messages {
			if m.Role == llm.RoleAssistant {
				n++
			}
		}
		return responses[min(n, len(responses)-1)], nil
	})
}

// beginsWith fails t unless next begins with prev, byte for byte: the
// same tools, then prev's messages as JSON.
func beginsWith(t *testing.T, what string, prev, next llm.Request) {
	t.Helper()
	pt, _ := json.Marshal(prev.Tools)
	nt, _ := json.Marshal(next.Tools)
	if string(pt) != string(nt) {
		t.Fatalf("%s: the tools differ", what)
	}
	if len(next.Messages) < len(prev.Messages) {
		t.Fatalf("%s: %d messages, fewer than the %d sent before", what, len(next.Messages), len(prev.Messages))
	}
	for i, m := range prev.Messages {
		a, _ := json.Marshal(m)
		b, _ := json.Marshal(next.Messages[i])
		if string(a) != string(b) {
			t.Fatalf("%s: message %d differs:\nbefore: %s\nafter:  %s", what, i, a, b)
		}
	}
}

// restoreAndFinish closes rt, restores the run of h on a new agent with
// the same store and the model after, answers its pending await with a
// and waits for the run to complete.
func restoreAndFinish(t *testing.T, rt *agent.Agent, h *agent.Handle, opts agent.Options, after llm.Model, await string, a run.Answer) *agent.Handle {
	t.Helper()
	ctx := context.Background()
	if err := rt.Close(ctx); err != nil {
		t.Fatal(err)
	}
	rt2 := newAgent(t, after, opts)
	t.Cleanup(func() { _ = rt2.Close(ctx) })
	h2, err := rt2.Restore(ctx, h.ID(), agent.RestoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	resume(t, h2, await, a)
	if o := wait(t, h2); o.Status != run.StatusCompleted {
		t.Fatalf("restored run: %+v", o)
	}
	return h2
}

var askUnit = llm.CallTool("ask_user", `{"question":"Which unit?","return":null}`)

// A rejected plan is answered in the conversation; a run restored after
// it sends the model the same answer.
func TestRestoreAfterARejectedPlanKeepsThePrefix(t *testing.T) {
	plan := func(unit string) llm.Response {
		return llm.Response{Text: "Plan: look up the weather in " + unit + ".", ToolCalls: []llm.ToolCall{{ID: "c_" + unit, Name: "get_weather", Arguments: `{"location":"<<var:city>>","unit":"` + unit + `","return":null}`}}}
	}
	responses := []llm.Response{plan("c"), plan("f"), llm.CallTool("terminate", `{"success":true,"result":"<<var:weather>>"}`)}
	opts := agent.Options{Store: run.NewMemoryStore()}
	before := byTurn(responses...)
	rt := newAgent(t, before, opts)
	h, err := rt.Start(context.Background(), agent.RunOptions{Task: "t", Approval: agent.ApproveOnStart})
	if err != nil {
		t.Fatal(err)
	}
	resume(t, h, waitFor(t, h, 1).ID, run.Answer{Decision: run.Denied, Reason: "say it in Fahrenheit"})
	second := waitFor(t, h, 2)
	after := byTurn(responses...)
	restoreAndFinish(t, rt, h, opts, after, second.ID, run.Answer{Decision: run.Approved})
	reqs := before.Requests()
	beginsWith(t, "restored after a rejected plan", reqs[len(reqs)-1], after.Requests()[0])
}

// The message that asks for a valid result is in the log as sent.
func TestRestoreAfterAnInvalidResultKeepsThePrefix(t *testing.T) {
	responses := []llm.Response{llm.CallTool("terminate", `{"success":true,"result":"three"}`), askUnit, llm.CallTool("terminate", `{"success":true,"result":3}`)}
	opts := agent.Options{Store: run.NewMemoryStore()}
	before := byTurn(responses...)
	rt := newAgent(t, before, opts)
	h, err := rt.Start(context.Background(), agent.RunOptions{Task: "t", ResultSchema: []byte(`{"type":"integer"}`)})
	if err != nil {
		t.Fatal(err)
	}
	ask := waitFor(t, h, 1)
	after := byTurn(responses...)
	restoreAndFinish(t, rt, h, opts, after, ask.ID, run.Answer{Text: "c"})
	reqs := before.Requests()
	if m := reqs[1].Messages[len(reqs[1].Messages)-1]; !strings.Contains(m.Text, "Your result is not valid") {
		t.Fatalf("the model was not asked again: %q", m.Text)
	}
	beginsWith(t, "restored after an invalid result", reqs[len(reqs)-1], after.Requests()[0])
}

// The system prompt lists a starting variable as it was when the run
// began, also in a run restored after a step changed it.
func TestRestoreAfterAStartingVariableChangedKeepsThePrompt(t *testing.T) {
	responses := []llm.Response{llm.Text("```go\ncity = \"Oslo\"\n```"), askUnit, llm.CallTool("terminate", `{"success":true,"result":"<<var:city>>"}`)}
	opts := agent.Options{Store: run.NewMemoryStore()}
	before := byTurn(responses...)
	rt := newAgent(t, before, opts)
	h, err := rt.Start(context.Background(), agent.RunOptions{Task: "t"})
	if err != nil {
		t.Fatal(err)
	}
	ask := waitFor(t, h, 1)
	if v, _ := h.State().Variable("city"); v.Value != "Oslo" {
		t.Fatalf("the snippet did not change city: %v", v.Value)
	}
	after := byTurn(responses...)
	restoreAndFinish(t, rt, h, opts, after, ask.ID, run.Answer{Text: "c"})
	reqs := before.Requests()
	if sys := after.Requests()[0].Messages[0].Text; !strings.Contains(sys, "Paris") || strings.Contains(sys, "Oslo") {
		t.Fatalf("restored system prompt: %q", sys)
	}
	beginsWith(t, "restored after a starting variable changed", reqs[len(reqs)-1], after.Requests()[0])
}

// A variable the host defines between turns is announced in the
// follow-up message, which nothing else changes, and restored with it.
func TestHostVariableBetweenTurnsIsAnnounced(t *testing.T) {
	responses := []llm.Response{llm.CallTool("terminate", `{"success":true,"result":"a"}`), askUnit, llm.CallTool("terminate", `{"success":true,"result":"<<var:limit>>"}`)}
	opts := agent.Options{Store: run.NewMemoryStore()}
	before := byTurn(responses...)
	rt := newAgent(t, before, opts)
	h, err := rt.Start(context.Background(), agent.RunOptions{Task: "t"})
	if err != nil {
		t.Fatal(err)
	}
	wait(t, h)
	if err := h.State().Set("limit", 3); err != nil {
		t.Fatal(err)
	}
	if err := h.FollowUp(context.Background(), "again, within the limit"); err != nil {
		t.Fatal(err)
	}
	ask := waitFor(t, h, 1)
	reqs := before.Requests()
	follow := reqs[1].Messages[len(reqs[1].Messages)-1]
	if !strings.HasPrefix(follow.Text, "again, within the limit") || !strings.Contains(follow.Text, "limit (int): 3") {
		t.Fatalf("the follow-up does not announce limit: %q", follow.Text)
	}
	if strings.Contains(reqs[1].Messages[0].Text, "limit") {
		t.Fatal("the system prompt was rewritten to name limit")
	}
	beginsWith(t, "the follow-up", reqs[0], reqs[1])
	after := byTurn(responses...)
	h2 := restoreAndFinish(t, rt, h, opts, after, ask.ID, run.Answer{Text: "c"})
	if v, ok := h2.State().Variable("limit"); !ok || v.Value != 3 {
		t.Fatalf("limit restored as %v (%v)", v.Value, ok)
	}
	reqs = before.Requests()
	beginsWith(t, "restored after the follow-up", reqs[len(reqs)-1], after.Requests()[0])
	if n := strings.Count(after.Requests()[0].Messages[len(reqs[1].Messages)-1].Text, "limit (int)"); n != 1 {
		t.Fatalf("limit announced %d times", n)
	}
}
