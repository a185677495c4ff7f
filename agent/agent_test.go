package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/byref/byref/action"
	"github.com/byref/byref/agent"
	"github.com/byref/byref/llm"
	"github.com/byref/byref/run"
	"github.com/byref/byref/variable"
)

func newAgent(t testing.TB, model llm.Model, opts agent.Options) *agent.Agent {
	t.Helper()
	if opts.Actions == nil {
		opts.Actions = action.MustSet(weatherAction)
	}
	if opts.Variables == nil {
		opts.Variables = []variable.Spec{{Name: "city", Value: "Paris"}}
	}
	opts.Model = model
	rt, err := agent.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return rt
}

func events(t testing.TB, h *agent.Handle) []run.Event {
	t.Helper()
	var out []run.Event
	for e, err := range h.Events(context.Background(), 1) {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, e)
	}
	return out
}

func types(evs []run.Event) []string {
	var out []string
	for _, e := range evs {
		out = append(out, string(e.Type()))
	}
	return out
}

func TestAgentWeatherTask(t *testing.T) {
	model := llm.NewScripted(
		llm.CallTool("get_weather", `{"location":"<<var:city>>","unit":"c","return":null}`),
		llm.CallTool("terminate", `{"success":true,"result":"<<var:weather>>"}`),
	)
	rt := newAgent(t, model, agent.Options{})
	h, err := rt.Start(context.Background(), agent.RunOptions{Task: "What is the weather in the city?", Name: "weather", Tags: map[string]string{"team": "demo"}})
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
	evs := events(t, h)
	got := strings.Join(types(evs), " ")
	for _, want := range []string{"run_created", "variable_created", "status_changed", "user_message", "tool_call_scheduled", "tool_call_completed", "result"} {
		if !strings.Contains(got, want) {
			t.Errorf("events %s lack %s", got, want)
		}
	}
	snap := run.Fold(evs)
	if snap.Status != run.StatusCompleted || string(snap.Result) != string(o.Result) || len(snap.ToolCalls) != 2 {
		t.Fatalf("snapshot = %+v", snap)
	}
	if tc := snap.ToolCalls[0]; tc.Call.References["location"].Variable != "city" || !tc.Success {
		t.Fatalf("tool call = %+v", tc)
	}
	if v, ok := snap.Variable("weather"); !ok || v.Preview != `sunny, 21°C in Paris` {
		t.Fatalf("weather in snapshot = %+v", v)
	}
	// The model saw the schemas and a system prompt listing the variable.
	req := model.Requests()[0]
	if !strings.Contains(req.Messages[0].Text, "- city (string): Paris") {
		t.Fatalf("system prompt lacks the variable:\n%s", req.Messages[0].Text)
	}
	var offered []string
	for _, tool := range req.Tools {
		offered = append(offered, tool.Name)
		if !tool.Strict {
			t.Errorf("%s is not strict-compatible", tool.Name)
		}
	}
	if got := strings.Join(offered, " "); got != "get_weather terminate ask_user run_go" {
		t.Fatalf("tools = %s", got)
	}
}

// A snippet builds a value and a tool call of the same step uses it by
// reference.
func TestAgentMixedStep(t *testing.T) {
	model := llm.NewScripted(
		llm.Response{
			Text:      "I will build the name in Go first.\n```go\nimport \"strings\"\nfull := strings.ToUpper(city) + \", France\"\nfmt.Println(full)\n```",
			ToolCalls: []llm.ToolCall{{ID: "c1", Name: "get_weather", Arguments: `{"location":"<<var:full>>","unit":"c","return":null}`}},
		},
		llm.CallTool("terminate", `{"success":true,"result":"<<var:weather>>"}`),
	)
	rt := newAgent(t, model, agent.Options{})
	o, st := runState(t, rt, agent.RunOptions{Task: "weather"})
	if string(o.Result) != `"sunny, 21°C in PARIS, France"` {
		t.Fatalf("outcome = %+v", o)
	}
	h := st.History()
	if len(h) != 3 || h[0].Kind != agent.KindSnippet || h[0].Created[0] != "full" || h[1].Args[0].Ref != "full" {
		t.Fatalf("history = %+v", h)
	}
	// The snippet's output reached the model.
	msgs := model.Requests()[1].Messages
	found := false
	for _, m := range msgs {
		if strings.Contains(m.Text, "PARIS, France") && strings.Contains(m.Text, "Results of your Go code") {
			found = true
		}
	}
	if !found {
		t.Fatalf("the snippet's result was not sent back: %+v", msgs)
	}
}

