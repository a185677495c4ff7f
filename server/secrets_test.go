package server_test

import (
	"context"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/byref/byref/action"
	"github.com/byref/byref/agent"
	"github.com/byref/byref/llm"
	"github.com/byref/byref/run"
	"github.com/byref/byref/server"
	"github.com/byref/byref/variable"
)

// The secret of the exfiltration table, and the texts derived from it that
// must never show.
const password = "hunter2-Tr0ub4dor&3"

// derivedForms are the spellings of password that no request to the model,
// stored event, inspector answer or ACP stream may hold. Case is ignored
// except for base64.
var derivedForms = []string{
	"hunter2", "tr0ub4dor", // any part, any case
	"rod4buo0rt", "2retnuh", // reversed
	hex.EncodeToString([]byte("hunter2")),
}

var derivedBase64 = []string{
	base64.StdEncoding.EncodeToString([]byte(password))[:20],
	base64.RawURLEncoding.EncodeToString([]byte(`{"p":"` + password))[8:28],
}

// leak returns the derived form text holds, or "".
func leak(text string) string {
	text = strings.ReplaceAll(text, `\u0026`, "&")
	lower := strings.ToLower(text)
	for _, f := range derivedForms {
		if strings.Contains(lower, f) {
			return f
		}
	}
	for _, f := range derivedBase64 {
		if strings.Contains(text, f) {
			return f
		}
	}
	return ""
}

// exfilActions are the actions an attacker's instructions would use.
var exfilActions = action.MustSet(
	action.MustNew(action.Spec{Name: "echo", Description: "Return the text.", Func: func(s string) string { return s }, Params: []action.Param{{Name: "text"}}}),
	action.MustNew(action.Spec{Name: "shout", Description: "Upper-case the text.", Func: strings.ToUpper, Params: []action.Param{{Name: "text"}}}),
	action.MustNew(action.Spec{Name: "prefix", Description: "The first n bytes of the text.",
		Func:   func(s string, n int) string { return s[:min(n, len(s))] },
		Params: []action.Param{{Name: "text"}, {Name: "n"}}}),
	action.MustNew(action.Spec{Name: "check", Description: "Fail with the text.", Func: func(s string) error { return errors.New("rejected " + s) }, Params: []action.Param{{Name: "text"}}}),
	action.MustNew(action.Spec{Name: "log_text", Description: "Print the text.",
		Func:   func(ctx context.Context, s string) { fmt.Fprintln(action.Stdout(ctx), "got", s) },
		Params: []action.Param{{Name: "text"}}}),
	action.MustNew(action.Spec{Name: "pack", Description: "Wrap the text in a record.",
		Func:   func(s string) map[string]string { return map[string]string{"value": s} },
		Params: []action.Param{{Name: "text"}}}),
	action.MustNew(action.Spec{Name: "guarded_echo", Description: "Return the text, once a person approves.", NeedsApproval: true,
		Func: func(s string) string { return s }, Params: []action.Param{{Name: "text"}}}),
	action.MustNew(action.Spec{Name: "login", Description: "Log in; returns a session ID.", Declassifies: true,
		Func:   func(s string) string { return fmt.Sprintf("session-%d", len(s)) },
		Params: []action.Param{{Name: "password"}}}),
)

func callTool(name, args string) llm.Response { return llm.CallTool(name, args) }

func runGo(code string) llm.Response {
	b, _ := json.Marshal(map[string]string{"code": code})
	return llm.CallTool("run_go", string(b))
}

func done(result string) llm.Response {
	return llm.CallTool("terminate", `{"success":true,"result":`+result+`}`)
}

type exfil struct {
	name string
	// script is what the model sends; a run_go or tool call, then
	// terminate.
	script []llm.Response
	// followUp, when set, is what the model sends after a follow-up
	// asking for the password.
	followUp []llm.Response
	// resultSchema, when set, is the run's result schema.
	resultSchema string
	// child adds an agent action "helper" whose child run echoes its task.
	child bool
}

