package agent_test

// The agent's acceptance scenarios again, through byref's real OpenAI
// client (llm.OpenWith) against openaitest's wire-format server on
// 127.0.0.1. Besides each run's outcome, the tests check what the server
// received: tools, tool results, truncated conversations.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/byref/byref/action"
	"github.com/byref/byref/agent"
	"github.com/byref/byref/internal/openaitest"
	"github.com/byref/byref/llm"
	_ "github.com/byref/byref/llm/providers"
	"github.com/byref/byref/run"
	"github.com/byref/byref/schema"
)

// openaiAgent returns a runtime whose model is byref's OpenAI client
// talking to a wire-format server answering with h.
func openaiAgent(t *testing.T, h openaitest.Handler, opts agent.Options) (*agent.Agent, *openaitest.Server) {
	t.Helper()
	srv := openaitest.New(t, h)
	m, err := llm.OpenWith("openai:gpt-4o-mini", llm.Config{
		BaseURL: srv.BaseURL(), APIKey: "test-key", HTTPClient: srv.Client(),
		Getenv: func(string) string { return "" }, // keep OPENAI_* of the environment out
	})
	if err != nil {
		t.Fatal(err)
	}
	return newAgent(t, m, opts), srv
}

// withUsage sets a response's usage.
func withUsage(r openaitest.Response, in, out int) openaitest.Response {
	r.Usage = openaitest.Usage{PromptTokens: in, CompletionTokens: out}
	return r
}

// roles lists the roles of a request's messages.
func roles(req openaitest.Request) string {
	var out []string
	for _, m := range req.Messages {
		out = append(out, m.Role)
	}
	return strings.Join(out, " ")
}

// checkToolMessages fails unless every tool message answers a call of the
// assistant message before it (no orphan), in the order of the calls, and
// every call of an assistant message is answered.
func checkToolMessages(t *testing.T, req openaitest.Request) {
	t.Helper()
	var pending []string
	for i, m := range req.Messages {
		switch m.Role {
		case "assistant":
			if len(pending) > 0 {
				t.Errorf("message %d: calls %v of the previous assistant message were not answered", i, pending)
			}
			pending = nil
			for _, c := range m.ToolCalls {
				pending = append(pending, c.ID)
			}
		case "tool":
			if len(pending) == 0 || pending[0] != m.ToolCallID {
				t.Errorf("message %d: orphan tool message for %q; calls awaiting results: %v", i, m.ToolCallID, pending)
				continue
			}
			pending = pending[1:]
		}
	}
}

