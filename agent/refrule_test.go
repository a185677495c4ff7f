package agent_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/byref/byref/action"
	"github.com/byref/byref/agent"
	"github.com/byref/byref/interp"
	"github.com/byref/byref/llm"
	"github.com/byref/byref/run"
	"github.com/byref/byref/schema"
)

// The strict reference rule, "return" and duplicate keys: each bad call is
// refused with what is wrong and the fix, changes nothing, and reaches the
// host as a *agent.RefusedError.
func TestBadCallsStrict(t *testing.T) {
	const exact = "exactly <<var:NAME>>"
	compatible := "compatible variables: <<var:language>>, <<var:location>>"
	cases := []struct {
		name, action, args string
		want               []string
	}{
		{"other case of the prefix", "get_weather", `{"location":"<<VAR:location>>","unit":"c"}`, []string{`"<<VAR:location>>" is not a reference`, exact, compatible}},
		{"mixed case of the prefix", "get_weather", `{"location":"<<Var:location>>","unit":"c"}`, []string{"is not a reference", exact}},
		{"space before the colon", "get_weather", `{"location":"<<var :location>>","unit":"c"}`, []string{"is not a reference", exact, compatible}},
		{"space after the brackets", "get_weather", `{"location":"<< var:location>>","unit":"c"}`, []string{"is not a reference", exact}},
		{"space before the closing brackets", "get_weather", `{"location":"<<var:location >>","unit":"c"}`, []string{"is not a reference", exact}},
		{"curly brackets", "get_weather", `{"location":"{{var:location}}","unit":"c"}`, []string{`"{{var:location}}" is not a reference`, exact, compatible}},
		{"square brackets", "get_weather", `{"location":"[[var:location]]","unit":"c"}`, []string{"is not a reference", exact}},
		{"single angle brackets", "get_weather", `{"location":"<var:location>","unit":"c"}`, []string{"is not a reference", exact}},
		{"parentheses", "get_weather", `{"location":"(var:location)","unit":"c"}`, []string{"is not a reference", exact}},
		{"dollar prefix", "get_weather", `{"location":"$var:location","unit":"c"}`, []string{"is not a reference", exact}},
		{"another prefix", "get_weather", `{"location":"<<ref:location>>","unit":"c"}`, []string{"is not a reference", exact, compatible}},
		{"no prefix", "get_weather", `{"location":"<<location>>","unit":"c"}`, []string{"is not a reference", exact}},
		{"empty name", "get_weather", `{"location":"<<var:>>","unit":"c"}`, []string{"is not a reference", exact}},
		{"name that is not an identifier", "get_weather", `{"location":"<<var:1city>>","unit":"c"}`, []string{"is not a reference", exact}},
		{"text after", "get_weather", `{"location":"<<var:location>> please","unit":"c"}`, []string{"is not a reference", "text around it", compatible}},
		{"text before", "get_weather", `{"location":"in <<var:location>>","unit":"c"}`, []string{"is not a reference", exact}},
		{"a newline after", "get_weather", `{"location":"<<var:location>>\n","unit":"c"}`, []string{"is not a reference", exact}},
		{"two references", "get_weather", `{"location":"<<var:location>><<var:language>>","unit":"c"}`, []string{"is not a reference", exact}},
		{"two references with text", "get_weather", `{"location":"<<var:location>> and <<var:language>>","unit":"c"}`, []string{"is not a reference", exact}},
		{"look-alike for an int", "double", `{"n":"<< var:n >>"}`, []string{`parameter "n" of double`, "is not a reference", "compatible variables: <<var:n>>"}},
		{"exact reference in another case of name", "get_weather", `{"location":"<<var:Location>>","unit":"c"}`, []string{"<<var:Location>> is not a variable", `compatible variables for "location" are: <<var:language>>, <<var:location>>`}},
		{"look-alike in an enum is text", "get_weather", `{"location":"Paris","unit":"{{var:language}}"}`, []string{`parameter "unit"`, `one of "c", "f"`}},
		{"duplicate key", "get_weather", `{"location":"Paris","location":"Lyon","unit":"c"}`, []string{`the key "location" appears more than once`, "send each parameter once"}},
		{"duplicate key, same value", "get_weather", `{"location":"Paris","unit":"c","unit":"c"}`, []string{`the key "unit" appears more than once`}},
		{"duplicate key, escaped", "get_weather", `{"location":"Paris","\u006cocation":"Lyon","unit":"c"}`, []string{`the key "location" appears more than once`}},
		{"duplicate return", "get_weather", `{"location":"Paris","unit":"c","return":null,"return":"location"}`, []string{`the key "return" appears more than once`}},
		{"return as a reference", "get_weather", `{"location":"Paris","unit":"c","return":"<<var:location>>"}`, []string{`"return" takes a variable's bare name, not a reference`, `send "location"`, "null to create a new variable", "language, location"}},
		{"return as a look-alike", "get_weather", `{"location":"Paris","unit":"c","return":"{{var:location}}"}`, []string{`"return" takes a variable's bare name`, "language, location"}},
		{"return as another case", "get_weather", `{"location":"Paris","unit":"c","return":"<<VAR:location>>"}`, []string{`"return" takes a variable's bare name`}},
		{"return as an empty string", "get_weather", `{"location":"Paris","unit":"c","return":""}`, []string{`"" is not a variable name`, "pass null"}},
	}
	if len(cases) < 20 {
		t.Fatalf("only %d cases", len(cases))
	}
	f := newFixture(t, optsDefault())
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := capture(f)
			resp := call(f.st, c.action, c.args)
			if resp.Success {
				t.Fatalf("call succeeded; want an error containing %q", c.want)
			}
			for _, w := range c.want {
				if !strings.Contains(resp.Error, w) {
					t.Errorf("error %q\ndoes not contain %q", resp.Error, w)
				}
			}
			var refused *agent.RefusedError
			if !errors.As(resp.Err, &refused) || !errors.Is(resp.Err, agent.ErrRefused) || refused.Action != c.action || refused.Error() != resp.Error {
				t.Errorf("Err = %#v, want a *RefusedError with the model's text", resp.Err)
			}
			capture(f).equal(t, before)
		})
	}
}

