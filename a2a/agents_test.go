package a2a_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"

	"github.com/byref/byref/a2a"
	"github.com/byref/byref/action"
	"github.com/byref/byref/agent"
	"github.com/byref/byref/llm"
	"github.com/byref/byref/run"
	"github.com/byref/byref/server"
)

// The test agents, all on scripted models.

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

// echoModel answers with the task.
var echoModel = llm.NewScriptedFunc(func(req llm.Request) (llm.Response, error) {
	_, task := lastUser(req)
	return llm.Text(task), nil
})

// historyModel answers with the number of earlier user messages and the
// task: a follow-up in the same context sees the earlier turns.
var historyModel = llm.NewScriptedFunc(func(req llm.Request) (llm.Response, error) {
	i, task := lastUser(req)
	n := 0
	for _, m := range req.Messages[:i] {
		if m.Role == llm.RoleUser {
			n++
		}
	}
	b, _ := json.Marshal(n)
	return llm.Text("earlier: " + string(b) + "; " + task), nil
})

// hangModel blocks until its run is cancelled.
type hangModel struct{}

func (hangModel) Generate(ctx context.Context, req llm.Request) (llm.Response, error) {
	<-ctx.Done()
	return llm.Response{}, ctx.Err()
}

// awaiterModel asks a question, then says what it was told.
var awaiterModel = llm.NewScriptedFunc(func(req llm.Request) (llm.Response, error) {
	if reply, ok := toolReply(req); ok {
		return llm.Text("You said: " + reply), nil
	}
	return llm.CallTool(action.AskUserName, `{"question":"What should I say?"}`), nil
})

// authModel calls login, which needs an authorization, then says its
// result.
var authModel = llm.NewScriptedFunc(func(req llm.Request) (llm.Response, error) {
	if reply, ok := toolReply(req); ok {
		return llm.Text("login: " + reply), nil
	}
	return llm.CallTool("login", `{"return":null}`), nil
})

// typedModel terminates with a typed result.
var typedModel = llm.NewScriptedFunc(func(req llm.Request) (llm.Response, error) {
	_, task := lastUser(req)
	b, _ := json.Marshal(task)
	return llm.CallTool(action.TerminateName, `{"success":true,"result":{"city":`+string(b)+`,"celsius":21}}`), nil
})

// workerModel calls work, whose progress the stream shows, then says
// what it returned.
var workerModel = llm.NewScriptedFunc(func(req llm.Request) (llm.Response, error) {
	if reply, ok := toolReply(req); ok {
		return llm.Text("work: " + reply), nil
	}
	return llm.CallTool("work", `{"return":null}`), nil
})

// Weather is the typed agent's result.
type Weather struct {
	City    string `json:"city"`
	Celsius int    `json:"celsius"`
}

// bigModel terminates with a result of 200 KB.
var bigModel = llm.NewScriptedFunc(func(req llm.Request) (llm.Response, error) {
	b, _ := json.Marshal(strings.Repeat("x", 200<<10))
	return llm.CallTool(action.TerminateName, `{"success":true,"result":`+string(b)+`}`), nil
})

// loginCalls counts the calls of login: every odd call (the first of a
// run) needs an authorization, and the retry after it succeeds.
var loginCalls atomic.Int64

var testActions = action.MustSet(
	action.MustNew(action.Spec{
		Name: "login", Description: "Log in to the weather service.",
		Func: func() (string, error) {
			if loginCalls.Add(1)%2 == 1 {
				return "", &action.AuthorizationRequired{Link: "https://auth.example/login", Message: "sign in to the weather service"}
			}
			return "signed in", nil
		},
	}),
	action.MustNew(action.Spec{Name: "forecast", Description: "The forecast for a city.", Func: func(city string) string { return "sunny in " + city }, Params: []action.Param{{Name: "city"}}}),
	action.MustNew(action.Spec{Name: "work", Description: "Work a while, reporting progress.", Func: func(ctx context.Context) string {
		_ = agent.Progress(ctx, "half way there")
		return "worked"
	}}),
)

// agent is an agent on m recording into store.
func newAgent(store run.Store, name string, m llm.Model, tmpl agent.RunOptions) server.Agent {
	rt, err := agent.New(agent.Options{Model: m, Store: store, Actions: testActions, DisableSnippets: true})
	if err != nil {
		panic(err)
	}
	return server.Agent{Name: name, Description: "test agent " + name, Run: tmpl, Agent: rt}
}

// testAgents are echo, history, hang, awaiter, auth, typed, big, worker and
// streamer (echo, streamed in pieces of 3 bytes),
// recording into store (a new memory store when nil).
func testAgents(store run.Store) []server.Agent {
	if store == nil {
		store = run.NewMemoryStore()
	}
	return []server.Agent{
		newAgent(store, "echo", echoModel, agent.RunOptions{}),
		newAgent(store, "history", historyModel, agent.RunOptions{}),
		newAgent(store, "hang", hangModel{}, agent.RunOptions{}),
		newAgent(store, "awaiter", awaiterModel, agent.RunOptions{}),
		newAgent(store, "auth", authModel, agent.RunOptions{}),
		newAgent(store, "typed", typedModel, agent.RunOptions{ResultSchema: agent.ResultSchemaFor[Weather]()}),
		newAgent(store, "big", bigModel, agent.RunOptions{}),
		newAgent(store, "worker", workerModel, agent.RunOptions{}),
		newAgent(store, "streamer", llm.Chunked(echoModel, 3, 2*time.Millisecond), agent.RunOptions{}),
	}
}

// startA2A serves the test agents over ACP and A2A on 127.0.0.1.
func startA2A(t testing.TB, opts server.Options, aopts a2a.Options) (*server.Server, *httptest.Server) {
	t.Helper()
	if opts.Agents == nil {
		opts.Agents = testAgents(opts.Store)
	}
	s, err := server.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a2a.Mount(s, aopts); err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s)
	t.Cleanup(func() {
		ts.Close()
		s.Close()
	})
	return s, ts
}

// clientFor returns an SDK client of the named agent, from its card.
func clientFor(t testing.TB, base, agentName string) *a2aclient.Client {
	t.Helper()
	card, err := a2a.ResolveCard(context.Background(), base+"/a2a/"+agentName, a2a.ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	c, err := a2aclient.NewFromCard(context.Background(), card)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Destroy() })
	return c
}

func userMessage(text string) *sdk.SendMessageRequest {
	return &sdk.SendMessageRequest{Message: sdk.NewMessage(sdk.MessageRoleUser, sdk.NewTextPart(text))}
}

// legacyClient returns an SDK client speaking v0.3 to the endpoint.
func legacyClient(t testing.TB, url string) *a2aclient.Client {
	t.Helper()
	c, err := a2aclient.NewFromEndpoints(context.Background(),
		[]*sdk.AgentInterface{{URL: url, ProtocolBinding: sdk.TransportProtocolJSONRPC, ProtocolVersion: a2av0.Version}},
		a2av0.WithJSONRPCTransport(a2av0.JSONRPCTransportConfig{}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Destroy() })
	return c
}