func TestOpenAIWeatherTask(t *testing.T) {
	rt, srv := openaiAgent(t, openaitest.Script(
		withUsage(openaitest.Call("get_weather", `{"location":"<<var:city>>","unit":"c","return":null}`), 300, 20),
		withUsage(openaitest.Call("terminate", `{"success":true,"result":"<<var:weather>>"}`), 350, 15),
	), agent.Options{})
	h, err := rt.Start(context.Background(), agent.RunOptions{Task: "What is the weather in the city?", ModelName: "openai:gpt-4o-mini"})
	if err != nil {
		t.Fatal(err)
	}
	o, err := h.Wait(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if o.Status != run.StatusCompleted || string(o.Result) != `"sunny, 21°C in Paris"` || o.Steps != 2 {
		t.Fatalf("outcome = %+v", o)
	}
	if o.Usage != (llm.Usage{InputTokens: 650, OutputTokens: 35}) {
		t.Errorf("usage = %+v, want the server's 650 in, 35 out", o.Usage)
	}
	snap := run.Fold(events(t, h))
	if len(snap.ToolCalls) != 2 || snap.ToolCalls[0].Call.References["location"].Variable != "city" || !snap.ToolCalls[0].Success {
		t.Fatalf("snapshot tool calls = %+v", snap.ToolCalls)
	}

	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("the server got %d requests, want 2", len(reqs))
	}
	first := reqs[0]
	if first.Model != "gpt-4o-mini" || first.Header.Get("Authorization") != "Bearer test-key" {
		t.Errorf("model %q, authorization %q", first.Model, first.Header.Get("Authorization"))
	}
	if roles(first) != "system user" || !strings.Contains(first.Messages[0].Content, `- city (string): Paris`) || first.Messages[1].Content != "What is the weather in the city?" {
		t.Fatalf("first request's messages = %+v", first.Messages)
	}
	// The tools: names, the strict flag, and the references offered as
	// enums, exactly <<var:NAME>>.
	names := first.ToolNames()
	if names[0] != "get_weather" || !slices.Contains(names, "terminate") || !slices.Contains(names, "run_go") {
		t.Fatalf("tools = %v, want get_weather, then the built-ins", names)
	}
	// The same schemas as a fresh runtime's, which has made no call yet
	// (the built-ins a run adds, such as ask_user, are not compared).
	fresh := map[string]schema.Tool{}
	for _, tool := range mustState(t, newAgent(t, llm.NewScripted(), agent.Options{})).Tools() {
		fresh[tool.Name] = tool
	}
	for _, tool := range first.Tools {
		if tool.Type != "function" || tool.Description == "" {
			t.Errorf("tool %s = %+v", tool.Name, tool)
		}
		if !tool.Strict {
			t.Errorf("tool %s was not sent with strict: true", tool.Name)
		}
		want, ok := fresh[tool.Name]
		if !ok {
			continue
		}
		var got, wantV any
		_ = json.Unmarshal(tool.Parameters, &got)
		_ = json.Unmarshal(want.Parameters, &wantV)
		if !reflect.DeepEqual(got, wantV) || tool.Description != want.Description {
			t.Errorf("tool %s: the server got parameters\n%s\nwant\n%s", tool.Name, tool.Parameters, want.Parameters)
		}
	}
	// References are explained once, in the system prompt, and each
	// variable is named there once with its type; a string parameter
	// takes "<<var:city>>" as the string it is. On the wire json.Marshal
	// may write < and > as \u003c and \u003e (the same JSON value, see
	// Request.Body); what the API decodes is the reference form itself,
	// never &lt; or a double-escaped \u003c.
	system := first.Messages[0].Content
	if !strings.Contains(system, `"<<var:NAME>>"`) {
		t.Errorf("the system prompt does not show the reference form: %s", system)
	}
	if strings.Contains(system, `\u003c`) || strings.Contains(system, "&lt;") {
		t.Errorf("the system prompt is HTML-escaped: %s", system)
	}
	weather, _ := first.Tool("get_weather")
	if strings.Contains(string(weather.Parameters), "city") {
		t.Errorf("get_weather's parameters list the variables: %s", weather.Parameters)
	}

	// The call went back as the model sent it, and its result as a tool
	// message carrying the runtime's JSON.
	second := reqs[1]
	if roles(second) != "system user assistant tool" {
		t.Fatalf("second request's roles = %s", roles(second))
	}
	asst := second.Messages[2]
	if len(asst.ToolCalls) != 1 || asst.ToolCalls[0] != (openaitest.ToolCall{ID: "call_1", Name: "get_weather", Arguments: `{"location":"<<var:city>>","unit":"c","return":null}`}) {
		t.Errorf("assistant message = %+v", asst)
	}
	tool := second.Messages[3]
	wantContent := `{"success":true,"variables":[{"name":"weather","type":"string","preview":"sunny, 21°C in Paris","change":"created"}]}`
	if tool.ToolCallID != "call_1" || tool.Content != wantContent {
		t.Errorf("tool message = %+v\nwant content %s", tool, wantContent)
	}
	// The new variable is announced in the tool message (above), and the
	// system prompt is the first request's, byte for byte.
	if first := srv.Requests()[0].Messages[0].Content; second.Messages[0].Content != first {
		t.Errorf("the system prompt changed:\n%s\nwas:\n%s", second.Messages[0].Content, first)
	}
	for _, req := range reqs {
		checkToolMessages(t, req)
	}
}

