package agent_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/byref/byref/action"
	"github.com/byref/byref/agent"
	"github.com/byref/byref/llm"
	"github.com/byref/byref/run"
	"github.com/byref/byref/variable"
)

func snippetRuntime(t *testing.T) *agent.State {
	t.Helper()
	st, err := newState(agent.Options{
		Actions:     action.MustSet(weatherAction),
		CallTimeout: 300 * time.Millisecond,
		Variables: []variable.Spec{
			{Name: "city", Value: "Paris"},
			{Name: "n", Value: 1},
			{Name: "thing", Value: &Thing{Name: "box"}},
			{Name: "tags", Value: []string{"a", "b"}},
			{Name: "counts", Value: map[string]int{"x": 1}},
			{Name: "token", Value: "tok-12345", Secret: true},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func snippet(st *agent.State, code string) agent.SnippetResponse {
	return st.Execute(context.Background(), agent.Step{Snippets: []string{code}}).Snippets[0]
}

func changed(s agent.SnippetResponse) string {
	var parts []string
	for _, v := range s.Variables {
		parts = append(parts, v.Name+":"+v.Change)
	}
	return strings.Join(parts, " ")
}

func TestSnippetStateFlows(t *testing.T) {
	cases := []struct{ name, code, want string }{
		{"assign an existing variable", "n = n + 41", "n:assigned"},
		{"mutate through a pointer", "thing.X = 5", "thing:modified"},
		{"change a slice element", `tags[0] = "z"`, "tags:modified"},
		{"change a map entry", `counts["y"] = 2`, "counts:modified"},
		{"new top-level variable", `greeting := "hi " + city`, "greeting:created"},
		{"block-local variables do not leak", "if n > 0 {\n\tlocal := 3\n\t_ = local\n}\nfor i := 0; i < 2; i++ {\n\tinner := i\n\t_ = inner\n}", ""},
		{"shadowing does not assign", "{\n\tn := 100\n\t_ = n\n}", ""},
		{"reading changes nothing", "fmt.Println(len(city), thing.Name)", ""},
		{"an action called from code", `w := get_weather(city, "c")`, "w:created"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			st := snippetRuntime(t)
			s := snippet(st, c.code)
			if !s.Success {
				t.Fatalf("failed: %s", s.Error)
			}
			if got := changed(s); got != c.want {
				t.Fatalf("changes = %q, want %q", got, c.want)
			}
		})
	}
}

func TestSnippetFailureChangesNothing(t *testing.T) {
	st := snippetRuntime(t)
	before := len(st.Variables())
	for _, code := range []string{
		"n = 99\nthing.X = 7\npanic(\"stop\")",
		"n = \"not an int\"",
		"import \"os\"\nos.Exit(1)",
		"n = 5\nfor {}",
	} {
		s := snippet(st, code)
		if s.Success || s.Error == "" {
			t.Fatalf("%q succeeded", code)
		}
		if v, _ := agent.Value[int](st, "n"); v != 1 {
			t.Fatalf("%q changed n to %d", code, v)
		}
		if len(st.Variables()) != before {
			t.Fatalf("%q created variables", code)
		}
	}
	if s := snippet(st, "n++"); !s.Success {
		t.Fatalf("the runtime is unusable after failures: %s", s.Error)
	}
}

func TestSnippetCompileErrorNamesTheLine(t *testing.T) {
	st := snippetRuntime(t)
	s := snippet(st, "x := 1\ny := undefinedThing + x")
	if s.Success || !strings.Contains(s.Error, "2:") || !strings.Contains(s.Error, "undefinedThing") {
		t.Fatalf("error = %q", s.Error)
	}
}

func TestRunGoAction(t *testing.T) {
	st := snippetRuntime(t)
	resp := call(st, "run_go", `{"code":"big := strings.ToUpper(city)\nfmt.Println(big)"}`)
	if !resp.Success || resp.Stdout != "PARIS\n" || changed(agent.SnippetResponse{Variables: resp.Variables}) != "big:created" {
		t.Fatalf("resp = %+v", resp)
	}
	// A code fence inside the argument is tolerated.
	resp = call(st, "run_go", "{\"code\":\"```go\\nn = 2\\n```\"}")
	if !resp.Success {
		t.Fatalf("resp = %+v", resp)
	}
	if h := st.History(); h[len(h)-1].Kind != agent.KindSnippet || h[len(h)-1].CallID != "call_1" {
		t.Fatalf("history = %+v", h[len(h)-1])
	}
}

func TestSnippetOutputRedactsSecrets(t *testing.T) {
	st := snippetRuntime(t)
	s := snippet(st, "fmt.Println(token)")
	if !s.Success || strings.Contains(s.Stdout, "tok-12345") || !strings.Contains(s.Stdout, "output hidden") {
		t.Fatalf("stdout = %q", s.Stdout)
	}
}

func TestSnippetSeesContext(t *testing.T) {
	st := snippetRuntime(t)
	s := snippet(st, "alive := ctx.Err() == nil")
	if !s.Success {
		t.Fatal(s.Error)
	}
	if v, _ := agent.Value[bool](st, "alive"); !v {
		t.Fatal("ctx not usable")
	}
	if _, ok := st.Variable("ctx"); ok {
		t.Fatal("ctx leaked into the variables")
	}
}

func TestSnippetsDisabled(t *testing.T) {
	st, _ := newState(agent.Options{DisableSnippets: true})
	for _, tool := range st.Tools() {
		if tool.Name == "run_go" {
			t.Fatal("run_go offered with snippets disabled")
		}
	}
}

// A comparable struct holding a slice in an interface field must not crash
// the comparison of old and new values.
func TestSnippetUncomparableValue(t *testing.T) {
	type holder struct{ X any }
	st, _ := newState(agent.Options{Variables: []variable.Spec{{Name: "s", Value: holder{X: []int{1}}}}})
	if s := snippet(st, "s = s"); !s.Success {
		t.Fatalf("s = s failed: %s", s.Error)
	}
}

// A snippet's changes are kept all together or not at all.
func TestSnippetCommitIsAtomic(t *testing.T) {
	st := snippetRuntime(t)
	s := snippet(st, "fresh := 1\nlen := 3\n_ = len")
	if s.Success {
		t.Fatal("a snippet declaring len succeeded")
	}
	if _, ok := st.Variable("fresh"); ok {
		t.Fatal("a failed snippet created a variable")
	}
	h := st.History()
	if len(h) != 1 || h[0].OK() {
		t.Fatalf("history = %+v; want one failed instruction", h)
	}
}

// Actions called from a snippet get the snippet's deadline and write into
// its output.
func TestSnippetActionsGetTheDeadlineAndOutput(t *testing.T) {
	slow := action.MustNew(action.Spec{Name: "slow", Func: func(ctx context.Context) error {
		fmt.Fprint(action.Stdout(ctx), "working")
		<-ctx.Done()
		return ctx.Err()
	}})
	say := action.MustNew(action.Spec{Name: "say", Func: func(ctx context.Context, s string) { fmt.Fprint(action.Stdout(ctx), s) }, Params: []action.Param{{Name: "s"}}})
	st, _ := newState(agent.Options{Actions: action.MustSet(slow, say), CallTimeout: 200 * time.Millisecond})
	s := snippet(st, `say("hello from an action")`)
	if !s.Success || !strings.Contains(s.Stdout, "hello from an action") {
		t.Fatalf("snippet = %+v", s)
	}
	s = snippet(st, "err := slow()\nfmt.Println(err)")
	if s.Success && !strings.Contains(s.Stdout, "deadline exceeded") {
		t.Fatalf("the action did not see the snippet's deadline: %+v", s)
	}
}

// A snippet cannot call an action that needs approval where nobody can
// approve, and needs approval in a run whatever the strategy.
func TestSnippetCannotBypassNeedsApproval(t *testing.T) {
	paid := 0
	pay := action.MustNew(action.Spec{Name: "pay", Func: func(n int) int { paid += n; return paid }, Params: []action.Param{{Name: "n"}}, NeedsApproval: true})
	st, _ := newState(agent.Options{Actions: action.MustSet(pay)})
	if s := snippet(st, "pay(100)"); s.Success || !strings.Contains(s.Error, "needs a person's approval") || paid != 0 {
		t.Fatalf("snippet = %+v, paid %d", s, paid)
	}
	model := llm.NewScripted(llm.Text("```go\nx := pay(5)\n```"), llm.CallTool("terminate", `{"success":true,"result":"<<var:x>>"}`))
	rt2, _ := agent.New(agent.Options{Actions: action.MustSet(pay), Model: model})
	h, _ := rt2.Start(context.Background(), agent.RunOptions{Task: "t"})
	req := waitFor(t, h, 1)
	if req.Snippet == nil || !strings.Contains(req.Message, "pay") || paid != 0 {
		t.Fatalf("await = %+v, paid %d", req, paid)
	}
	resume(t, h, req.ID, run.Answer{Decision: run.Approved})
	if o := wait(t, h); string(o.Result) != "5" || paid != 5 {
		t.Fatalf("outcome = %+v, paid %d", o, paid)
	}
}
