package browser_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/byref/byref/agent"
	"github.com/byref/byref/browser"
	"github.com/byref/byref/variable"
)

func toolNames(rt *agent.State) []string {
	var names []string
	for _, t := range rt.Tools() {
		names = append(names, t.Name)
	}
	return names
}

// With the browser actions registered and no browser variable, the model is
// offered only browser_start; every other action says it needs a browser.
func TestAvailability(t *testing.T) {
	rt, err := newState(agent.Options{Actions: browser.Actions()})
	if err != nil {
		t.Fatal(err)
	}
	names := toolNames(rt)
	for _, n := range names {
		if strings.HasPrefix(n, "browser_") || strings.HasPrefix(n, "computer_") {
			if n != "browser_start" {
				t.Errorf("%s is offered with no browser variable", n)
			}
		}
	}
	if !slices.Contains(names, "browser_start") {
		t.Errorf("browser_start is not offered: %v", names)
	}
	un := rt.Unavailable()
	if want := browser.Actions().Len() - 1; len(un) != want {
		t.Errorf("%d unavailable actions, want %d: %v", len(un), want, un)
	}
	for _, u := range un {
		if !strings.Contains(u.Reason, "*browser.Browser") || !strings.Contains(u.Reason, "browser") {
			t.Errorf("%s: reason %q does not name the browser type", u.Action, u.Reason)
		}
	}

	// A browser variable makes them all available, without starting one:
	// availability is about types.
	if err := rt.SetVar(variable.Spec{Name: "web", Value: (*browser.Browser)(nil)}); err != nil {
		t.Fatal(err)
	}
	if got := len(rt.Unavailable()); got != 0 {
		t.Errorf("with a browser variable, %d actions are unavailable: %v", got, rt.Unavailable())
	}

	// The browser parameter is reference-only: its schema offers only the
	// reference pattern (the variables are named in the messages).
	for _, tool := range rt.Tools() {
		if tool.Name != "browser_click" {
			continue
		}
		var s struct {
			Properties map[string]json.RawMessage `json:"properties"`
		}
		if err := json.Unmarshal(tool.Parameters, &s); err != nil {
			t.Fatal(err)
		}
		p := string(s.Properties["browser"])
		if !strings.Contains(p, `"pattern":`) || strings.Contains(p, "anyOf") || strings.Contains(p, "enum") {
			t.Errorf("browser parameter schema = %s", p)
		}
	}
}

// step runs one call and returns its response.
func step(t *testing.T, rt *agent.State, ctx context.Context, name, args string) agent.ToolResponse {
	t.Helper()
	res := rt.Execute(ctx, agent.Step{Calls: []agent.ToolCall{{ID: name, Name: name, Arguments: args}}})
	return res.Responses[0]
}

func mustStep(t *testing.T, rt *agent.State, ctx context.Context, name, args string) agent.ToolResponse {
	t.Helper()
	r := step(t, rt, ctx, name, args)
	if !r.Success {
		t.Fatalf("%s(%s) failed: %s", name, args, r.Error)
	}
	return r
}

