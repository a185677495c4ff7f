package agent_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/byref/byref/action"
	"github.com/byref/byref/agent"
	"github.com/byref/byref/llm"
	"github.com/byref/byref/run"
	"github.com/byref/byref/run/sqlite"
	"github.com/byref/byref/variable"
)

// historyScript is a run with every kind of instruction: a snippet and a
// call in one step, a refused reference, an action's error, a denied call,
// a call whose arguments an approver edited, a question, run_go, a result
// too large for the conversation, a snippet that does not compile, and
// terminate.
func historyScript() (*llm.Scripted, agent.Options) {
	boom := action.MustNew(action.Spec{Name: "boom", Description: "Fails.", Func: func() error { return errors.New("it broke") }})
	dump := action.MustNew(action.Spec{Name: "dump", Description: "A long text.", Func: func() string { return strings.Repeat("x", 300) }})
	tc := func(id, name, args string) llm.ToolCall { return llm.ToolCall{ID: id, Name: name, Arguments: args} }
	model := llm.NewScripted(
		llm.Response{Text: "First the loud city.\n```go\nloud := city + \"!\"\n```", ToolCalls: []llm.ToolCall{tc("c1", "get_weather", `{"location":"<<var:city>>","unit":"c","return":null}`)}},
		llm.CallTools(tc("c2", "get_weather", `{"location":"<<var:nope>>","unit":"c","return":null}`), tc("c3", "boom", `{}`)),
		llm.Response{Text: "In Fahrenheit, then Rome.", ToolCalls: []llm.ToolCall{tc("c4", "get_weather", `{"location":"<<var:city>>","unit":"f","return":null}`), tc("c5", "get_weather", `{"location":"Rome","unit":"c","return":"weather"}`)}},
		llm.CallTool("ask_user", `{"question":"Which city next?"}`),
		llm.CallTools(tc("c7", "run_go", `{"code":"n := len(loud)"}`), tc("c8", "dump", `{"return":null}`)),
		llm.Text("```go\nbroken :=\n```"),
		llm.CallTool("terminate", `{"success":true,"result":"<<var:weather>>"}`),
	)
	return model, agent.Options{Actions: action.MustSet(weatherAction, boom, dump)}
}

// answerAll answers the run's awaits: it denies the call in Fahrenheit,
// moves the call for Rome to Milan, answers the question with Lyon and
// approves the rest.
func answerAll(t *testing.T, h *agent.Handle) {
	t.Helper()
	for e, err := range h.Events(context.Background(), 1) {
		if err != nil {
			t.Error(err)
			return
		}
		req, ok := e.Payload.(run.AwaitRequested)
		if !ok {
			continue
		}
		a := run.Answer{Decision: run.Approved}
		switch {
		case req.Await == run.AwaitQuestion:
			a = run.Answer{Text: "Lyon"}
		case req.Call != nil && strings.Contains(req.Call.Arguments, `"f"`):
			a = run.Answer{Decision: run.Denied, Reason: "we use Celsius"}
		case req.Call != nil && strings.Contains(req.Call.Arguments, "Rome"):
			a.Arguments = `{"location":"Milan","unit":"c","return":"weather"}`
		}
		if err := h.Resume(context.Background(), req.ID, a); err != nil {
			t.Error(err)
			return
		}
	}
}

func runHistoryScript(t *testing.T) (*agent.Handle, *agent.Agent) {
	t.Helper()
	model, opts := historyScript()
	rt := newAgent(t, model, opts)
	h, err := rt.Start(context.Background(), agent.RunOptions{Task: "t", Approval: agent.ApproveOnToolCall, Limits: agent.Limits{LargeResult: 200}})
	if err != nil {
		t.Fatal(err)
	}
	answerAll(t, h)
	if o := wait(t, h); o.Status != run.StatusCompleted {
		t.Fatalf("outcome = %+v", o)
	}
	return h, rt
}

