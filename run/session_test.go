package run_test

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/byref/byref/run"
)

// sessionLog is a run's log in session s: its creation, then events.
func sessionLog(id run.ID, parent run.ID, events ...run.Payload) []run.Event {
	out := []run.Event{{RunID: id, Seq: 1, Payload: run.RunCreated{Session: "s", ParentRun: parent}}}
	for i, p := range events {
		out = append(out, run.Event{RunID: id, Seq: int64(i + 2), Payload: p})
	}
	return out
}

func created(name, typ, value string, flags ...string) run.VariableCreated {
	c := run.VariableCreated{Step: 1, Variable: run.VariableInfo{Name: name, Type: typ, Preview: value}}
	if value != "" {
		c.Value = json.RawMessage(value)
	}
	for _, f := range flags {
		switch f {
		case "secret":
			c.Secret, c.Value = true, nil
		case "run-only":
			c.RunOnly = true
		}
	}
	return c
}

// TestFoldSession: the latest run to touch a variable gives its state, a
// run-only variable takes its name out, child runs are not folded, and the
// messages are the users' and the results.
func TestFoldSession(t *testing.T) {
	s := run.FoldSession("s",
		sessionLog("r1", "", run.UserMessage{Text: "load"}, created("orders", "[]int", "[1,2]"), created("token", "string", "", "secret"),
			created("req", "string", `"a"`), run.Result{Value: json.RawMessage(`"loaded"`)}),
		sessionLog("c1", "r1", created("orders", "[]int", "[9]")),
		sessionLog("r2", "", run.UserMessage{Text: "late"}, run.VariableModified(created("orders", "[]int", "[2]")),
			created("req", "string", `"b"`, "run-only"), run.Result{Value: json.RawMessage(`{"n":1}`)}),
	)
	if want := []run.ID{"r1", "r2"}; !reflect.DeepEqual(s.Runs, want) {
		t.Errorf("runs %v, want %v", s.Runs, want)
	}
	var names []string
	for _, v := range s.Variables {
		names = append(names, v.Name)
	}
	if want := []string{"orders", "token"}; !reflect.DeepEqual(names, want) {
		t.Errorf("variables %v, want %v", names, want)
	}
	if v, _ := s.Variable("orders"); v.Run != "r2" || string(v.Value) != "[2]" {
		t.Errorf("orders: %+v", v)
	}
	if v, _ := s.Variable("token"); !v.Secret || v.Value != nil || v.Run != "r1" {
		t.Errorf("token: %+v", v)
	}
	want := []run.SessionMessage{{Run: "r1", Role: "user", Text: "load"}, {Run: "r1", Role: "assistant", Text: "loaded"},
		{Run: "r2", Role: "user", Text: "late"}, {Run: "r2", Role: "assistant", Text: `{"n":1}`}}
	if !reflect.DeepEqual(s.Messages, want) {
		t.Errorf("messages %+v, want %+v", s.Messages, want)
	}
}

// TestLoadSession folds a session's runs from a store, oldest first, but
// the one skipped; a session without runs has none.
func TestLoadSession(t *testing.T) {
	ctx := context.Background()
	st := run.NewMemoryStore()
	for _, id := range []run.ID{"a", "b", "c"} {
		if _, _, err := st.Create(ctx, run.Event{RunID: id, Payload: run.RunCreated{Session: "s"}}); err != nil {
			t.Fatal(err)
		}
		if _, err := st.Append(ctx, id, 1, run.Event{Payload: created("x", "string", `"`+string(id)+`"`)}); err != nil {
			t.Fatal(err)
		}
	}
	s, err := run.LoadSession(ctx, st, "s", "c")
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := s.Variable("x"); !reflect.DeepEqual(s.Runs, []run.ID{"a", "b"}) || string(v.Value) != `"b"` {
		t.Errorf("runs %v, x %+v", s.Runs, v)
	}
	if s, err := run.LoadSession(ctx, st, "none", ""); err != nil || len(s.Runs) != 0 {
		t.Errorf("an empty session: %+v, %v", s, err)
	}
}
