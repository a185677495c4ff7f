package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/byref/byref/action"
	"github.com/byref/byref/agent"
	"github.com/byref/byref/llm"
	"github.com/byref/byref/variable"
)

func TestRefOnlyActionHiddenUntilVariableExists(t *testing.T) {
	f := newFixture(t, agent.Options{Variables: []variable.Spec{{Name: "n", Value: 1}}})
	st := f.st
	offered := func() []string { return names(st.Tools()) }
	for _, hidden := range []string{"move", "describe", "switch_on"} {
		if slices.Contains(offered(), hidden) {
			t.Fatalf("%s offered with no *Thing or *Gadget variable", hidden)
		}
	}
	reasons := map[string]string{}
	for _, u := range st.Unavailable() {
		reasons[u.Action] = u.Reason
	}
	if r := reasons["describe"]; r != "describe: needs a *agent_test.Thing variable for parameter thing" {
		t.Fatalf("reason = %q", r)
	}
	resp := call(st, "describe", `{"thing":"<<var:thing>>"}`)
	if resp.Success || !strings.Contains(resp.Error, "first create one with new_thing") {
		t.Fatalf("error %q should name the action that creates a *Thing", resp.Error)
	}

	// The model creates one; the actions appear.
	if r := call(st, "new_thing", `{"name":"crate","return":null}`); !r.Success {
		t.Fatal(r.Error)
	}
	if !slices.Contains(offered(), "describe") || !slices.Contains(offered(), "move") {
		t.Fatalf("describe and move should be offered once a *Thing exists: %v", offered())
	}
	if got := st.Compatible("describe", "thing"); !slices.Equal(got, []string{"thing"}) {
		t.Fatalf("compatible = %v", got)
	}
	if slices.Contains(offered(), "switch_on") {
		t.Fatal("switch_on still needs a *Gadget")
	}

	// Deleting the variable hides them again.
	st.Delete("thing")
	if slices.Contains(offered(), "describe") {
		t.Fatal("describe offered after its only variable was deleted")
	}
}

func TestPlainModeHidesReferences(t *testing.T) {
	f := newFixture(t, agent.Options{HideFromAI: true})
	st := f.st
	for _, tool := range st.Tools() {
		s := string(tool.Parameters)
		if strings.Contains(s, "<<var:") || strings.Contains(s, "$defs") || strings.Contains(s, `"return"`) {
			t.Errorf("%s: plain schema mentions references: %s", tool.Name, s)
		}
		if tool.Name == "move" || tool.Name == "describe" {
			t.Errorf("%s takes a *Thing and must be left out in plain mode", tool.Name)
		}
	}
	var why string
	for _, u := range st.Unavailable() {
		if u.Action == "move" {
			why = u.Reason
		}
	}
	if !strings.Contains(why, "can only be passed by reference") {
		t.Fatalf("reason = %q", why)
	}
	resp := call(st, "get_weather", `{"location":"Paris","unit":"c"}`)
	if !resp.Success || string(resp.Result) != `"sunny, 21°C in Paris"` {
		t.Fatalf("plain response = %+v", resp)
	}
	if !strings.Contains(resp.Content(), `"result":"sunny, 21°C in Paris"`) {
		t.Fatalf("content = %s", resp.Content())
	}
	// A reference is just text in plain mode.
	resp = call(st, "get_weather", `{"location":"<<var:location>>","unit":"c"}`)
	if !resp.Success || !strings.Contains(string(resp.Result), "in <<var:location>>") {
		t.Fatalf("plain mode resolved a reference: %+v", resp)
	}
	if r := call(st, "get_weather", `{"location":"Paris","unit":"c","return":null}`); r.Success {
		t.Fatal("plain mode has no return property")
	}
}

func TestSchemaCacheRebuildsOnlyWhatChanged(t *testing.T) {
	f := newFixture(t, agent.Options{})
	st := f.st
	st.Tools()
	before := agent.SchemaBuilds(st)
	st.Tools()
	if got := agent.SchemaBuilds(st); got != before {
		t.Fatalf("a second Tools call rebuilt %d schemas", got-before)
	}
	// A new int variable changes double's n and every int-returning
	// action's return targets, and terminate's result; not get_weather.
	if err := st.Set("m", 7); err != nil {
		t.Fatal(err)
	}
	st.Tools()
	rebuilt := agent.SchemaBuilds(st) - before
	if rebuilt == 0 || rebuilt >= len(st.Tools()) {
		t.Fatalf("rebuilt %d of %d schemas after one int variable", rebuilt, len(st.Tools()))
	}
	// Replacing a value without changing its type rebuilds nothing.
	before = agent.SchemaBuilds(st)
	st.Set("m", 8)
	st.Tools()
	if got := agent.SchemaBuilds(st); got != before {
		t.Fatalf("same-type assignment rebuilt %d schemas", got-before)
	}
}