type Forecast struct {
	City  string `json:"city"`
	TempC int    `json:"temp_c"`
}

func TestAgentResultSchemaWithOneInvalidAttempt(t *testing.T) {
	model := llm.NewScripted(
		llm.CallTool("terminate", `{"success":true,"result":{"city":"Paris"}}`),
		llm.CallTool("terminate", `{"success":true,"result":{"city":"Paris","temp_c":21}}`),
	)
	rt := newAgent(t, model, agent.Options{})
	o, err := rt.Run(context.Background(), agent.RunOptions{Task: "forecast", ResultSchema: agent.ResultSchemaFor[Forecast]()})
	if err != nil {
		t.Fatal(err)
	}
	f, err := agent.ResultAs[Forecast](o)
	if err != nil || f != (Forecast{"Paris", 21}) {
		t.Fatalf("result = %+v, %v (outcome %+v)", f, err, o)
	}
	// The model was told why the first result was refused.
	last := model.Requests()[1].Messages
	if m := last[len(last)-1]; !strings.Contains(m.Text, "not valid") || !strings.Contains(m.Text, "temp_c") {
		t.Fatalf("retry message = %q", m.Text)
	}
	// terminate's result follows the schema.
	for _, tool := range model.Requests()[0].Tools {
		if tool.Name == "terminate" && !strings.Contains(string(tool.Parameters), "temp_c") {
			t.Fatalf("terminate schema lacks the result schema: %s", tool.Parameters)
		}
	}
}

func TestAgentResultSchemaGivesUp(t *testing.T) {
	bad := llm.CallTool("terminate", `{"success":true,"result":{"city":1}}`)
	model := llm.NewScripted(bad, bad, bad)
	rt := newAgent(t, model, agent.Options{})
	o, err := rt.Run(context.Background(), agent.RunOptions{Task: "forecast", ResultSchema: agent.ResultSchemaFor[Forecast](), Limits: agent.Limits{ResultRetries: 2}})
	if err != nil {
		t.Fatal(err)
	}
	if o.Status != run.StatusCompleted || string(o.Result) != "null" || !strings.Contains(o.Reason, "no valid result after 3 attempts") {
		t.Fatalf("outcome = %+v", o)
	}
}

func TestAgentRecoversFromFailingAction(t *testing.T) {
	flaky := action.MustNew(action.Spec{
		Name: "lookup", Func: func(city string) (int, error) {
			if city != "Paris" {
				return 0, errors.New("unknown city " + city)
			}
			return 2_100_000, nil
		},
		Params: []action.Param{{Name: "city"}},
	})
	model := llm.NewScripted(
		llm.CallTool("lookup", `{"city":"Pari","return":null}`),
		llm.CallTool("lookup", `{"city":"<<var:city>>","return":null}`),
		llm.CallTool("terminate", `{"success":true,"result":"<<var:lookup_result>>"}`),
	)
	rt := newAgent(t, model, agent.Options{Actions: action.MustSet(flaky)})
	o, err := rt.Run(context.Background(), agent.RunOptions{Task: "population"})
	if err != nil {
		t.Fatal(err)
	}
	if o.Status != run.StatusCompleted || string(o.Result) != "2100000" {
		t.Fatalf("outcome = %+v", o)
	}
	tool := model.Requests()[1].Messages[3]
	if tool.Role != llm.RoleTool || !strings.Contains(tool.Text, "unknown city Pari") {
		t.Fatalf("the failure was not sent back: %+v", tool)
	}
}