// Two calls in one response run in one step; each result goes back as its
// own tool message, in order.
func TestOpenAIParallelToolCalls(t *testing.T) {
	rt, srv := openaiAgent(t, openaitest.Script(
		openaitest.Response{
			Text: "Both units at once.",
			ToolCalls: []openaitest.ToolCall{
				{ID: "call_c", Name: "get_weather", Arguments: `{"location":"<<var:city>>","unit":"c","return":null}`},
				{ID: "call_f", Name: "get_weather", Arguments: `{"location":"Lyon","unit":"f","return":null}`},
			},
		},
		openaitest.Call("terminate", `{"success":true,"result":"<<var:weather_2>>"}`),
	), agent.Options{})
	o, st := runState(t, rt, agent.RunOptions{Task: "weather twice"})
	if string(o.Result) != `"sunny, 21°F in Lyon"` || o.Steps != 2 {
		t.Fatalf("outcome = %+v", o)
	}
	if h := st.History(); len(h) != 3 || h[0].Step != h[1].Step {
		t.Fatalf("history = %+v; both calls belong to one step", h)
	}
	second := srv.Requests()[1]
	if roles(second) != "system user assistant tool tool" {
		t.Fatalf("roles = %s", roles(second))
	}
	if a := second.Messages[2]; a.Content != "Both units at once." || len(a.ToolCalls) != 2 || a.ToolCalls[0].ID != "call_c" || a.ToolCalls[1].ID != "call_f" {
		t.Errorf("assistant message = %+v", a)
	}
	for i, want := range []struct{ id, variable string }{{"call_c", "weather"}, {"call_f", "weather_2"}} {
		m := second.Messages[3+i]
		var content struct {
			Success   bool `json:"success"`
			Variables []struct {
				Name string `json:"name"`
			} `json:"variables"`
		}
		if err := json.Unmarshal([]byte(m.Content), &content); err != nil || m.ToolCallID != want.id || !content.Success || content.Variables[0].Name != want.variable {
			t.Errorf("tool message %d = %+v (%v), want the result of %s in %s", i, m, err, want.id, want.variable)
		}
	}
	checkToolMessages(t, second)
}

// A code block in the assistant's text is a snippet step; its output goes
// back to the model in a user message.
func TestOpenAISnippetStep(t *testing.T) {
	rt, srv := openaiAgent(t, openaitest.Script(
		openaitest.Text("I will count the letters in Go.\n```go\nn := len(city) * 10\nfmt.Println(\"letters x 10 =\", n)\n```"),
		openaitest.Call("terminate", `{"success":true,"result":"<<var:n>>"}`),
	), agent.Options{})
	o, st := runState(t, rt, agent.RunOptions{Task: "count"})
	if o.Status != run.StatusCompleted || string(o.Result) != "50" {
		t.Fatalf("outcome = %+v", o)
	}
	if h := st.History(); len(h) != 2 || h[0].Kind != agent.KindSnippet || h[0].Created[0] != "n" {
		t.Fatalf("history = %+v", h)
	}
	second := srv.Requests()[1]
	if roles(second) != "system user assistant user" {
		t.Fatalf("roles = %s", roles(second))
	}
	if a := second.Messages[2]; !strings.Contains(a.Content, "```go\nn := len(city)") || len(a.ToolCalls) != 0 {
		t.Errorf("assistant message = %+v", a)
	}
	if m := second.Messages[3]; !strings.Contains(m.Content, "Results of your Go code") || !strings.Contains(m.Content, "letters x 10 = 50") {
		t.Errorf("snippet result message = %q", m.Content)
	}
	if !strings.Contains(second.Messages[3].Content, `"name":"n","type":"int","preview":"50"`) {
		t.Errorf("the snippet result does not announce n:\n%s", second.Messages[3].Content)
	}
}

// A snippet builds a value and a tool call of the same response uses it by
// reference.
func TestOpenAIMixedStep(t *testing.T) {
	rt, srv := openaiAgent(t, openaitest.Script(
		openaitest.Response{
			Text:      "I will build the name in Go first.\n```go\nimport \"strings\"\nfull := strings.ToUpper(city) + \", France\"\nfmt.Println(full)\n```",
			ToolCalls: []openaitest.ToolCall{{ID: "c1", Name: "get_weather", Arguments: `{"location":"<<var:full>>","unit":"c","return":null}`}},
		},
		openaitest.Call("terminate", `{"success":true,"result":"<<var:weather>>"}`),
	), agent.Options{})
	o, st := runState(t, rt, agent.RunOptions{Task: "weather"})
	if string(o.Result) != `"sunny, 21°C in PARIS, France"` {
		t.Fatalf("outcome = %+v", o)
	}
	h := st.History()
	if len(h) != 3 || h[0].Kind != agent.KindSnippet || h[1].Args[0].Ref != "full" {
		t.Fatalf("history = %+v", h)
	}
	second := srv.Requests()[1]
	checkToolMessages(t, second)
	var sawTool, sawSnippet bool
	for _, m := range second.Messages {
		sawTool = sawTool || (m.Role == "tool" && m.ToolCallID == "c1" && strings.Contains(m.Content, `"success":true`))
		sawSnippet = sawSnippet || (m.Role == "user" && strings.Contains(m.Content, "PARIS, France"))
	}
	if !sawTool || !sawSnippet {
		t.Fatalf("tool result sent: %v, snippet result sent: %v; roles %s", sawTool, sawSnippet, roles(second))
	}
}