// Exact references, and text that only mentions the syntax where no
// reference can go, are accepted.
func TestReferenceRuleAccepts(t *testing.T) {
	f := newFixture(t, optsDefault())
	if r := call(f.st, "get_weather", `{"location":"<<var:location>>","unit":"c","return":null}`); !r.Success {
		t.Fatal(r.Error)
	}
	if r := call(f.st, "get_weather", `{"location":"Paris: the city","unit":"c","return":"location"}`); !r.Success {
		t.Fatal(r.Error)
	}
	// run_go's code is raw-only text: it may hold the syntax.
	r := call(f.st, agent.RunGoName, `{"code":"s := \"<<var:x>> and {{var:y}}\"\nfmt.Println(s)"}`)
	if !r.Success || !strings.Contains(r.Stdout, "<<var:x>> and {{var:y}}") {
		t.Fatalf("run_go: %+v", r)
	}
	for _, s := range []string{"Paris", "a: b", "x < y", "10:30", "https://example.com/a?b=c", "<b>bold</b>", "a << 2"} {
		if schema.ResemblesRef(s) {
			t.Errorf("%q resembles a reference", s)
		}
	}
}

// A step's failures reach the host typed, through errors.Is and errors.As,
// while the model gets their text.
func TestTypedFailures(t *testing.T) {
	f := newFixture(t, optsDefault())
	res := f.st.Execute(context.Background(), agent.Step{
		Snippets: []string{"x := 1 +"},
		Calls: []agent.ToolCall{
			{ID: "1", Name: "fails", Arguments: `{}`},
			{ID: "2", Name: "boom", Arguments: `{}`},
			{ID: "3", Name: "hang", Arguments: `{}`},
			{ID: "4", Name: "get_weather", Arguments: `{"location":"<<var:nowhere>>","unit":"c"}`},
		},
	})
	var ce *interp.CompileError
	if s := res.Snippets[0]; s.Success || !errors.As(s.Err, &ce) || ce.Line != 1 {
		t.Errorf("snippet Err = %#v", s.Err)
	}
	var ae *agent.ActionError
	if r := res.Responses[0]; !errors.As(r.Err, &ae) || ae.Action != "fails" || ae.Err.Error() != "the backend is down" || r.Error != ae.Error() {
		t.Errorf("fails: Err = %#v", r.Err)
	}
	var pe *action.PanicError
	if r := res.Responses[1]; !errors.As(r.Err, &pe) || pe.Value != "kaboom" {
		t.Errorf("boom: Err = %#v", r.Err)
	}
	if r := res.Responses[2]; !errors.Is(r.Err, agent.ErrCallTimeout) {
		t.Errorf("hang: Err = %#v", r.Err)
	}
	if r := res.Responses[3]; !errors.Is(r.Err, agent.ErrRefused) {
		t.Errorf("bad reference: Err = %#v", r.Err)
	}
	if strings.Contains(res.Responses[0].Content(), "Err") {
		t.Errorf("the typed error leaked into the model's content: %s", res.Responses[0].Content())
	}
}