func TestAgentStepLimit(t *testing.T) {
	model := llm.NewScriptedFunc(func(llm.Request) (llm.Response, error) {
		return llm.CallTool("get_weather", `{"location":"Paris","unit":"c","return":null}`), nil
	})
	rt := newAgent(t, model, agent.Options{})
	o, err := rt.Run(context.Background(), agent.RunOptions{Task: "loop", Limits: agent.Limits{MaxSteps: 3}})
	if err != nil {
		t.Fatal(err)
	}
	if o.Status != run.StatusCompleted || string(o.Result) != "null" || o.Steps != 3 || !strings.Contains(o.Reason, "step limit (3)") {
		t.Fatalf("outcome = %+v", o)
	}
}

func TestAgentTokenBudget(t *testing.T) {
	model := llm.NewScriptedFunc(func(llm.Request) (llm.Response, error) {
		r := llm.CallTool("get_weather", `{"location":"Paris","unit":"c","return":null}`)
		r.Usage = llm.Usage{InputTokens: 600, OutputTokens: 10}
		return r, nil
	})
	rt := newAgent(t, model, agent.Options{})
	o, _ := rt.Run(context.Background(), agent.RunOptions{Task: "loop", Limits: agent.Limits{MaxTokens: 1000}})
	if o.Status != run.StatusCompleted || o.Steps != 2 || !strings.Contains(o.Reason, "token budget") || o.Usage.Total() != 1220 {
		t.Fatalf("outcome = %+v", o)
	}
}

func TestAgentFollowUp(t *testing.T) {
	model := llm.NewScripted(
		llm.CallTool("get_weather", `{"location":"<<var:city>>","unit":"c","return":null}`),
		llm.CallTool("terminate", `{"success":true,"result":"<<var:weather>>"}`),
		llm.CallTool("get_weather", `{"location":"<<var:city>>","unit":"f","return":"weather"}`),
		llm.CallTool("terminate", `{"success":true,"result":"<<var:weather>>"}`),
	)
	rt := newAgent(t, model, agent.Options{})
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
	if string(first.Result) != `"sunny, 21°C in Paris"` || string(second.Result) != `"sunny, 21°F in Paris"` {
		t.Fatalf("results %s then %s", first.Result, second.Result)
	}
	// Variables and history were kept: weather was assigned, not recreated.
	if v, _ := h.State().Variable("weather"); len(v.History) != 2 {
		t.Fatalf("weather's history = %+v", v.History)
	}
	evs := events(t, h)
	results := 0
	for _, e := range evs {
		if _, ok := e.Payload.(run.Result); ok {
			results++
		}
	}
	if snap := run.Fold(evs); results != 2 || string(snap.Result) != string(second.Result) || snap.Status != run.StatusCompleted {
		t.Fatalf("%d results, snapshot %+v", results, snap)
	}
	// The model saw the whole conversation.
	if msgs := model.Requests()[2].Messages; msgs[len(msgs)-1].Text != "now in F" {
		t.Fatalf("last message = %+v", msgs[len(msgs)-1])
	}
}

func TestAgentNonInteractiveRefusesFollowUp(t *testing.T) {
	model := llm.NewScripted(llm.CallTool("terminate", `{"success":true,"result":"x"}`))
	rt := newAgent(t, model, agent.Options{})
	h, _ := rt.Start(context.Background(), agent.RunOptions{Task: "t", NonInteractive: true})
	h.Wait(context.Background())
	if err := h.FollowUp(context.Background(), "more"); !errors.Is(err, agent.ErrNotFollowable) {
		t.Fatalf("err = %v", err)
	}
}