func TestOpenAIResultSchemaWithOneInvalidAttempt(t *testing.T) {
	rt, srv := openaiAgent(t, openaitest.Script(
		openaitest.Call("terminate", `{"success":true,"result":{"city":"Paris"}}`),
		openaitest.Call("terminate", `{"success":true,"result":{"city":"Paris","temp_c":21}}`),
	), agent.Options{})
	o, _ := runState(t, rt, agent.RunOptions{Task: "forecast", ResultSchema: agent.ResultSchemaFor[Forecast]()})
	f, err := agent.ResultAs[Forecast](o)
	if err != nil || f != (Forecast{"Paris", 21}) || o.Steps != 2 {
		t.Fatalf("result = %+v, %v (outcome %+v)", f, err, o)
	}
	reqs := srv.Requests()
	if terminate, ok := reqs[0].Tool("terminate"); !ok || !strings.Contains(string(terminate.Parameters), "temp_c") {
		t.Fatalf("terminate's schema on the wire lacks the result schema: %+v", terminate)
	}
	last := reqs[1].Messages[len(reqs[1].Messages)-1]
	if last.Role != "user" || !strings.Contains(last.Content, "not valid") || !strings.Contains(last.Content, "temp_c") {
		t.Fatalf("retry message = %+v", last)
	}
	checkToolMessages(t, reqs[1])
}

func TestOpenAIRecoversFromFailingAction(t *testing.T) {
	flaky := action.MustNew(action.Spec{
		Name: "lookup", Description: "Population of a city.",
		Func: func(city string) (int, error) {
			if city != "Paris" {
				return 0, errors.New("unknown city " + city)
			}
			return 2_100_000, nil
		},
		Params: []action.Param{{Name: "city"}},
	})
	rt, srv := openaiAgent(t, openaitest.Script(
		openaitest.Call("lookup", `{"city":"Pari","return":null}`),
		openaitest.Call("lookup", `{"city":"<<var:city>>","return":null}`),
		openaitest.Call("terminate", `{"success":true,"result":"<<var:lookup_result>>"}`),
	), agent.Options{Actions: action.MustSet(flaky)})
	o, _ := runState(t, rt, agent.RunOptions{Task: "population"})
	if o.Status != run.StatusCompleted || string(o.Result) != "2100000" {
		t.Fatalf("outcome = %+v", o)
	}
	m := srv.Requests()[1].Messages[3]
	if m.Role != "tool" || m.ToolCallID != "call_1" || !strings.Contains(m.Content, `"success":false`) || !strings.Contains(m.Content, "unknown city Pari") {
		t.Fatalf("the failure was not sent back: %+v", m)
	}
}

func TestOpenAIStepLimit(t *testing.T) {
	rt, srv := openaiAgent(t, func(context.Context, openaitest.Request) (openaitest.Response, error) {
		return openaitest.Call("get_weather", `{"location":"Paris","unit":"c","return":null}`), nil
	}, agent.Options{})
	o, _ := runState(t, rt, agent.RunOptions{Task: "loop", Limits: agent.Limits{MaxSteps: 3}})
	if o.Status != run.StatusCompleted || string(o.Result) != "null" || o.Steps != 3 || !strings.Contains(o.Reason, "step limit (3)") {
		t.Fatalf("outcome = %+v", o)
	}
	if srv.Len() != 3 {
		t.Fatalf("the server got %d requests, want 3", srv.Len())
	}
}

