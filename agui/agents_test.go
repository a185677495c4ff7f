package agui_test

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/byref/byref/action"
	"github.com/byref/byref/agent"
	"github.com/byref/byref/agui"
	"github.com/byref/byref/internal/sessiontest"
	"github.com/byref/byref/llm"
	"github.com/byref/byref/run"
	"github.com/byref/byref/server"
	"github.com/byref/byref/variable"
)

// The test agents, on scripted models.

// password is the secret variable's value: no AG-UI event may hold it.
const password = "hunter2-do-not-show"

// lastUser returns the index and text of the last user message: the task.
func lastUser(req llm.Request) (int, string) {
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if req.Messages[i].Role == llm.RoleUser {
			return i, req.Messages[i].Text
		}
	}
	return -1, ""
}

// toolReply returns the text of the first tool message after the task.
func toolReply(req llm.Request) (string, bool) {
	i, _ := lastUser(req)
	for _, m := range req.Messages[i+1:] {
		if m.Role == llm.RoleTool {
			return m.Text, true
		}
	}
	return "", false
}

// callThenSay calls name with args, then says "<prefix>: <result>".
func callThenSay(name, args, prefix string) llm.Model {
	return llm.NewScriptedFunc(func(req llm.Request) (llm.Response, error) {
		if reply, ok := toolReply(req); ok {
			return llm.Text(prefix + ": " + reply), nil
		}
		return llm.CallTool(name, args), nil
	})
}

// hangModel blocks until its run is cancelled.
type hangModel struct{}

func (hangModel) Generate(ctx context.Context, req llm.Request) (llm.Response, error) {
	<-ctx.Done()
	return llm.Response{}, ctx.Err()
}

var testActions = action.MustSet(
	action.MustNew(action.Spec{Name: "forecast", Description: "The forecast for a city.", Params: []action.Param{{Name: "city"}},
		Func: func(ctx context.Context, city string) string {
			_ = agent.Progress(ctx, "asking the weather service")
			return "sunny in " + city
		}}),
	action.MustNew(action.Spec{Name: "shout", Description: "Shout the text.", NeedsApproval: true, Params: []action.Param{{Name: "text"}},
		Func: func(text string) string { return strings.ToUpper(text) + "!" }}),
	action.MustNew(action.Spec{Name: "login", Description: "Log in with a password.", Params: []action.Param{{Name: "password"}},
		Func: func(pw string) bool { return pw == password }}),
)

// agent is an agent on m recording into store, with a city and a secret
// password as starting variables, and the actions given (testActions when
// none).
func newAgent(store run.Store, name string, m llm.Model, actions ...*action.Action) server.Agent {
	set := testActions
	if len(actions) > 0 {
		set = action.MustSet(append(testActions.All(), actions...)...)
	}
	rt, err := agent.New(agent.Options{Model: m, Store: store, Actions: set, DisableSnippets: true,
		Variables: []variable.Spec{{Name: "city", Value: "Paris"}, {Name: "pw", Value: password, Secret: true}}})
	if err != nil {
		panic(err)
	}
	return server.Agent{Name: name, Description: "test agent " + name, Agent: rt, Run: agent.RunOptions{ModelName: "scripted:" + name}}
}

// counted says "counted", reporting usage with prompt cache reads and
// writes; quitter gives up the same way.
var (
	counted = llm.NewScriptedFunc(func(req llm.Request) (llm.Response, error) {
		r := llm.Text("counted")
		r.Usage = llm.Usage{InputTokens: 120, OutputTokens: 8, CacheReadTokens: 100, CacheWriteTokens: 10}
		return r, nil
	})
	quitter = llm.NewScriptedFunc(func(req llm.Request) (llm.Response, error) {
		r := llm.CallTool(action.TerminateName, `{"success":false,"result":"no data"}`)
		r.Usage = llm.Usage{InputTokens: 50, OutputTokens: 5, CacheReadTokens: 40}
		return r, nil
	})
	// encrypted reasons in a block its provider encrypted.
	encrypted = llm.NewScriptedFunc(func(req llm.Request) (llm.Response, error) {
		r := llm.Text("thought about it")
		r.Thinking = []llm.Thinking{{Redacted: "opaque-reasoning-blob"}}
		return r, nil
	})
)