// TestHistoryIsAFoldOfTheLog checks the history of a run with every kind
// of instruction against a golden file, and that it is the fold of the log
// as stored, read back from JSON (as SQLite and the server give it).
func TestHistoryIsAFoldOfTheLog(t *testing.T) {
	h, rt := runHistoryScript(t)
	got := h.State().History()
	log, err := rt.Store().Read(context.Background(), h.ID(), 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	if viaHandle, err := h.History(context.Background()); err != nil || !reflect.DeepEqual(viaHandle, got) {
		t.Fatalf("Handle.History = %v, %v; want State.History", viaHandle, err)
	}
	var roundTrip []run.Event
	for _, e := range log {
		b, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		var back run.Event
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatal(err)
		}
		roundTrip = append(roundTrip, back)
	}
	fromJSON := run.History(roundTrip)
	if len(fromJSON) != len(got) {
		t.Fatalf("the fold of the log read back from JSON has %d instructions, want %d", len(fromJSON), len(got))
	}
	for i := range got {
		if got[i].Start.IsZero() || !got[i].Start.Equal(fromJSON[i].Start) {
			t.Errorf("instruction %d: start %v, from JSON %v", i, got[i].Start, fromJSON[i].Start)
		}
		if got[i].Kind == agent.KindCall && got[i].Action != "terminate" && got[i].Duration <= 0 {
			t.Errorf("instruction %d has no duration", i)
		}
	}
	a, b := stable(t, got), stable(t, fromJSON)
	if !bytes.Equal(a, b) {
		t.Errorf("the fold of the log read back from JSON differs:\n%s\nwant\n%s", b, a)
	}
	golden(t, "history.golden.json", a)
}