// A scripted sequence of calls, as a model would make them, drives a browser
// held in a variable by reference.
func TestRuntimeScriptedSequence(t *testing.T) {
	needChromiumT(t)
	ctx := context.Background()
	rt, err := newState(agent.Options{Actions: browser.NewActions(testOptions()), CallTimeout: 20 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	rt.SetVar(variable.Spec{Name: "password", Value: "hunter22", Secret: true})

	web, r := created(t, rt, ctx, "browser_start", `{"url": "`+site("/form")+`", "return": null}`)
	b, err := agent.Value[*browser.Browser](rt, web)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if !strings.HasPrefix(r.Variables[0].Preview, "Browser at "+site("/form")) {
		t.Errorf("variables = %+v", r.Variables)
	}
	if names := toolNames(rt); !slices.Contains(names, "browser_click") {
		t.Errorf("browser_click not offered once a browser exists: %v", names)
	}
	// The model refers to the browser by the name it got back.
	ref := strings.NewReplacer("WEB", "<<var:"+web+">>")
	do := func(name, args string) agent.ToolResponse {
		t.Helper()
		return mustStep(t, rt, ctx, name, ref.Replace(args))
	}
	snapshot := func() (*browser.Snapshot, agent.ToolResponse) {
		t.Helper()
		name, r := created(t, rt, ctx, "browser_snapshot", ref.Replace(`{"browser": "WEB", "return": null}`))
		s, err := agent.Value[*browser.Snapshot](rt, name)
		if err != nil {
			t.Fatal(err)
		}
		return s, r
	}

	snap, r := snapshot()
	if !strings.Contains(r.Stdout, `textbox "Email"`) || !strings.Contains(r.Stdout, `button "Sign in"`) {
		t.Errorf("snapshot stdout = %q", r.Stdout)
	}
	email, pw := idOf(t, snap, "Email"), idOf(t, snap, "Password")

	do("browser_type_id", `{"browser": "WEB", "id": "`+email+`", "text": "ann@example.com", "return": null}`)
	do("browser_type", `{"browser": "WEB", "selector": "#pw", "text": "<<var:password>>", "return": null}`)
	// The browser was given the secret: from now on it is tainted, and so
	// is all it reads. The model sees no output; the host reads it in Go.
	snap, r = snapshot()
	if strings.Contains(r.Stdout, "hunter22") || !strings.Contains(r.Stdout, "output hidden") {
		t.Errorf("the snapshot after typing the secret shows: %q", r.Stdout)
	}
	if text := snap.String(); strings.Contains(text, "hunter22") || !strings.Contains(text, `textbox "Password" value="••••"`) {
		t.Errorf("the password leaks or is not shown as set: %q", text)
	}
	if id := idOf(t, snap, "Password"); id != pw {
		t.Errorf("the password field's ID changed from %s to %s", pw, id)
	}
	r = do("browser_click", `{"browser": "WEB", "selector": "#go", "return": null}`)
	if len(r.Variables) != 1 || r.Variables[0].Name != web || r.Variables[0].Change != string(variable.Modified) {
		t.Errorf("the click did not report the browser as modified: %+v", r.Variables)
	}
	do("browser_wait", `{"browser": "WEB", "selector": "#msg", "timeout_seconds": 5, "return": null}`)
	msgVar, r := created(t, rt, ctx, "browser_text", ref.Replace(`{"browser": "WEB", "selector": "#msg", "return": null}`))
	msg, _ := agent.Value[string](rt, msgVar)
	if msg != "Signed in as ann@example.com with 8 characters" {
		t.Errorf("msg = %q", msg)
	}
	if strings.Contains(r.Content(), "hunter22") {
		t.Error("the secret reached a tool response")
	}
	infoVar, _ := created(t, rt, ctx, "browser_eval", ref.Replace(`{"browser": "WEB", "js": "({title: document.title, n: 2})", "return": null}`))
	info, _ := agent.Value[any](rt, infoVar)
	if m, ok := info.(map[string]any); !ok || m["title"] != "Done" || m["n"] != 2.0 {
		t.Errorf("info = %#v", info)
	}
	_, r = created(t, rt, ctx, "browser_screenshot", ref.Replace(`{"browser": "WEB", "return": null}`))
	if r.Variables[0].Preview != "<browser.Screenshot derived from a secret>" {
		t.Errorf("screenshot preview = %q", r.Variables[0].Preview)
	}
	r = step(t, rt, ctx, "browser_eval", ref.Replace(`{"browser": "WEB", "js": "null.x", "return": null}`))
	if r.Success || strings.Contains(r.Error, "TypeError") || !strings.Contains(r.Error, "error is hidden") {
		t.Errorf("a JavaScript exception: %+v", r)
	}
	do("browser_back", `{"browser": "WEB", "return": null}`)
	r = do("browser_close", `{"browser": "WEB", "return": null}`)
	if len(r.Variables) != 1 || r.Variables[0].Preview != "<*browser.Browser derived from a secret>" {
		t.Errorf("after close: %+v", r.Variables)
	}
}

// created runs a call that creates a variable and returns its name.
func created(t *testing.T, rt *agent.State, ctx context.Context, name, args string) (string, agent.ToolResponse) {
	t.Helper()
	r := mustStep(t, rt, ctx, name, args)
	if len(r.Variables) == 0 || r.Variables[0].Change != string(variable.Created) {
		t.Fatalf("%s created no variable: %+v", name, r.Variables)
	}
	return r.Variables[0].Name, r
}

func idOf(t *testing.T, s *browser.Snapshot, name string) string {
	t.Helper()
	for _, e := range s.Elements {
		if e.Name == name {
			return e.ID
		}
	}
	t.Fatalf("no element named %q in %s", name, s)
	return ""
}

// A selector that never appears fails that call with a timeout naming the
// selector, and the runtime and the browser stay usable.
func TestRuntimeWaitTimeout(t *testing.T) {
	needChromiumT(t)
	b := sharedTab(t)
	rt, err := newState(agent.Options{
		Actions:     browser.NewActions(testOptions()),
		Variables:   []variable.Spec{{Name: "web", Value: b}},
		CallTimeout: 2 * time.Second,
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	mustStep(t, rt, ctx, "browser_goto", `{"browser": "<<var:web>>", "url": "`+site("/")+`", "return": null}`)
	for _, c := range []struct{ name, args string }{
		{"browser_wait", `{"browser": "<<var:web>>", "selector": "#never", "timeout_seconds": 30, "return": null}`},
		{"browser_click", `{"browser": "<<var:web>>", "selector": "#never", "return": null}`},
		{"browser_wait", `{"browser": "<<var:web>>", "selector": "#never", "timeout_seconds": 0.5, "return": null}`},
	} {
		start := time.Now()
		r := step(t, rt, ctx, c.name, c.args)
		if r.Success || !strings.Contains(r.Error, `"#never"`) || !strings.Contains(r.Error, "timed out") {
			t.Errorf("%s: %+v; want a failure naming #never and the timeout", c.name, r)
		}
		if d := time.Since(start); d > 2500*time.Millisecond {
			t.Errorf("%s took %v", c.name, d)
		}
	}
	_, r := created(t, rt, ctx, "browser_text", `{"browser": "<<var:web>>", "selector": "h1", "return": null}`)
	if r.Variables[0].Preview != `Welcome` {
		t.Errorf("after the timeouts: %+v", r.Variables)
	}
}

// Two browsers and two tabs live side by side as variables.
func TestRuntimeSeveralBrowsers(t *testing.T) {
	needChromiumT(t)
	ctx := context.Background()
	rt, err := newState(agent.Options{Actions: browser.NewActions(testOptions()), CallTimeout: 20 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	a, _ := created(t, rt, ctx, "browser_start", `{"url": "`+site("/")+`", "return": null}`)
	b, _ := created(t, rt, ctx, "browser_start", `{"url": "`+site("/table")+`", "return": null}`)
	for _, name := range []string{a, b} {
		bv, _ := agent.Value[*browser.Browser](rt, name)
		defer bv.Close()
	}
	a2, _ := created(t, rt, ctx, "browser_new_tab", `{"browser": "<<var:`+a+`>>", "url": "`+site("/form")+`", "return": null}`)
	b2, _ := created(t, rt, ctx, "browser_new_tab", `{"browser": "<<var:`+b+`>>", "url": "`+site("/keys")+`", "return": null}`)
	want := map[string]string{a: "Home", b: "Prices", a2: "Sign in", b2: "Keys"}
	for name, title := range want {
		r := mustStep(t, rt, ctx, "browser_eval", `{"browser": "<<var:`+name+`>>", "js": "document.title", "return": null}`)
		v, _ := agent.Value[any](rt, r.Variables[0].Name)
		if v != title {
			t.Errorf("%s: title %v, want %s", name, v, title)
		}
		bv, _ := agent.Value[*browser.Browser](rt, name)
		if !strings.Contains(bv.Preview(0), `"`+title+`"`) {
			t.Errorf("%s: preview %q", name, bv.Preview(0))
		}
	}
	if c := rt.Compatible("browser_click", "browser"); len(c) != 4 {
		t.Errorf("compatible browsers = %v", c)
	}
	mustStep(t, rt, ctx, "browser_close", `{"browser": "<<var:`+a2+`>>", "return": null}`)
	mustStep(t, rt, ctx, "browser_text", `{"browser": "<<var:`+a+`>>", "selector": "h1", "return": null}`)
}

// newState returns a fresh State of a new runtime made from opts.
func newState(opts agent.Options) (*agent.State, error) {
	rt, err := agent.New(opts)
	if err != nil {
		return nil, err
	}
	return rt.NewState()
}