// Over the window's share, the run compacts once, records it, and goes on
// append-only: the last request is the system prompt, the task, the
// summary and what came after it.
func TestAgentContextCompaction(t *testing.T) {
	big := strings.Repeat("word ", 400) // ~500 tokens per message
	model := llm.NewScriptedFunc(func(req llm.Request) (llm.Response, error) {
		r := llm.CallTool("get_weather", `{"location":"Paris","unit":"c","return":null}`)
		r.Text = big
		return r, nil
	})
	rt := newAgent(t, model, agent.Options{})
	h, _ := rt.Start(context.Background(), agent.RunOptions{Task: "the task", Limits: agent.Limits{MaxSteps: 12, ContextWindow: 4000, ContextShare: 0.75}})
	h.Wait(context.Background())
	reqs := model.Requests()
	last := reqs[len(reqs)-1]
	if last.Messages[0].Role != llm.RoleSystem || last.Messages[1].Text != "the task" {
		t.Fatalf("the system prompt and the task must be kept: %+v", last.Messages[:2])
	}
	if len(last.Messages) >= 2+2*11 {
		t.Fatalf("nothing was compacted: %d messages", len(last.Messages))
	}
	if m := last.Messages[2]; m.Role != llm.RoleUser || !strings.Contains(m.Text, "were compacted") {
		t.Fatalf("the summary does not follow the task: %s %.200s", m.Role, m.Text)
	}
	var events []run.ContextCompacted
	for e, err := range h.Events(context.Background(), 1) {
		if err != nil {
			t.Fatal(err)
		}
		if c, ok := e.Payload.(run.ContextCompacted); ok {
			events = append(events, c)
		}
		if s, ok := e.Payload.(run.StatusChanged); ok && s.To.Terminal() {
			break
		}
	}
	if len(events) == 0 || events[len(events)-1].Summary != last.Messages[2].Text || events[0].Tokens <= events[0].Threshold || events[0].Threshold != 3000 {
		t.Fatalf("compactions recorded: %+v", events)
	}
	if snap, _ := h.Snapshot(context.Background()); snap.Compactions != len(events) {
		t.Errorf("snapshot counts %d compactions, the log %d", snap.Compactions, len(events))
	}
	// History marks the instructions that followed a compaction.
	hist, _ := h.History(context.Background())
	marked := 0
	for _, in := range hist {
		if in.Compacted {
			marked++
			if in.Step != events[marked-1].Step+1 {
				t.Errorf("instruction of step %d marked, the compaction folded steps up to %d", in.Step, events[marked-1].Step)
			}
		}
	}
	if marked != len(events) {
		t.Errorf("%d instructions marked as following a compaction, want %d", marked, len(events))
	}
}

func TestAgentLargeResultBecomesVariable(t *testing.T) {
	dump := action.MustNew(action.Spec{
		Name: "dump", Func: func(ctx context.Context) {
			fmt.Fprint(action.Stdout(ctx), strings.Repeat("x", 5000))
		},
	})
	model := llm.NewScripted(
		llm.CallTool("dump", `{}`),
		llm.CallTool("terminate", `{"success":true,"result":null}`),
	)
	rt := newAgent(t, model, agent.Options{Actions: action.MustSet(dump)})
	h, _ := rt.Start(context.Background(), agent.RunOptions{Task: "dump", Limits: agent.Limits{LargeResult: 1000}})
	h.Wait(context.Background())
	if snap, _ := h.Snapshot(context.Background()); !slices.ContainsFunc(snap.Variables, func(v run.VariableState) bool { return v.Name == "dump_output" }) {
		t.Fatalf("the log does not record dump_output: %+v", snap.Variables)
	}
	tool := model.Requests()[1].Messages[3]
	if len(tool.Text) > 1000 || !strings.Contains(tool.Text, "<<var:dump_output>>") {
		t.Fatalf("tool message = %q", tool.Text)
	}
	v, ok := h.State().Variable("dump_output")
	if s, _ := v.Value.(string); !ok || !strings.Contains(s, strings.Repeat("x", 5000)) {
		t.Fatalf("the whole result must be kept in the variable")
	}
	// It is recorded like any variable a call made.
	if h := h.State().History(); !slices.Contains(h[0].Created, "dump_output") {
		t.Fatalf("history = %+v", h[0])
	}

}

func TestAgentIdempotentCreate(t *testing.T) {
	// The model answers once the second Start has returned: a run that
	// ended before it would no longer be going on in the agent.
	release := make(chan struct{})
	model := llm.NewScriptedFunc(func(llm.Request) (llm.Response, error) {
		<-release
		return llm.CallTool("terminate", `{"success":true,"result":"x"}`), nil
	})
	rt := newAgent(t, model, agent.Options{})
	h1, err := rt.Start(context.Background(), agent.RunOptions{Task: "t", ID: "run_fixed"})
	if err != nil {
		close(release)
		t.Fatal(err)
	}
	h2, err := rt.Start(context.Background(), agent.RunOptions{Task: "t", ID: "run_fixed"})
	close(release)
	if err != nil || h2 != h1 {
		t.Fatalf("second Start = %v, %v; want the same handle", h2, err)
	}
	h1.Wait(context.Background())
	if model.Calls() != 1 {
		t.Fatalf("the model was called %d times", model.Calls())
	}
}