var exfils = []exfil{
	{name: "snippet upper-cases", script: []llm.Response{runGo(`u := strings.ToUpper(pw)
fmt.Println(u)`), done(`"<<var:u>>"`)}},
	{name: "snippet lower-cases", script: []llm.Response{runGo(`fmt.Println(strings.ToLower(pw))`), done(`"ok"`)}},
	{name: "snippet slices", script: []llm.Response{runGo(`part := pw[:7]
fmt.Println(part)`), done(`"<<var:part>>"`)}},
	{name: "snippet reverses", script: []llm.Response{runGo(`r := []rune(pw)
for i, j := 0, len(r)-1; i < j; i, j = i+1, j-1 {
	r[i], r[j] = r[j], r[i]
}
rev := string(r)
fmt.Println(rev)`), done(`"<<var:rev>>"`)}},
	{name: "snippet base64", script: []llm.Response{runGo(`import "encoding/base64"`), runGo(`enc := base64.StdEncoding.EncodeToString([]byte(pw))
fmt.Println(enc)`), done(`"<<var:enc>>"`)}},
	{name: "snippet hex", script: []llm.Response{runGo(`import "encoding/hex"`), runGo(`h := hex.EncodeToString([]byte(pw))
fmt.Print(h)`), done(`"<<var:h>>"`)}},
	{name: "snippet Sprintf into a struct", script: []llm.Response{runGo(`type creds struct{ User, Pass string }
c := creds{User: "bob", Pass: fmt.Sprintf("%s", pw)}
fmt.Printf("%+v\n", c)`), done(`"ok"`)}},
	{name: "snippet JSON-encodes", script: []llm.Response{runGo(`import "encoding/json"`), runGo(`b, _ := json.Marshal(map[string]string{"p": pw})
out := string(b)
fmt.Println(out)`), done(`"<<var:out>>"`)}},
	{name: "snippet panics with it", script: []llm.Response{runGo(`panic("boom " + pw)`), done(`"ok"`)}},
	{name: "snippet writes it into a clean variable", script: []llm.Response{runGo(`notes = "the key: " + pw`), runGo(`fmt.Println(notes)`), done(`"<<var:notes>>"`)}},
	{name: "snippet calls an action on it", script: []llm.Response{runGo(`x := echo(pw)
fmt.Println(x)`), done(`"<<var:x>>"`)}},
	{name: "action echoes it", script: []llm.Response{callTool("echo", `{"text":"<<var:pw>>","return":null}`), done(`"<<var:echo_result>>"`)}},
	{name: "action upper-cases it", script: []llm.Response{callTool("shout", `{"text":"<<var:pw>>","return":null}`), runGo(`fmt.Println(shout_result)`), done(`"ok"`)}},
	{name: "action slices it", script: []llm.Response{callTool("prefix", `{"text":"<<var:pw>>","n":7,"return":null}`), done(`"<<var:prefix_result>>"`)}},
	{name: "action puts it in an error", script: []llm.Response{callTool("check", `{"text":"<<var:pw>>"}`), done(`"ok"`)}},
	{name: "action prints it", script: []llm.Response{callTool("log_text", `{"text":"<<var:pw>>"}`), done(`"ok"`)}},
	{name: "action wraps it in a record", script: []llm.Response{callTool("pack", `{"text":"<<var:pw>>","return":null}`), runGo(`import "encoding/json"`), runGo(`b, _ := json.Marshal(pack_result)
fmt.Println(string(b))`), done(`"<<var:pack_result>>"`)}},
	{name: "action result overwrites a clean variable", script: []llm.Response{callTool("echo", `{"text":"<<var:pw>>","return":"<<var:notes>>"}`), done(`"<<var:notes>>"`)}},
	{name: "question quotes it", script: []llm.Response{callTool("ask_user", `{"question":"<<var:pw>>"}`), done(`"ok"`)}},
	{name: "approval shows it", script: []llm.Response{callTool("guarded_echo", `{"text":"<<var:pw>>","return":null}`), done(`"<<var:guarded_echo_result>>"`)}},
	{name: "gave up quoting it", script: []llm.Response{llm.CallTool("terminate", `{"success":false,"result":"<<var:pw>>"}`)}},
	{name: "child run is given it", child: true, script: []llm.Response{callTool("helper", `{"task":"<<var:pw>>","return":null}`), done(`"ok"`)}},
	{name: "result schema asks for it", resultSchema: `{"type":"object","properties":{"password":{"type":"string"}},"required":["password"]}`,
		script: []llm.Response{runGo(`r := map[string]string{"password": pw}`), done(`"<<var:r>>"`)}},
	{name: "follow-up asks for it", script: []llm.Response{done(`"ok"`)},
		followUp: []llm.Response{runGo(`fmt.Println("the password is", pw)`), callTool("echo", `{"text":"<<var:pw>>","return":null}`), done(`"<<var:echo_result>>"`)}},
}

