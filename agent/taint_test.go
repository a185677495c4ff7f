package agent_test

import (
	"context"
	"strings"
	"testing"

	"github.com/byref/byref/action"
	"github.com/byref/byref/agent"
	"github.com/byref/byref/llm"
	"github.com/byref/byref/variable"
)

const taintSecret = "pa55-w0rd-xyzzy"

var (
	shoutAction = action.MustNew(action.Spec{Name: "shout", Description: "Upper-case the text.", Func: strings.ToUpper, Params: []action.Param{{Name: "text"}}})
	loginAction = action.MustNew(action.Spec{Name: "login", Description: "Log in; returns a session ID.", Declassifies: true,
		Func: func(pw string) string { return "session-" + strings.Repeat("7", len(pw)) }, Params: []action.Param{{Name: "password"}}})
)

func taintRuntime(t *testing.T, model llm.Model) *agent.Agent {
	t.Helper()
	rt, err := agent.New(agent.Options{Model: model, Actions: action.MustSet(shoutAction, loginAction),
		Variables: []variable.Spec{{Name: "pw", Value: taintSecret, Secret: true}, {Name: "city", Value: "Paris"}}})
	if err != nil {
		t.Fatal(err)
	}
	return rt
}

// runTaint runs a task to its end and returns the outcome and the run's
// state.
func runTaint(t *testing.T, rt *agent.Agent, task string) (agent.Outcome, *agent.State) {
	t.Helper()
	h, err := rt.Start(context.Background(), agent.RunOptions{Task: task})
	if err != nil {
		t.Fatal(err)
	}
	o, err := h.Wait(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return o, h.State()
}

func taintState(t *testing.T) *agent.State {
	t.Helper()
	st, err := taintRuntime(t, nil).NewState()
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// A derived value is hidden like the secret, usable by reference, and
// readable by the host in Go; a tainted result stays with the host.
func TestTaintFollowsTheData(t *testing.T) {
	model := llm.NewScripted(
		llm.CallTool("shout", `{"text":"<<var:pw>>","return":null}`),
		llm.CallTool("shout", `{"text":"<<var:shout_result>>","return":null}`),
		llm.CallTool("shout", `{"text":"<<var:city>>","return":null}`),
		llm.CallTool("terminate", `{"success":true,"result":"<<var:shout_result_2>>"}`),
	)
	o, st := runTaint(t, taintRuntime(t, model), "go")
	if o.Status != "completed" || !o.Redacted || o.ResultVariable != "shout_result_2" || string(o.Result) != "null" {
		t.Fatalf("outcome = %+v", o)
	}
	for name, want := range map[string]bool{"shout_result": true, "shout_result_2": true, "shout_result_3": false, "city": false} {
		v, ok := st.Variable(name)
		if !ok || v.Tainted != want {
			t.Errorf("%s: tainted = %v, want %v", name, v.Tainted, want)
		}
	}
	// The host reads every value in Go.
	if got, err := agent.Value[string](st, o.ResultVariable); err != nil || got != strings.ToUpper(strings.ToUpper(taintSecret)) {
		t.Fatalf("the host reads %q, %v", got, err)
	}
	if v, _ := agent.Value[string](st, "shout_result_3"); v != "PARIS" {
		t.Fatalf("a clean result is %q", v)
	}
	for i, req := range model.Requests() {
		for _, m := range req.Messages {
			if strings.Contains(strings.ToLower(m.Text), "pa55") {
				t.Errorf("request %d shows the secret: %s", i+1, m.Text)
			}
		}
	}
	last := model.Requests()[3].Messages
	if !strings.Contains(last[len(last)-1].Text, "PARIS") {
		t.Errorf("a clean result is hidden: %s", last[len(last)-1].Text)
	}
}

// An action that declassifies its result shows it, though it was given the
// secret.
func TestDeclassifiedResultIsVisible(t *testing.T) {
	model := llm.NewScripted(
		llm.CallTool("login", `{"password":"<<var:pw>>","return":null}`),
		llm.CallTool("terminate", `{"success":true,"result":"<<var:login_result>>"}`),
	)
	o, st := runTaint(t, taintRuntime(t, model), "log in")
	want := `"session-` + strings.Repeat("7", len(taintSecret)) + `"`
	if o.Redacted || string(o.Result) != want {
		t.Fatalf("outcome = %+v, want result %s", o, want)
	}
	reqs := model.Requests()
	last := reqs[len(reqs)-1].Messages
	if !strings.Contains(last[len(last)-1].Text, "session-777") {
		t.Fatalf("the model does not see the declassified result: %s", last[len(last)-1].Text)
	}
	if v, _ := st.Variable("login_result"); v.Tainted {
		t.Fatal("a declassified result is tainted")
	}
}

// A snippet that read a secret taints what it wrote, and its output is
// hidden; one that did not is untouched.
func TestSnippetTaint(t *testing.T) {
	st := taintState(t)
	s := snippet(st, "n := len(pw)\nfmt.Println(n)")
	if !s.Success || strings.Contains(s.Stdout, "15") || !strings.Contains(s.Stdout, "hidden") {
		t.Fatalf("resp = %+v", s)
	}
	if v, _ := st.Variable("n"); !v.Tainted || v.Preview(0) != "<int derived from a secret>" {
		t.Fatalf("n = %+v", v)
	}
	s = snippet(st, "m := len(city)\nfmt.Println(m)")
	if !s.Success || s.Stdout != "5\n" {
		t.Fatalf("resp = %+v", s)
	}
	if v, _ := st.Variable("m"); v.Tainted {
		t.Fatal("a clean snippet's variable is tainted")
	}
}

func TestRedactorCatchesEncodingsOfTheSecret(t *testing.T) {
	st := taintState(t)
	// A raw string the model typed is not derived from anything, but the
	// second line of defence hides the secret's encodings in it.
	s := snippet(st, `fmt.Println("`+strings.ToUpper(taintSecret)+`")`)
	if strings.Contains(s.Stdout, strings.ToUpper(taintSecret)) {
		t.Fatalf("stdout = %q", s.Stdout)
	}
}
