package server_test

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/byref/byref/action"
	"github.com/byref/byref/agent"
	"github.com/byref/byref/browser"
	"github.com/byref/byref/llm"
	"github.com/byref/byref/run"
	"github.com/byref/byref/server"
)

// The test agents of the conformance suite, all on scripted models: the
// byref counterparts of the ACP reference server's fixtures.

// lastUser returns the index and text of the last user message: the task.
func lastUser(req llm.Request) (int, string) {
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if req.Messages[i].Role == llm.RoleUser {
			return i, req.Messages[i].Text
		}
	}
	return -1, ""
}

// afterTask returns the messages the run has added since its task.
func afterTask(req llm.Request) []llm.Message {
	i, _ := lastUser(req)
	return req.Messages[i+1:]
}

// echoModel answers with the task.
var echoModel = llm.NewScriptedFunc(func(req llm.Request) (llm.Response, error) {
	_, task := lastUser(req)
	return llm.Text(task), nil
})

// wholeModel is a model that does not stream (it hides Stream): its
// answers reach a stream whole.
type wholeModel struct{ llm.Model }

// slowModel waits a second (or until cancelled), then echoes.
type slowModel struct{ delay time.Duration }

func (m slowModel) Generate(ctx context.Context, req llm.Request) (llm.Response, error) {
	t := time.NewTimer(m.delay)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
		return llm.Response{}, ctx.Err()
	}
	_, task := lastUser(req)
	return llm.Text(task), nil
}

// awaiterModel asks the user a question, then says what it was told.
var awaiterModel = llm.NewScriptedFunc(func(req llm.Request) (llm.Response, error) {
	for _, m := range afterTask(req) {
		if m.Role == llm.RoleTool {
			return llm.Text("You said: " + m.Text), nil
		}
	}
	return llm.CallTool(action.AskUserName, `{"question":"What should I say?"}`), nil
})

// approverModel calls shout (which needs approval), then terminates with
// its result.
var approverModel = llm.NewScriptedFunc(func(req llm.Request) (llm.Response, error) {
	for _, m := range afterTask(req) {
		if m.Role == llm.RoleTool {
			return llm.Text("shout said: " + m.Text), nil
		}
	}
	_, task := lastUser(req)
	return llm.CallTool("shout", `{"text":"`+strings.ReplaceAll(task, `"`, ``)+`","return":null}`), nil
})

// failerModel fails every call.
var failerModel = llm.NewScriptedFunc(func(req llm.Request) (llm.Response, error) {
	return llm.Response{}, errors.New("Wrong question buddy!")
})

// refuserModel declines every task, as OpenAI's refusal field does.
var refuserModel = llm.NewScriptedFunc(func(req llm.Request) (llm.Response, error) {
	return llm.Response{StopReason: llm.StopRefusal, Refusal: "I won't do that."}, nil
})

// historyEchoModel says every message of the session's history, one step
// each (with a call of note in between), then the task.
var historyEchoModel = llm.NewScriptedFunc(func(req llm.Request) (llm.Response, error) {
	i, task := lastUser(req)
	var hist []llm.Message
	for _, m := range req.Messages[1:i] {
		if m.Role == llm.RoleUser || m.Role == llm.RoleAssistant {
			hist = append(hist, m)
		}
	}
	said := 0
	for _, m := range req.Messages[i+1:] {
		if m.Role == llm.RoleAssistant {
			said++
		}
	}
	if said < len(hist) {
		r := llm.CallTool("note", `{"return":null}`)
		r.Text = hist[said].Text
		return r, nil
	}
	return llm.Text(task), nil
})

var testActions = action.MustSet(
	action.MustNew(action.Spec{
		Name: "shout", Description: "Shout the text.", NeedsApproval: true,
		Func:   func(text string) string { return strings.ToUpper(text) + "!" },
		Params: []action.Param{{Name: "text"}},
	}),
	action.MustNew(action.Spec{Name: "note", Description: "Do nothing.", Func: func() {}}),
	action.MustNew(action.Spec{Name: "work", Description: "Work a while, reporting progress.", Func: func(ctx context.Context) string {
		_ = agent.Progress(ctx, "half way there")
		return "worked"
	}}),
)