// stable is the history as indented JSON, without its times.
func stable(t *testing.T, h []agent.Instruction) []byte {
	t.Helper()
	out := make([]agent.Instruction, len(h))
	for i, in := range h {
		in.Start, in.Duration = time.Time{}, 0
		out[i] = in
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(out); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestHistoryAfterRestore checks that a run restored after a restart has,
// in its history, the steps it made before it.
func TestHistoryAfterRestore(t *testing.T) {
	ctx := context.Background()
	store, err := sqlite.Open(filepath.Join(t.TempDir(), "runs.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	script := []llm.Response{
		{Text: "Look it up.", ToolCalls: []llm.ToolCall{{ID: "c1", Name: "get_weather", Arguments: `{"location":"<<var:city>>","unit":"c","return":null}`}}},
		llm.CallTool("ask_user", `{"question":"Which city next?"}`),
		llm.CallTool("terminate", `{"success":true,"result":"<<var:weather>>"}`),
	}
	first, err := agent.New(agent.Options{Model: llm.NewScripted(script...), Store: store, Actions: action.MustSet(weatherAction), Variables: []variable.Spec{{Name: "city", Value: "Paris"}}})
	if err != nil {
		t.Fatal(err)
	}
	h, _ := first.Start(ctx, agent.RunOptions{Task: "t"})
	req := waitFor(t, h, 1)
	before := h.State().History()
	if len(before) != 1 || before[0].Action != "get_weather" || before[0].Reason != "Look it up." {
		t.Fatalf("history before the restart = %+v", before)
	}
	if err := first.Close(ctx); err != nil { // the process stops; the run stays awaiting
		t.Fatal(err)
	}

	second, err := agent.New(agent.Options{Model: llm.NewScripted(script[2:]...), Store: store, Actions: action.MustSet(weatherAction)})
	if err != nil {
		t.Fatal(err)
	}
	defer second.Close(ctx)
	r, err := second.Restore(ctx, h.ID(), agent.RestoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := r.State().History(); !reflect.DeepEqual(stable(t, got), stable(t, before)) {
		t.Fatalf("restored history = %+v, want the steps before the restart %+v", got, before)
	}
	resume(t, r, req.ID, run.Answer{Text: "Lyon"})
	if o := wait(t, r); o.Status != run.StatusCompleted {
		t.Fatalf("outcome = %+v", o)
	}
	after := r.State().History()
	if len(after) != 3 || after[0].CallID != "c1" || after[1].Action != "ask_user" || after[1].Return == "" || after[2].Action != "terminate" {
		t.Fatalf("history after the restart = %+v", after)
	}
}

// TestARunAndABareStateRecordAStepAlike: a step is recorded in one way
// (the State's stepLog), whether or not the State has a run: the same step,
// asked by a run's model or given to a bare State's Execute, has the same
// history, the reason and each call's resolution included.
func TestARunAndABareStateRecordAStepAlike(t *testing.T) {
	ctx := context.Background()
	step := agent.Step{
		Reason:   "Look it up, and make it loud.",
		Snippets: []string{`loud := city + "!"`},
		Calls: []agent.ToolCall{
			{ID: "c1", Name: "get_weather", Arguments: `{"location":"<<var:city>>","unit":"c","return":null}`},
			{ID: "c2", Name: "get_weather", Arguments: `{"location":"<<var:nope>>","unit":"c","return":null}`},
		},
	}
	code := "```go\n" + step.Snippets[0] + "\n```"
	model := llm.NewScripted(
		llm.Response{Text: step.Reason + "\n" + code, ToolCalls: step.Calls},
		llm.CallTool("terminate", `{"success":true,"result":"<<var:loud>>"}`),
	)
	rt := newAgent(t, model, agent.Options{})
	h, err := rt.Start(ctx, agent.RunOptions{Task: "t"})
	if err != nil {
		t.Fatal(err)
	}
	if o := wait(t, h); o.Status != run.StatusCompleted {
		t.Fatalf("outcome = %+v\n%s", o, stable(t, h.State().History()))
	}
	inRun := h.State().History()

	st, err := newAgent(t, llm.NewScripted(), agent.Options{}).NewState()
	if err != nil {
		t.Fatal(err)
	}
	step.Reason += "\n" + code
	st.Execute(ctx, step)
	bare := st.History()
	if len(inRun) != len(bare)+1 { // the run's terminate is a step of its own
		t.Fatalf("the run's history has %d instructions, the bare State's %d; want one more (terminate)", len(inRun), len(bare))
	}
	if a, b := stable(t, inRun[:len(bare)]), stable(t, bare); !bytes.Equal(a, b) {
		t.Errorf("the run recorded the step as\n%s\na bare State as\n%s", a, b)
	}
}

// TestAHostsExecuteIsNotTheRunsStep: a host's Execute on a run's State
// changes the run's variables, but the model did not ask for it, so the
// run's log, its history and its conversation do not get it: a completed
// run's log does not go on after its final status, and the model is never
// sent a tool message that answers no call of its own (a provider rejects
// such a conversation).
func TestAHostsExecuteIsNotTheRunsStep(t *testing.T) {
	ctx := context.Background()
	model := llm.NewScripted(append(weatherThenDone, weatherThenDone...)...)
	rt := newAgent(t, model, agent.Options{})
	h, err := rt.Start(ctx, agent.RunOptions{Task: "t"})
	if err != nil {
		t.Fatal(err)
	}
	if o := wait(t, h); o.Status != run.StatusCompleted {
		t.Fatalf("outcome = %+v", o)
	}
	before, hist := events(t, h), h.State().History()

	res := h.State().Execute(ctx, agent.Step{
		Snippets: []string{`host := city + "!"`},
		Calls:    []agent.ToolCall{{ID: "h1", Name: "get_weather", Arguments: `{"location":"<<var:city>>","unit":"c","return":null}`}},
	})
	if !res.Snippets[0].Success || !res.Responses[0].Success {
		t.Fatalf("the host's step failed: %+v", res)
	}
	if v, _ := agent.Value[string](h.State(), "host"); v != "Paris!" {
		t.Fatal("the host's step did not change the run's variables")
	}
	if after := events(t, h); len(after) != len(before) {
		t.Fatalf("the host's step went into the run's log: %v after %v", types(after[len(before):]), types(before))
	}
	if got := h.State().History(); len(got) != len(hist) {
		t.Fatalf("the run's history has %d instructions after the host's step, %d before", len(got), len(hist))
	}

	if err := h.FollowUp(ctx, "again"); err != nil {
		t.Fatal(err)
	}
	if o := wait(t, h); o.Status != run.StatusCompleted {
		t.Fatalf("outcome after the follow-up = %+v", o)
	}
	for i, req := range model.Requests() {
		asked := map[string]bool{}
		for _, m := range req.Messages {
			for _, c := range m.ToolCalls {
				asked[c.ID] = true
			}
			if m.Role == llm.RoleTool && !asked[m.ToolCallID] {
				t.Fatalf("request %d sends the model a tool message for call %q, which it never made", i, m.ToolCallID)
			}
			if strings.Contains(m.Text, "host :=") || strings.Contains(m.Text, "Paris!") {
				t.Fatalf("request %d tells the model of the host's step: %q", i, m.Text)
			}
		}
	}
}