// childAgent is the agent the parent agents call as their action
// "helper": it helps with the task, or gives up on a task that says
// "impossible".
func childAgent(store run.Store) *action.Action {
	rt, err := agent.New(agent.Options{Store: store, DisableSnippets: true, Model: llm.NewScriptedFunc(func(req llm.Request) (llm.Response, error) {
		_, task := lastUser(req)
		if strings.Contains(task, "impossible") {
			return llm.CallTool(action.TerminateName, `{"success":false,"result":"cannot do the impossible"}`), nil
		}
		return llm.Text("helped with " + task), nil
	})})
	if err != nil {
		panic(err)
	}
	a, err := agent.AsAction(agent.Child{Name: "helper", Description: "A helper agent.", Agent: rt})
	if err != nil {
		panic(err)
	}
	return a
}

// testAgents are echo, weather (a call by reference, progress), login
// (a call with the secret), approver, awaiter, hang, streamer (weather
// whose model streams in pieces of 4 bytes) and chat (the two-turn chat of
// package sessiontest).
func testAgents(store run.Store) []server.Agent {
	echo := llm.NewScriptedFunc(func(req llm.Request) (llm.Response, error) {
		_, task := lastUser(req)
		return llm.Text(task), nil
	})
	return []server.Agent{
		newAgent(store, "echo", echo),
		newAgent(store, "weather", callThenSay("forecast", `{"city":"<<var:city>>","return":null}`, "forecast")),
		newAgent(store, "login", callThenSay("login", `{"password":"<<var:pw>>","return":null}`, "login")),
		newAgent(store, "approver", callThenSay("shout", `{"text":"hello","return":null}`, "shouted")),
		newAgent(store, "awaiter", callThenSay(action.AskUserName, `{"question":"What is your name?"}`, "Hello")),
		newAgent(store, "hang", hangModel{}),
		newAgent(store, "streamer", llm.Chunked(callThenSay("forecast", `{"city":"<<var:city>>","return":null}`, "The forecast says"), 4, 2*time.Millisecond)),
		// frontend calls the front end's tool book (its city by
		// reference), streaming, then says what the front end answered.
		newAgent(store, "frontend", llm.Chunked(callThenSay("book", `{"city":"<<var:city>>","seats":2}`, "booked"), 4, time.Millisecond)),
		newAgent(store, "counter", counted),
		newAgent(store, "quitter", quitter),
		newAgent(store, "thinker", encrypted),
		newAgent(store, "parent", callThenSay("helper", `{"task":"the report","return":null}`, "parent"), childAgent(store)),
		newAgent(store, "parent_failing", callThenSay("helper", `{"task":"the impossible","return":null}`, "parent"), childAgent(store)),
		chatAgent(store),
	}
}

// chatAgent is the two-turn chat of package sessiontest, named chat,
// recording into store.
func chatAgent(store run.Store) server.Agent {
	opts := sessiontest.Agent()
	opts.Store = store
	rt, err := agent.New(opts)
	if err != nil {
		panic(err)
	}
	return server.Agent{Name: "chat", Description: "the two-turn chat", Agent: rt}
}

// startAGUI serves the test agents over ACP and AG-UI on 127.0.0.1.
func startAGUI(t testing.TB) (*server.Server, *httptest.Server) {
	t.Helper()
	store := run.NewMemoryStore()
	s, err := server.New(server.Options{Agents: testAgents(store), Store: store})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := agui.Mount(s, agui.Options{}); err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s)
	t.Cleanup(func() {
		ts.Close()
		s.Close()
	})
	return s, ts
}