// scriptedAgent is an agent on m recording into store (a new memory store
// when nil).
func scriptedAgent(store run.Store, name string, m llm.Model, tmpl agent.RunOptions) server.Agent {
	if store == nil {
		store = run.NewMemoryStore()
	}
	rt, err := agent.New(agent.Options{Model: m, Store: store, Actions: testActions, DisableSnippets: true})
	if err != nil {
		panic(err)
	}
	return server.Agent{Name: name, Description: "test agent " + name, Run: tmpl, Agent: rt}
}

// pngImage and csvTable are a host's output types: PNG bytes and CSV
// text.
type (
	pngImage []byte
	csvTable string
)

// tinyPNG is a 1×1 PNG.
var tinyPNG = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89\x00\x00\x00\rIDATx\x9cc\xf8\x0f\x00\x00\x01\x01\x00\x05\x18\xd8N\x00\x00\x00\x00IEND\xaeB`\x82")

var outputActions = action.MustSet(
	action.MustNew(action.Spec{
		Name: "make_artifacts", Description: "Produce the report.",
		Func: func() []run.Artifact {
			return []run.Artifact{
				{ContentType: "text/plain", Content: []byte("Processing with artifacts")},
				{Name: "text-result.txt", ContentType: "text/plain", Content: []byte("This is a text artifact result")},
				{Name: "data.json", ContentType: "application/json", Content: []byte(`{"results":[1,2,3],"status":"complete"}`)},
				{Name: "image.png", ContentType: "image/png", Content: tinyPNG},
			}
		},
	}),
	action.MustNew(action.Spec{Name: "screenshot", Description: "Take a screenshot.", Func: func() pngImage { return tinyPNG }}),
	// get_screenshot returns the browser's own type, which is output with
	// no Agent.Outputs.
	action.MustNew(action.Spec{Name: "get_screenshot", Description: "Take a screenshot.", Func: func() browser.Screenshot { return tinyPNG }}),
	action.MustNew(action.Spec{
		Name: "describe", Description: "Describe two input parts.", Params: []action.Param{{Name: "first"}, {Name: "second"}},
		Func: func(first, second run.Artifact) run.Artifact {
			line := func(a run.Artifact) string {
				head := string(a.Content)
				if a.ContentType == "image/png" {
					head = string(a.Content[1:4])
				}
				return fmt.Sprintf("%s %s %d %s", a.Name, a.ContentType, len(a.Content), head)
			}
			return run.Artifact{Name: "described.txt", ContentType: "text/plain", Content: []byte(line(first) + "\n" + line(second))}
		},
	}),
	action.MustNew(action.Spec{Name: "export", Description: "Export the table.", Func: func() csvTable { return "id,status\n1,late\n" }}),
	action.MustNew(action.Spec{
		Name: "check_input", Description: "Check the question.", Params: []action.Param{{Name: "question"}},
		Func: func(q string) (string, error) {
			if strings.Contains(q, "buddy") {
				return "", run.Fail(run.FailureInvalidInput, "Wrong question buddy!")
			}
			return "fine", nil
		},
	}),
)

// callsThen is a model that calls the actions, one per step, then
// answers "done".
func callsThen(calls ...string) llm.Model {
	return llm.NewScriptedFunc(func(req llm.Request) (llm.Response, error) {
		n := 0
		for _, m := range afterTask(req) {
			if m.Role == llm.RoleAssistant {
				n++
			}
		}
		if n < len(calls) {
			name, args, _ := strings.Cut(calls[n], " ")
			if args == "" {
				args = `{"return":null}`
			}
			return llm.CallTool(name, args), nil
		}
		return llm.Text("done"), nil
	})
}

// outputAgent is an agent on outputActions recording into store.
func outputAgent(store run.Store, name string, m llm.Model, a server.Agent) server.Agent {
	rt, err := agent.New(agent.Options{Model: m, Store: store, Actions: outputActions, DisableSnippets: true})
	if err != nil {
		panic(err)
	}
	a.Name, a.Description, a.Agent = name, "test agent "+name, rt
	return a
}

// testAgents are echo, slow_echo, awaiter, approver, failer,
// history_echo, refuser, worker (whose action reports progress),
// streamer (echo, streamed in pieces of 3 bytes), whole_echo (echo, not
// streamed), and the agents of output and failure kinds
// (impatient, artifacts, outputs, screenshots, inputs, invalid,
// mime_types), recording into
// store (a new memory store when nil).
func testAgents(store run.Store) []server.Agent {
	if store == nil {
		store = run.NewMemoryStore()
	}
	return []server.Agent{
		scriptedAgent(store, "echo", echoModel, agent.RunOptions{}),
		scriptedAgent(store, "slow_echo", slowModel{time.Second}, agent.RunOptions{}),
		scriptedAgent(store, "awaiter", awaiterModel, agent.RunOptions{}),
		scriptedAgent(store, "approver", approverModel, agent.RunOptions{}),
		scriptedAgent(store, "failer", failerModel, agent.RunOptions{Limits: agent.Limits{Retry: llm.RetryPolicy{Attempts: 1}}}),
		scriptedAgent(store, "history_echo", historyEchoModel, agent.RunOptions{}),
		scriptedAgent(store, "refuser", refuserModel, agent.RunOptions{}),
		scriptedAgent(store, "worker", callsThen("work"), agent.RunOptions{}),
		scriptedAgent(store, "streamer", llm.Chunked(echoModel, 3, 2*time.Millisecond), agent.RunOptions{}),
		scriptedAgent(store, "whole_echo", wholeModel{echoModel}, agent.RunOptions{}),
		scriptedAgent(store, "impatient", awaiterModel, agent.RunOptions{AwaitTimeout: 300 * time.Millisecond}),
		outputAgent(store, "artifacts", callsThen("make_artifacts"), server.Agent{}),
		outputAgent(store, "outputs", callsThen("screenshot", "export"), server.Agent{
			Outputs: []server.OutputType{{Type: reflect.TypeFor[pngImage](), ContentType: "image/png"}, {Type: reflect.TypeFor[csvTable](), ContentType: "text/csv"}},
		}),
		outputAgent(store, "screenshots", callsThen("get_screenshot"), server.Agent{}),
		outputAgent(store, "inputs", callsThen(`describe {"first":"<<var:photo>>","second":"<<var:order>>","return":null}`), server.Agent{
			InputContentTypes: []string{"text/*", "application/json", "image/png"},
		}),
		outputAgent(store, "invalid", callsThen(`check_input {"question":"Hello buddy","return":null}`), server.Agent{}),
		outputAgent(store, "mime_types", callsThen(), server.Agent{
			InputContentTypes:  []string{"text/plain", "application/json"},
			OutputContentTypes: []string{"text/html", "application/json", "application/javascript", "text/css"},
			Metadata: server.AgentMetadata{
				Documentation: "Answers in four types.", License: "Apache-2.0", NaturalLanguages: []string{"en"},
				Capabilities: []server.Capability{{Name: "Types", Description: "Answers in several media types."}},
				Author:       &server.Person{Name: "byref", URL: "https://example.com/byref"},
				Links:        []server.Link{{Type: "source-code", URL: "https://example.com/byref.git"}},
				CreatedAt:    time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC),
			},
		}),
	}
}

// startServer serves the test agents on 127.0.0.1.
func startServer(t testing.TB, opts server.Options) (*server.Server, *httptest.Server) {
	t.Helper()
	if opts.Agents == nil {
		opts.Agents = testAgents(opts.Store)
	}
	s, err := server.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s)
	t.Cleanup(func() {
		ts.Close()
		s.Close()
	})
	return s, ts
}