func TestOpenAIFollowUp(t *testing.T) {
	rt, srv := openaiAgent(t, openaitest.Script(
		openaitest.Call("get_weather", `{"location":"<<var:city>>","unit":"c","return":null}`),
		openaitest.Call("terminate", `{"success":true,"result":"<<var:weather>>"}`),
		openaitest.Call("get_weather", `{"location":"<<var:city>>","unit":"f","return":"weather"}`),
		openaitest.Call("terminate", `{"success":true,"result":"<<var:weather>>"}`),
	), agent.Options{})
	ctx := context.Background()
	h, err := rt.Start(ctx, agent.RunOptions{Task: "weather in C"})
	if err != nil {
		t.Fatal(err)
	}
	first, _ := h.Wait(ctx)
	if err := h.FollowUp(ctx, "now in F"); err != nil {
		t.Fatal(err)
	}
	second, _ := h.Wait(ctx)
	if string(first.Result) != `"sunny, 21°C in Paris"` || string(second.Result) != `"sunny, 21°F in Paris"` || second.Status != run.StatusCompleted {
		t.Fatalf("results %s then %+v", first.Result, second)
	}
	if v, _ := h.State().Variable("weather"); len(v.History) != 2 {
		t.Fatalf("weather's history = %+v", v.History)
	}
	// The follow-up's first request carries the whole first turn, then the
	// new message.
	req := srv.Requests()[2]
	if got := roles(req); got != "system user assistant tool assistant tool user" {
		t.Fatalf("roles = %s", got)
	}
	if req.Messages[1].Content != "weather in C" || req.Messages[6].Content != "now in F" {
		t.Fatalf("messages = %+v", req.Messages)
	}
	// The variables are named once, where they were made.
	if strings.Contains(req.Messages[0].Content, "weather") || !strings.Contains(req.Messages[3].Content, `"name":"weather"`) {
		t.Errorf("weather is not named once, in the tool message that made it: %+v", req.Messages)
	}
	for _, r := range srv.Requests() {
		checkToolMessages(t, r)
	}
}

// Over the window's share, the run compacts: the messages after the task
// become one summary that names each earlier step's variables by
// reference; between compactions each request begins with the previous
// one, and the server never gets a tool message without its call.
func TestOpenAIContextCompaction(t *testing.T) {
	big := strings.Repeat("word ", 400) // ~500 tokens per assistant message
	rt, srv := openaiAgent(t, func(_ context.Context, req openaitest.Request) (openaitest.Response, error) {
		r := openaitest.Call("get_weather", `{"location":"Paris","unit":"c","return":null}`)
		r.Text = big
		return r, nil
	}, agent.Options{})
	o, _ := runState(t, rt, agent.RunOptions{Task: "the task", Limits: agent.Limits{MaxSteps: 12, ContextWindow: 4000, ContextShare: 0.75}})
	if o.Status != run.StatusCompleted || o.Steps != 12 {
		t.Fatalf("outcome = %+v", o)
	}
	reqs := srv.Requests()
	if len(reqs) != 12 {
		t.Fatalf("%d requests", len(reqs))
	}
	compactions := 0
	for i, req := range reqs {
		if req.Messages[0].Role != "system" || !strings.HasPrefix(req.Messages[0].Content, "Use the tools") {
			t.Fatalf("request %d: the system prompt was not kept: %+v", i, req.Messages[0])
		}
		if req.Messages[1].Role != "user" || req.Messages[1].Content != "the task" {
			t.Fatalf("request %d: the task was not kept: %+v", i, req.Messages[1])
		}
		checkToolMessages(t, req)
		if i == 0 {
			continue
		}
		prev := reqs[i-1]
		if len(req.Messages) > len(prev.Messages) && reflect.DeepEqual(req.Messages[:len(prev.Messages)], prev.Messages) {
			continue // appended
		}
		compactions++
		if len(req.Messages) != 3 || req.Messages[2].Role != "user" || !strings.Contains(req.Messages[2].Content, "were compacted") ||
			!strings.Contains(req.Messages[2].Content, "<<var:weather>>") {
			t.Errorf("request %d neither extends the previous one nor follows a compaction: %+v", i, req.Messages)
		}
	}
	if compactions == 0 {
		t.Fatal("no compaction in 12 steps of 500 tokens with a 3,000-token threshold")
	}
}