// The log records each call's resolution: a reference (with its type), a
// raw value, a default, and the return target; the result's variable too.
func TestResolutionIsRecorded(t *testing.T) {
	optional := action.MustNew(action.Spec{
		Name: "greet", Func: func(name, greeting string) string { return greeting + ", " + name },
		Params: []action.Param{{Name: "name"}, {Name: "greeting", Optional: true, Default: "Hello"}},
	})
	model := llm.NewScripted(
		llm.CallTools(
			llm.ToolCall{ID: "c1", Name: "greet", Arguments: `{"name":"<<var:city>>","greeting":null,"return":null}`},
			llm.ToolCall{ID: "c2", Name: "greet", Arguments: `{"name":"Ada","greeting":"Hi","return":"greet_result"}`},
		),
		llm.CallTool("terminate", `{"success":true,"result":"<<var:greet_result>>"}`),
	)
	rt := newAgent(t, model, agent.Options{Actions: action.MustSet(optional)})
	h, _ := rt.Start(context.Background(), agent.RunOptions{Task: "t"})
	if o := wait(t, h); string(o.Result) != `"Hi, Ada"` {
		t.Fatalf("outcome = %+v", o)
	}
	var got []run.ToolCallCompleted
	for _, e := range events(t, h) {
		if c, ok := e.Payload.(run.ToolCallCompleted); ok && c.CallID != "" {
			got = append(got, c)
		}
	}
	first, second := got[0].Resolution, got[1].Resolution
	if first == nil || second == nil {
		t.Fatalf("no resolution recorded: %+v", got)
	}
	if a := first.Args; len(a) != 2 || a[0].Param != "name" || a[0].Ref != "city" || a[0].Type != "string" || !a[1].Default || first.Target != "" || got[0].Result != "greet_result" {
		t.Errorf("first call: %+v, result %q", first, got[0].Result)
	}
	if a := second.Args; string(a[0].Raw) != `"Ada"` || string(a[1].Raw) != `"Hi"` || second.Target != "greet_result" || got[1].Result != "greet_result" {
		t.Errorf("second call: %+v", second)
	}
	snap, _ := h.Snapshot(context.Background())
	if snap.ToolCalls[0].Resolution == nil || snap.ToolCalls[0].Resolution.Args[0].Ref != "city" {
		t.Errorf("the snapshot lacks the resolution: %+v", snap.ToolCalls[0])
	}
}

// An action that honours its context is stopped through it: it fails
// with its deadline.
func TestCallsStopThroughTheirContext(t *testing.T) {
	wait := action.MustNew(action.Spec{Name: "wait", Func: func(ctx context.Context) error {
		<-ctx.Done()
		return ctx.Err()
	}})
	st, err := newState(agent.Options{Actions: action.MustSet(wait), CallTimeout: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	r := call(st, "wait", `{}`)
	var ae *agent.ActionError
	if r.Success || !errors.As(r.Err, &ae) || !errors.Is(r.Err, context.DeadlineExceeded) {
		t.Fatalf("resp = %+v", r)
	}
}
