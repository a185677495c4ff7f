package agent_test

import (
	"context"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/byref/byref/action"
	"github.com/byref/byref/agent"
	"github.com/byref/byref/internal/sessiontest"
	"github.com/byref/byref/llm"
	"github.com/byref/byref/run"
	"github.com/byref/byref/run/sqlite"
	"github.com/byref/byref/variable"
)

// chat returns an agent over store and opts (Actions and Store set).
func chat(t *testing.T, store run.Store, opts agent.Options) *agent.Agent {
	t.Helper()
	opts.Actions, opts.Store = sessiontest.Actions, store
	rt, err := agent.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = rt.Close(context.Background()) })
	return rt
}

// turn runs one turn of session "chat" with a model that makes calls, then
// answers, and returns the run's snapshot and the requests the model got.
func turn(t *testing.T, rt *agent.Agent, ro agent.RunOptions, task string, calls ...llm.Response) (run.Snapshot, []llm.Request) {
	t.Helper()
	model := llm.NewScripted(append(calls, llm.Text("done"))...)
	ro.Session, ro.Task, ro.Model = "chat", task, model
	h, err := rt.Start(context.Background(), ro)
	if err != nil {
		t.Fatal(err)
	}
	if o, err := h.Wait(context.Background()); err != nil || o.Status != run.StatusCompleted {
		t.Fatalf("turn %q: %+v, %v", task, o, err)
	}
	snap, err := h.Snapshot(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return snap, model.Requests()
}

// failedCalls returns the errors of the snapshot's failed calls.
func failedCalls(snap run.Snapshot) []string {
	var errs []string
	for _, c := range snap.ToolCalls {
		if !c.Success {
			errs = append(errs, c.Call.Name+": "+c.Error)
		}
	}
	return errs
}

func TestSessionTwoTurns(t *testing.T) {
	rt := chat(t, run.NewMemoryStore(), agent.Options{})
	turn(t, rt, agent.RunOptions{}, "load the orders", llm.CallTool("load_orders", `{}`), llm.CallTool("open_db", `{}`))
	snap, reqs := turn(t, rt, agent.RunOptions{}, "now only the late ones",
		llm.CallTools(llm.ToolCall{ID: "a", Name: "late_orders", Arguments: `{"orders":"<<var:orders>>"}`},
			llm.ToolCall{ID: "b", Name: "ping_db", Arguments: `{"db":"<<var:db>>"}`}))
	if errs := failedCalls(snap); len(errs) > 0 {
		t.Fatalf("turn 2's calls failed: %v", errs)
	}
	// Announced once, in the system prompt, as starting variables are.
	system := reqs[0].Messages[0].Text
	for _, want := range []string{"orders ([]sessiontest.Order)", "db (*sessiontest.DB)"} {
		if !strings.Contains(system, want) {
			t.Errorf("turn 2's system prompt does not name %s:\n%s", want, system)
		}
	}
	if reqs[1].Messages[0].Text != system {
		t.Error("the system prompt changed within the run")
	}
	late, ok := snap.Variable(snap.ToolCalls[0].Result)
	if !ok || string(late.Value) != `[{"id":2,"late":true},{"id":3,"late":true}]` {
		t.Errorf("the late orders = %+v (%+v)", late, snap.Variables)
	}
	sess, err := rt.Session(context.Background(), "chat")
	if err != nil {
		t.Fatal(err)
	}
	if len(sess.Runs) != 2 || len(sess.Messages) != 4 {
		t.Errorf("session folds %d runs and %d messages, want 2 and 4: %+v", len(sess.Runs), len(sess.Messages), sess.Messages)
	}
	if v, ok := sess.Variable("orders"); !ok || v.Run != sess.Runs[1] {
		t.Errorf("orders in the session: %+v (runs %v)", v, sess.Runs)
	}
}

func TestSessionRestart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "runs.db")
	open := func() *sqlite.Store {
		s, err := sqlite.Open(path, sqlite.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	store := open()
	rt := chat(t, store, agent.Options{})
	turn(t, rt, agent.RunOptions{}, "load the orders", llm.CallTool("load_orders", `{}`), llm.CallTool("open_db", `{}`))
	if err := rt.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	_ = store.Close()

	// A new process: the orders come back from the log, the handle is gone.
	store = open()
	defer store.Close()
	rt = chat(t, store, agent.Options{})
	snap, reqs := turn(t, rt, agent.RunOptions{}, "now only the late ones",
		llm.CallTool("late_orders", `{"orders":"<<var:orders>>"}`))
	if errs := failedCalls(snap); len(errs) > 0 {
		t.Fatalf("turn 2's calls failed: %v", errs)
	}
	system := reqs[0].Messages[0].Text
	if !strings.Contains(system, "Gone since an earlier turn (not usable):\n- db (*sessiontest.DB): a live value") {
		t.Errorf("the system prompt does not name db as gone:\n%s", system)
	}
	if _, ok := snap.Variable("db"); ok {
		t.Error("db is a variable of turn 2")
	}

	// With Options.Rebind, the host brings the handle back by name and type.
	var asked []string
	rt = chat(t, store, agent.Options{Rebind: func(_ context.Context, name, typ string) (any, bool) {
		asked = append(asked, name+" "+typ)
		return sessiontest.NewDB(9), name == "db" && typ == "*sessiontest.DB"
	}})
	snap, reqs = turn(t, rt, agent.RunOptions{}, "ping it", llm.CallTool("ping_db", `{"db":"<<var:db>>"}`))
	if errs := failedCalls(snap); len(errs) > 0 || strings.Contains(reqs[0].Messages[0].Text, "Gone") {
		t.Fatalf("db did not come back: %v\n%s", errs, reqs[0].Messages[0].Text)
	}
	if want := []string{"db *sessiontest.DB"}; !reflect.DeepEqual(asked, want) {
		t.Errorf("Rebind was asked %v, want %v", asked, want)
	}
}

func TestSessionOptOut(t *testing.T) {
	rt := chat(t, run.NewMemoryStore(), agent.Options{})
	turn(t, rt, agent.RunOptions{Variables: []variable.Spec{{Name: "request", Value: "r1", RunOnly: true}}},
		"load the orders", llm.CallTool("load_orders", `{}`))
	snap, _ := turn(t, rt, agent.RunOptions{}, "again")
	if _, ok := snap.Variable("request"); ok {
		t.Error("a run-only variable reached the next run")
	}
	if _, ok := snap.Variable("orders"); !ok {
		t.Error("orders did not reach the next run")
	}
	snap, _ = turn(t, rt, agent.RunOptions{NoSessionVariables: true}, "afresh")
	if len(snap.Variables) != 0 {
		t.Errorf("a run with NoSessionVariables started with %+v", snap.Variables)
	}
	// The run's own variables win over the session's.
	snap, _ = turn(t, rt, agent.RunOptions{Variables: []variable.Spec{{Name: "orders", Value: []sessiontest.Order{}}}}, "mine")
	if v, _ := snap.Variable("orders"); string(v.Value) != "[]" {
		t.Errorf("orders = %s, want the run's own []", v.Value)
	}
}

func TestSessionSecrets(t *testing.T) {
	derive := action.MustNew(action.Spec{Name: "derive", Description: "Derive a key.", Params: []action.Param{{Name: "token"}}, Func: func(token string) string { return "k-" + token }})
	rt, err := agent.New(agent.Options{Actions: action.MustSet(derive), Store: run.NewMemoryStore(),
		Variables: []variable.Spec{{Name: "token", Value: "s3cret", Secret: true}}})
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close(context.Background())
	turn(t, rt, agent.RunOptions{}, "derive", llm.CallTool("derive", `{"token":"<<var:token>>"}`))
	h, err := rt.Start(context.Background(), agent.RunOptions{Session: "chat", Task: "again", Model: llm.NewScripted(llm.Text("done"))})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	v, ok := h.State().Variable("derive_result")
	if !ok {
		t.Fatal("the derived variable did not reach the next run")
	}
	if !v.Tainted || v.Value != "k-s3cret" {
		t.Errorf("derived in the next run: tainted %v, value %v", v.Tainted, v.Value)
	}
	snap, _ := h.Snapshot(context.Background())
	if sv, _ := snap.Variable("derive_result"); sv.Value != nil || strings.Contains(sv.Preview, "s3cret") {
		t.Errorf("the next run's log shows the derived secret: %+v", sv)
	}

	// Another process on the store: the log has no value of the derived
	// secret; the host re-binds it, and it is still treated as a secret.
	rt2, err := agent.New(agent.Options{Actions: action.MustSet(derive), Store: rt.Store(),
		Variables: []variable.Spec{{Name: "token", Value: "s3cret", Secret: true}},
		Rebind:    func(_ context.Context, name, typ string) (any, bool) { return "k-s3cret", name == "derive_result" }})
	if err != nil {
		t.Fatal(err)
	}
	defer rt2.Close(context.Background())
	h, err = rt2.Start(context.Background(), agent.RunOptions{Session: "chat", Task: "once more", Model: llm.NewScripted(llm.Text("done"))})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	if v, ok := h.State().Variable("derive_result"); !ok || !v.Tainted || v.Value != "k-s3cret" {
		t.Errorf("derive_result after a restart: %+v, %v", v, ok)
	}
}

// TestSessionGone: a live value this process let go of (ForgetSession),
// or that Rebind gives back as another type, is named to the model as
// gone; the JSON one comes back from the log.
func TestSessionGone(t *testing.T) {
	rt := chat(t, run.NewMemoryStore(), agent.Options{Rebind: func(context.Context, string, string) (any, bool) { return "not a *DB", true }})
	turn(t, rt, agent.RunOptions{}, "load", llm.CallTool("load_orders", `{}`), llm.CallTool("open_db", `{}`))
	rt.ForgetSession("chat")
	snap, reqs := turn(t, rt, agent.RunOptions{}, "late", llm.CallTool("late_orders", `{"orders":"<<var:orders>>"}`))
	if errs := failedCalls(snap); len(errs) > 0 {
		t.Fatalf("orders did not come back from the log: %v", errs)
	}
	if system := reqs[0].Messages[0].Text; !strings.Contains(system, "- db (*sessiontest.DB): a live value") {
		t.Errorf("db is not named as gone:\n%s", system)
	}
}