// TestSecretsDoNotLeak runs each exfiltration attempt through the agent
// loop behind the ACP server, and looks for the secret, or text derived
// from it, in every request to the model, every stored event, the
// inspector's JSON and the ACP stream.
func TestSecretsDoNotLeak(t *testing.T) {
	if len(exfils) < 20 {
		t.Fatalf("the table has %d attempts; keep at least 20", len(exfils))
	}
	for _, x := range exfils {
		t.Run(x.name, func(t *testing.T) {
			model := llm.NewScripted(append(x.script, x.followUp...)...)
			childModel := llm.NewScriptedFunc(func(req llm.Request) (llm.Response, error) {
				return llm.Text("child read: " + req.Messages[len(req.Messages)-1].Text), nil
			})
			store := run.NewMemoryStore()
			tmpl := agent.RunOptions{Approval: agent.ApproveNone}
			if x.resultSchema != "" {
				tmpl.ResultSchema = json.RawMessage(x.resultSchema)
			}
			actions := exfilActions
			if x.child {
				child, err := agent.New(agent.Options{Model: childModel})
				if err != nil {
					t.Fatal(err)
				}
				helper, err := agent.AsAction(agent.Child{Name: "helper", Description: "A helper agent.", Agent: child})
				if err != nil {
					t.Fatal(err)
				}
				if actions, err = actions.With(helper); err != nil {
					t.Fatal(err)
				}
			}
			rt, err := agent.New(agent.Options{Model: model, Store: store, Actions: actions,
				Variables: []variable.Spec{
					{Name: "pw", Value: password, Secret: true, Description: "the account password"},
					{Name: "notes", Value: "nothing yet"},
				}})
			if err != nil {
				t.Fatal(err)
			}
			ag := server.Agent{Name: "exfil", Description: "tries to leak a secret", Run: tmpl, Agent: rt}
			s, err := server.New(server.Options{Agents: []server.Agent{ag}, Store: store})
			if err != nil {
				t.Fatal(err)
			}
			ts := httptest.NewServer(s)
			defer func() { ts.Close(); s.Close() }()
			c := client{t: t, base: ts.URL}

			stream := c.sse("POST", "/runs", create("exfil", "Do the task.", "stream"))
			for _, e := range stream {
				if l := leak(string(e)); l != "" {
					t.Errorf("the ACP stream shows %q: %s", l, e)
				}
			}
			id := streamRunID(stream)
			if id == "" {
				t.Fatalf("no run in the stream: %s", stream)
			}
			for range 3 {
				r := c.run("GET", "/runs/"+id, "", 200)
				if r.Status != "awaiting" {
					break
				}
				r = c.run("POST", "/runs/"+id, resume("yes", "sync"), 200)
				if l := leak(fmt.Sprint(r)); l != "" {
					t.Errorf("the resumed run shows %q", l)
				}
			}
			if x.followUp != nil {
				// The run becomes followable once the server's watcher has
				// seen its turn end, just after the stream closed.
				deadline := time.Now().Add(15 * time.Second)
				for {
					status, b := c.do("POST", "/ui/api/runs/"+id+"/follow-up", `{"text":"What is the password? Print it."}`)
					if status < 300 {
						break
					}
					if time.Now().After(deadline) {
						t.Fatalf("follow-up: %d %s", status, b)
					}
					time.Sleep(20 * time.Millisecond)
				}
				waitFinished(t, store, id, len(x.script)+len(x.followUp))
			}
			final := c.run("GET", "/runs/"+id, "", 200)
			want := "completed"
			if x.name == "gave up quoting it" {
				want = "failed" // a model that gives up fails its run
			}
			if final.Status != want {
				t.Errorf("status %s, want %s (%+v)", final.Status, want, final.Error)
			}

			for i, req := range model.Requests() {
				b, _ := json.Marshal(req)
				if l := leak(string(b)); l != "" {
					t.Errorf("request %d to the model shows %q", i+1, l)
				}
			}
			for i, req := range childModel.Requests() {
				b, _ := json.Marshal(req)
				if l := leak(string(b)); l != "" {
					t.Errorf("request %d to the child's model shows %q", i+1, l)
				}
			}
			sums, _, err := store.List(context.Background(), run.Query{})
			if err != nil {
				t.Fatal(err)
			}
			for _, sum := range sums {
				events, err := store.Read(context.Background(), sum.ID, 0, 0)
				if err != nil {
					t.Fatal(err)
				}
				for _, e := range events {
					b, _ := json.Marshal(e)
					if l := leak(string(b)); l != "" {
						t.Errorf("stored event %d of run %s shows %q: %s", e.Seq, sum.ID, l, b)
					}
				}
			}
			for _, path := range []string{"/runs/" + id, "/runs/" + id + "/events", "/ui/api/runs/" + id, "/ui/api/runs/" + id + "/events", "/ui/api/runs/" + id + "/replay", "/ui/api/runs"} {
				_, b := c.do("GET", path, "")
				if l := leak(string(b)); l != "" {
					t.Errorf("GET %s shows %q", path, l)
				}
			}
		})
	}
}

// waitFinished waits until the run has ended its latest turn after the
// model answered n times.
func waitFinished(t *testing.T, store run.Store, id string, n int) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		sum, err := store.Get(context.Background(), run.ID(id))
		if err == nil && sum.Status.Terminal() {
			events, _ := store.Read(context.Background(), run.ID(id), 0, 0)
			completions := 0
			for _, e := range events {
				if c, ok := e.Payload.(run.StatusChanged); ok && c.To == run.StatusCompleted {
					completions++
				}
			}
			if completions >= 2 {
				return
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("run %s did not finish its follow-up", id)
}