func TestVariableNamesAreChecked(t *testing.T) {
	f := newFixture(t, agent.Options{})
	for _, bad := range []string{"", "1x", "func", "len", "get_weather", "a b"} {
		if err := f.st.Set(bad, 1); err == nil {
			t.Errorf("Set(%q) succeeded", bad)
		}
	}
}

func TestOutputIsCapturedPerCall(t *testing.T) {
	f := newFixture(t, agent.Options{MaxOutput: 10})
	resp := call(f.st, "shout", `{"text":"hello"}`)
	if !resp.Success || resp.Stdout != "hello" {
		t.Fatalf("stdout = %q", resp.Stdout)
	}
	resp = call(f.st, "shout", `{"text":"hello, world, this is long"}`)
	if !strings.HasPrefix(resp.Stdout, "hello, wor") || !strings.Contains(resp.Stdout, "16 more bytes dropped") {
		t.Fatalf("bounded stdout = %q", resp.Stdout)
	}
	resp = call(f.st, "fails", `{}`)
	if resp.Stderr != "about to f\n[… 4 more bytes dropped]" {
		t.Fatalf("stderr of a failed call = %q", resp.Stderr)
	}
}

func TestSecretPreviewsAreRedacted(t *testing.T) {
	f := newFixture(t, agent.Options{})
	v, _ := f.st.Variable("api_key")
	if p := v.Preview(0); strings.Contains(p, "sk-secret") || p != "<secret string>" {
		t.Fatalf("preview = %q", p)
	}
	for _, c := range v.History {
		if strings.Contains(c.Preview, "sk-secret") {
			t.Fatalf("history leaks the secret: %+v", c)
		}
	}
	// Usable by reference all the same; what the action prints of it is
	// redacted before the model sees it.
	resp := call(f.st, "shout", `{"text":"<<var:api_key>>"}`)
	if !resp.Success || strings.Contains(resp.Stdout, "sk-secret") || !strings.Contains(resp.Stdout, "output hidden") {
		t.Fatalf("resp = %+v", resp)
	}
	// An action's error that quotes the secret is redacted too.
	resp = call(f.st, "double", `{"n":"<<var:api_key>>"}`)
	if resp.Success || strings.Contains(resp.Error, "sk-secret") {
		t.Fatalf("resp = %+v", resp)
	}
	leak := action.MustNew(action.Spec{Name: "leak", Func: func(s string) error { return errors.New("bad key " + s) }, Params: []action.Param{{Name: "s"}}})
	if err := f.st.AddActions(leak); err != nil {
		t.Fatal(err)
	}
	resp = call(f.st, "leak", `{"s":"<<var:api_key>>"}`)
	if resp.Success || strings.Contains(resp.Error, "sk-secret") || !strings.Contains(resp.Error, "error is hidden") {
		t.Fatalf("resp = %+v", resp)
	}
	if h := f.st.History(); strings.Contains(h[len(h)-1].Err, "sk-secret") {
		t.Fatal("the history keeps the secret")
	}
	resp = call(f.st, "get_weather", `{"location":"<<var:api_key>>","unit":"c","return":null}`)
	if w, _ := agent.Value[string](f.st, "weather"); !resp.Success || w != "sunny, 21°C in sk-secret" {
		t.Fatalf("the action did not get the secret's value: %+v %q", resp, w)
	}
}

// A secret's value never reaches the model, the event log or the result,
// even through a variable computed from it.
func TestSecretsDoNotLeakThroughDerivedValues(t *testing.T) {
	echo := action.MustNew(action.Spec{Name: "echo", Func: func(s string) string { return "got " + s }, Params: []action.Param{{Name: "s"}}})
	model := llm.NewScripted(
		llm.CallTool("echo", `{"s":"<<var:api_key>>","return":null}`),
		llm.CallTool("terminate", `{"success":true,"result":"<<var:echo_result>>"}`),
		llm.CallTool("terminate", `{"success":true,"result":"<<var:api_key>>"}`),
		llm.CallTool("terminate", `{"success":false,"result":"<<var:echo_result>>"}`),
	)
	rt, err := agent.New(agent.Options{Actions: action.MustSet(echo), Model: model,
		Variables: []variable.Spec{{Name: "api_key", Value: "sk-TOPSECRET", Secret: true}}})
	if err != nil {
		t.Fatal(err)
	}
	h, _ := rt.Start(context.Background(), agent.RunOptions{Task: "t", Limits: agent.Limits{ResultRetries: 5}})
	o, _ := h.Wait(context.Background())
	if strings.Contains(string(o.Result), "TOPSECRET") || strings.Contains(o.Reason, "TOPSECRET") {
		t.Fatalf("outcome = %+v", o)
	}
	for _, req := range model.Requests() {
		b, _ := json.Marshal(req)
		if strings.Contains(string(b), "TOPSECRET") {
			t.Fatalf("the model saw the secret: %s", b)
		}
	}
	for e, err := range h.Events(context.Background(), 1) {
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(e)
		if strings.Contains(string(b), "TOPSECRET") {
			t.Fatalf("the log holds the secret: %s", b)
		}
	}
}