func TestOpenAILargeResultBecomesVariable(t *testing.T) {
	dump := action.MustNew(action.Spec{
		Name: "dump", Description: "Print a lot.",
		Func: func(ctx context.Context) {
			fmt.Fprint(action.Stdout(ctx), strings.Repeat("x", 5000))
		},
	})
	rt, srv := openaiAgent(t, openaitest.Script(
		openaitest.Call("dump", `{}`),
		openaitest.Call("terminate", `{"success":true,"result":null}`),
	), agent.Options{Actions: action.MustSet(dump)})
	o, st := runState(t, rt, agent.RunOptions{Task: "dump", Limits: agent.Limits{LargeResult: 1000}})
	if o.Status != run.StatusCompleted {
		t.Fatalf("outcome = %+v", o)
	}
	m := srv.Requests()[1].Messages[3]
	if m.Role != "tool" || len(m.Content) > 1000 || !strings.Contains(m.Content, "<<var:dump_output>>") {
		t.Fatalf("tool message = %+v", m)
	}
	v, ok := st.Variable("dump_output")
	if s, _ := v.Value.(string); !ok || !strings.Contains(s, strings.Repeat("x", 5000)) {
		t.Fatal("the whole result must be kept in the variable")
	}
	// The model can pass the new variable on: its tool message names it.
	if !strings.Contains(m.Content, `"variable":"dump_output"`) {
		t.Errorf("the tool message does not name dump_output: %s", m.Content)
	}
}

// The token budget counts the usage the server reports.
func TestOpenAITokenBudget(t *testing.T) {
	rt, srv := openaiAgent(t, func(context.Context, openaitest.Request) (openaitest.Response, error) {
		return withUsage(openaitest.Call("get_weather", `{"location":"Paris","unit":"c","return":null}`), 600, 10), nil
	}, agent.Options{})
	o, _ := runState(t, rt, agent.RunOptions{Task: "loop", Limits: agent.Limits{MaxTokens: 1000}})
	if o.Status != run.StatusCompleted || o.Steps != 2 || srv.Len() != 2 || !strings.Contains(o.Reason, "token budget") || o.Usage.Total() != 1220 {
		t.Fatalf("outcome = %+v after %d requests", o, srv.Len())
	}
}

// A provider error that retrying cures does not reach the run; one that it
// does not cure fails the run with the provider's reason.
func TestOpenAIProviderErrors(t *testing.T) {
	fast := llm.RetryPolicy{Attempts: 3, Backoff: time.Millisecond, MaxBackoff: 5 * time.Millisecond}

	calls := 0
	rt, srv := openaiAgent(t, func(context.Context, openaitest.Request) (openaitest.Response, error) {
		calls++ // requests of one run are sequential
		switch calls {
		case 1:
			return openaitest.Response{}, openaitest.Error(http.StatusInternalServerError, "The server had an error")
		case 2:
			return openaitest.Response{}, openaitest.RateLimited(0)
		}
		return openaitest.Call("terminate", `{"success":true,"result":"<<var:city>>"}`), nil
	}, agent.Options{})
	o, err := rt.Run(context.Background(), agent.RunOptions{Task: "t", Limits: agent.Limits{Retry: fast}})
	if err != nil || o.Status != run.StatusCompleted || string(o.Result) != `"Paris"` || o.Steps != 1 || srv.Len() != 3 {
		t.Fatalf("outcome = %+v, %v after %d requests", o, err, srv.Len())
	}

	rt, srv = openaiAgent(t, func(context.Context, openaitest.Request) (openaitest.Response, error) {
		return openaitest.Response{}, openaitest.Error(http.StatusUnauthorized, "Incorrect API key provided")
	}, agent.Options{})
	o, err = rt.Run(context.Background(), agent.RunOptions{Task: "t", Limits: agent.Limits{Retry: fast}})
	if err != nil || o.Status != run.StatusFailed || !strings.Contains(o.Reason, "model:") || !strings.Contains(o.Reason, "Incorrect API key provided") || srv.Len() != 1 {
		t.Fatalf("outcome = %+v, %v after %d requests (a 401 is not retried)", o, err, srv.Len())
	}
}
