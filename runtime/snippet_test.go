package runtime_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/byref/byref/action"
	"github.com/byref/byref/runtime"
	"github.com/byref/byref/variable"
)

func snippetRuntime(t *testing.T) *runtime.Runtime {
	t.Helper()
	rt, err := runtime.New(runtime.Options{
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
	return rt
}

func snippet(rt *runtime.Runtime, code string) runtime.SnippetResponse {
	return rt.Execute(context.Background(), runtime.Step{Snippets: []string{code}}).Snippets[0]
}

func changed(s runtime.SnippetResponse) string {
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
			rt := snippetRuntime(t)
			s := snippet(rt, c.code)
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
	rt := snippetRuntime(t)
	before := len(rt.Variables())
	for _, code := range []string{
		"n = 99\nthing.X = 7\npanic(\"stop\")",
		"n = \"not an int\"",
		"import \"os\"\nos.Exit(1)",
		"n = 5\nfor {}",
	} {
		s := snippet(rt, code)
		if s.Success || s.Error == "" {
			t.Fatalf("%q succeeded", code)
		}
		if v, _ := runtime.Value[int](rt, "n"); v != 1 {
			t.Fatalf("%q changed n to %d", code, v)
		}
		if len(rt.Variables()) != before {
			t.Fatalf("%q created variables", code)
		}
	}
	if s := snippet(rt, "n++"); !s.Success {
		t.Fatalf("the runtime is unusable after failures: %s", s.Error)
	}
}

func TestSnippetCompileErrorNamesTheLine(t *testing.T) {
	rt := snippetRuntime(t)
	s := snippet(rt, "x := 1\ny := undefinedThing + x")
	if s.Success || !strings.Contains(s.Error, "2:") || !strings.Contains(s.Error, "undefinedThing") {
		t.Fatalf("error = %q", s.Error)
	}
}

func TestRunGoAction(t *testing.T) {
	rt := snippetRuntime(t)
	resp := call(rt, "run_go", `{"code":"big := strings.ToUpper(city)\nfmt.Println(big)"}`)
	if !resp.Success || resp.Stdout != "PARIS\n" || changed(runtime.SnippetResponse{Variables: resp.Variables}) != "big:created" {
		t.Fatalf("resp = %+v", resp)
	}
	// A code fence inside the argument is tolerated.
	resp = call(rt, "run_go", "{\"code\":\"```go\\nn = 2\\n```\"}")
	if !resp.Success {
		t.Fatalf("resp = %+v", resp)
	}
	if h := rt.History(); h[len(h)-1].Kind != runtime.KindSnippet || h[len(h)-1].CallID != "call_1" {
		t.Fatalf("history = %+v", h[len(h)-1])
	}
}

func TestSnippetOutputRedactsSecrets(t *testing.T) {
	rt := snippetRuntime(t)
	s := snippet(rt, "fmt.Println(token)")
	if !s.Success || strings.Contains(s.Stdout, "tok-12345") || !strings.Contains(s.Stdout, "<secret string>") {
		t.Fatalf("stdout = %q", s.Stdout)
	}
}

func TestSnippetSeesContext(t *testing.T) {
	rt := snippetRuntime(t)
	s := snippet(rt, "alive := ctx.Err() == nil")
	if !s.Success {
		t.Fatal(s.Error)
	}
	if v, _ := runtime.Value[bool](rt, "alive"); !v {
		t.Fatal("ctx not usable")
	}
	if _, ok := rt.Variable("ctx"); ok {
		t.Fatal("ctx leaked into the variables")
	}
}

func TestSnippetsDisabled(t *testing.T) {
	rt, _ := runtime.New(runtime.Options{DisableSnippets: true})
	for _, tool := range rt.Tools() {
		if tool.Name == "run_go" {
			t.Fatal("run_go offered with snippets disabled")
		}
	}
}