type userKey struct{}

// Values of the context given to Start reach the run's actions (and never
// the model); the allow-list leaves other actions out.
func TestAgentContextValuesAndAllowList(t *testing.T) {
	whoami := action.MustNew(action.Spec{
		Name: "whoami", Func: func(ctx context.Context) string {
			u, _ := ctx.Value(userKey{}).(string)
			return u
		},
	})
	model := llm.NewScripted(
		llm.CallTool("get_weather", `{"location":"Paris","unit":"c","return":null}`),
		llm.CallTool("whoami", `{"return":null}`),
		llm.CallTool("terminate", `{"success":true,"result":"<<var:whoami_result>>"}`),
	)
	rt := newAgent(t, model, agent.Options{Actions: action.MustSet(weatherAction, whoami)})
	ctx, cancel := context.WithCancel(context.WithValue(context.Background(), userKey{}, "ada"))
	h, err := rt.Start(ctx, agent.RunOptions{Task: "t", Actions: []string{"whoami"}})
	cancel() // the context bounds the start only
	if err != nil {
		t.Fatal(err)
	}
	o, _ := h.Wait(context.Background())
	if string(o.Result) != `"ada"` {
		t.Fatalf("outcome = %+v", o)
	}
	for _, tool := range model.Requests()[0].Tools {
		if tool.Name == "get_weather" {
			t.Fatal("get_weather is not attached but was offered")
		}
		if strings.Contains(string(tool.Parameters), "ada") {
			t.Fatal("a context value reached the model")
		}
	}
	if m := model.Requests()[1].Messages[3]; !strings.Contains(m.Text, "not attached to this run") {
		t.Fatalf("tool message = %q", m.Text)
	}
}

func TestAgentModelFailureFailsTheRun(t *testing.T) {
	model := llm.NewScriptedFunc(func(llm.Request) (llm.Response, error) {
		return llm.Response{}, &llm.ProviderError{Provider: "test", StatusCode: 400, Kind: llm.ErrRequestRejected, Err: errors.New("bad request")}
	})
	rt := newAgent(t, model, agent.Options{})
	o, _ := rt.Run(context.Background(), agent.RunOptions{Task: "t"})
	if o.Status != run.StatusFailed || !strings.Contains(o.Reason, "model:") {
		t.Fatalf("outcome = %+v", o)
	}
}

func TestAgentCancel(t *testing.T) {
	started := make(chan struct{})
	block := action.MustNew(action.Spec{
		Name: "block", Func: func(ctx context.Context) error {
			close(started)
			<-ctx.Done()
			return ctx.Err()
		},
	})
	model := llm.NewScripted(llm.CallTool("block", `{}`))
	var mu sync.Mutex
	var seen []run.Status
	rt := newAgent(t, model, agent.Options{Actions: action.MustSet(block)})
	h, _ := rt.Start(context.Background(), agent.RunOptions{
		Task: "t",
		OnStatus: func(c run.StatusChanged) {
			mu.Lock()
			seen = append(seen, c.To)
			mu.Unlock()
		},
	})
	<-started
	if err := h.Cancel(context.Background()); err != nil {
		t.Fatal(err)
	}
	o, _ := h.Wait(context.Background())
	if o.Status != run.StatusCanceled {
		t.Fatalf("outcome = %+v", o)
	}
	mu.Lock()
	defer mu.Unlock()
	if got := fmt.Sprint(seen); got != "[running cancelling canceled]" {
		t.Fatalf("statuses = %s", got)
	}
	if err := h.Cancel(context.Background()); !errors.Is(err, agent.ErrTerminal) {
		t.Fatalf("cancelling a canceled run: %v", err)
	}
}

func TestAgentInputValidated(t *testing.T) {
	rt := newAgent(t, llm.NewScripted(llm.CallTool("terminate", `{"success":true,"result":"<<var:input>>"}`)), agent.Options{})
	schemaJSON := json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`)
	if _, err := rt.Start(context.Background(), agent.RunOptions{InputSchema: schemaJSON, Input: json.RawMessage(`{"n":"x"}`)}); !errors.Is(err, agent.ErrInvalidInput) {
		t.Fatalf("err = %v", err)
	}
	o, err := rt.Run(context.Background(), agent.RunOptions{InputSchema: schemaJSON, Input: json.RawMessage(`{"n":2}`)})
	if err != nil || string(o.Result) != `{"n":2}` {
		t.Fatalf("outcome = %+v, %v", o, err)
	}
}

// Limits apply per turn, and the follow-up that opened a turn survives
// truncation.
func TestAgentFollowUpGetsItsOwnLimitsAndKeepsItsMessage(t *testing.T) {
	big := strings.Repeat("word ", 400)
	calls := 0
	model := llm.NewScriptedFunc(func(req llm.Request) (llm.Response, error) {
		calls++
		if calls == 1 {
			return llm.CallTool("terminate", `{"success":true,"result":"first"}`), nil
		}
		r := llm.CallTool("get_weather", `{"location":"Paris","unit":"c","return":null}`)
		r.Text = big
		return r, nil
	})
	rt := newAgent(t, model, agent.Options{})
	ctx := context.Background()
	h, _ := rt.Start(ctx, agent.RunOptions{Task: "t", Limits: agent.Limits{MaxSteps: 8, ContextWindow: 4000}})
	h.Wait(ctx)
	if err := h.FollowUp(ctx, "FOLLOW-UP"); err != nil {
		t.Fatal(err)
	}
	o, _ := h.Wait(ctx)
	if o.Steps != 9 || !strings.Contains(o.Reason, "step limit (8)") {
		t.Fatalf("the follow-up did not get its own 8 steps: %+v", o)
	}
	for i, req := range model.Requests()[1:] {
		found := false
		for _, m := range req.Messages {
			// After a compaction, the summary quotes it.
			found = found || m.Text == "FOLLOW-UP" || strings.Contains(m.Text, "- the user: FOLLOW-UP")
		}
		if !found {
			t.Fatalf("request %d of the follow-up lost the follow-up message", i+2)
		}
	}
}

// Tools whose raw schemas break OpenAI's strict rules (a map parameter)
// are sent without strict; the others with it.
func TestAgentStrictFlagFollowsTheSchema(t *testing.T) {
	tally := action.MustNew(action.Spec{Name: "tally", Func: func(m map[string]int) int { return len(m) }, Params: []action.Param{{Name: "counts"}}})
	model := llm.NewScripted(llm.CallTool("terminate", `{"success":true,"result":null}`))
	rt := newAgent(t, model, agent.Options{Actions: action.MustSet(weatherAction, tally)})
	rt.Run(context.Background(), agent.RunOptions{Task: "t"})
	strict := map[string]bool{}
	for _, tool := range model.Requests()[0].Tools {
		strict[tool.Name] = tool.Strict
	}
	if !strict["get_weather"] || strict["tally"] || !strict["terminate"] {
		t.Fatalf("strict = %v", strict)
	}
}

func TestNamesOfVariablesAndActionsDoNotCollide(t *testing.T) {
	if _, err := agent.New(agent.Options{Actions: action.MustSet(weatherAction), Variables: []variable.Spec{{Name: "get_weather", Value: 1}}}); err == nil {
		t.Error("a variable named like an action was accepted")
	}
	st, _ := newState(agent.Options{Variables: []variable.Spec{{Name: "get_weather", Value: 1}}})
	if err := st.AddActions(weatherAction); err == nil {
		t.Error("an action named like a variable was accepted")
	}
	fake := action.MustNew(action.Spec{Name: "run_go", Func: func() {}})
	if err := st.AddActions(fake); err == nil {
		t.Error("an action named like a built-in was accepted")
	}
}

func TestAgentInputIsTheLatestRuns(t *testing.T) {
	model := llm.NewScriptedFunc(func(llm.Request) (llm.Response, error) {
		return llm.CallTool("terminate", `{"success":true,"result":"<<var:input>>"}`), nil
	})
	rt := newAgent(t, model, agent.Options{})
	for _, in := range []string{`{"n":1}`, `{"n":2}`} {
		o, err := rt.Run(context.Background(), agent.RunOptions{Input: json.RawMessage(in)})
		if err != nil || string(o.Result) != in {
			t.Fatalf("input %s: result %s, %v", in, o.Result, err)
		}
	}
}

func TestAFailedCreateLeavesTheAgentUsable(t *testing.T) {
	store := &failingStore{Store: run.NewMemoryStore(), left: 0}
	rt := newAgent(t, llm.NewScripted(llm.CallTool("terminate", `{"success":true,"result":"ok"}`)), agent.Options{Store: store})
	if _, err := rt.Start(context.Background(), agent.RunOptions{Task: "t"}); err == nil {
		t.Fatal("Start succeeded on a failing store")
	}
	store.mu.Lock()
	store.left = 1 << 30
	store.mu.Unlock()
	if o, err := rt.Run(context.Background(), agent.RunOptions{Task: "t"}); err != nil || !o.OK() {
		t.Fatalf("the runtime stayed busy after a failed Create: %+v, %v", o, err)
	}
}

// An action that needs approval never runs where nobody can approve it.
func TestNeedsApprovalRefusedWithoutARun(t *testing.T) {
	paid := false
	pay := action.MustNew(action.Spec{Name: "pay", Func: func() { paid = true }, NeedsApproval: true})
	st, _ := newState(agent.Options{Actions: action.MustSet(pay)})
	resp := call(st, "pay", `{}`)
	if resp.Success || paid || !strings.Contains(resp.Error, "needs a person's approval") {
		t.Fatalf("resp = %+v, paid %v", resp, paid)
	}
}

// With Limits.ModelSummary, a compaction adds the model's own summary,
// written in a call without tools, to the runtime's; the log keeps the
// whole text and the call's tokens. Off by default.
func TestAgentModelSummary(t *testing.T) {
	for _, on := range []bool{false, true} {
		big := strings.Repeat("word ", 400)
		asked := 0
		model := llm.NewScriptedFunc(func(req llm.Request) (llm.Response, error) {
			if last := req.Messages[len(req.Messages)-1]; strings.HasPrefix(last.Text, "The conversation is about to be compacted") {
				asked++
				if len(req.Tools) != 0 {
					t.Error("the summary request offers tools")
				}
				r := llm.Text("MODEL-SUMMARY: the weather in Paris was checked.")
				r.Usage = llm.Usage{InputTokens: 100, OutputTokens: 10}
				return r, nil
			}
			r := llm.CallTool("get_weather", `{"location":"Paris","unit":"c","return":null}`)
			r.Text = big
			return r, nil
		})
		rt := newAgent(t, model, agent.Options{})
		h, _ := rt.Start(context.Background(), agent.RunOptions{Task: "the task", Limits: agent.Limits{MaxSteps: 8, ContextWindow: 4000, ModelSummary: on}})
		o, _ := h.Wait(context.Background())
		snap, _ := h.Snapshot(context.Background())
		if snap.Compactions == 0 {
			t.Fatalf("on=%v: no compaction", on)
		}
		reqs := model.Requests()
		sawSummary := false
		for _, req := range reqs {
			for _, m := range req.Messages {
				sawSummary = sawSummary || strings.Contains(m.Text, "were compacted") && strings.Contains(m.Text, "MODEL-SUMMARY")
			}
		}
		if on != (asked == snap.Compactions) || on != sawSummary || (!on && asked != 0) {
			t.Errorf("on=%v: the model was asked %d times for %d compactions; its summary reached the conversation: %v", on, asked, snap.Compactions, sawSummary)
		}
		if on && (o.Usage.InputTokens < 100*asked || snap.Usage.InputTokens != int64(o.Usage.InputTokens)) {
			t.Errorf("on=%v: usage %+v, snapshot %+v", on, o.Usage, snap.Usage)
		}
	}
}
