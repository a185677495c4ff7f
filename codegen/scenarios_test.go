package codegen_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/byref/byref/action"
	"github.com/byref/byref/agent"
	"github.com/byref/byref/codegen"
	"github.com/byref/byref/codegen/codegentest"
	"github.com/byref/byref/internal/toolschema"
	"github.com/byref/byref/llm"
	"github.com/byref/byref/run"
	"github.com/byref/byref/variable"
)

// scenario is one recorded run: how to record it, and what its replay must
// reproduce.
type scenario struct {
	name string
	// record runs it for real (or builds its log) and returns the
	// recording with the final variables and result the replay must give.
	record func(t *testing.T) (rec *codegen.Recording, vars map[string]json.RawMessage, result json.RawMessage)
	env    map[string]string
	// secrets must not appear in the generated source.
	secrets []string
}

func scenarios() []scenario {
	return []scenario{
		{name: "json_calls", record: recordJSONCalls},
		{name: "snippets_only", record: recordSnippetsOnly},
		{name: "mixed", record: recordMixed},
		{name: "return_existing", record: recordReturnExisting},
		{name: "failed_call", record: recordFailedCall},
		{name: "secret", record: recordSecret, env: map[string]string{"BYREF_API_KEY": "sk-test-123"}, secrets: []string{"sk-test-123"}},
		{name: "structured_result", record: recordStructured},
		{name: "child_run", record: recordChildRun},
		{name: "early_return", record: recordEarlyReturn},
		{name: "ask_user", record: recordAskUser},
		{name: "frontend_tool", record: recordFrontendTool},
	}
}

func newRuntime(t testing.TB, model llm.Model, vars ...variable.Spec) *agent.Agent {
	t.Helper()
	rt, err := agent.New(agent.Options{Actions: codegentest.Actions(), Variables: vars, Model: model, CallTimeout: -1})
	if err != nil {
		t.Fatal(err)
	}
	return rt
}

// steps is a run written as the steps a model would take, recorded by
// playing them on a scripted model (record), the way a host records a
// run: codegen reads its log.
type steps struct {
	vars  []variable.Spec
	steps []agent.Step
}

// newState returns an empty run of the steps kind.
func newState(t *testing.T, _ llm.Model, vars ...variable.Spec) *steps {
	t.Helper()
	return &steps{vars: vars}
}

// run plays the steps, then terminate, on a scripted model, and returns
// the final State and the run's log.
func (s *steps) run(t testing.TB, id string) (*agent.State, []run.Event) {
	t.Helper()
	var responses []llm.Response
	for _, st := range s.steps {
		r := llm.Response{Text: st.Reason}
		for _, code := range st.Snippets {
			r.Text += "\n\n```go\n" + code + "\n```"
		}
		for _, c := range st.Calls {
			r.ToolCalls = append(r.ToolCalls, tool(c.ID, c.Name, c.Arguments))
		}
		responses = append(responses, r)
	}
	responses = append(responses, llm.Response{ToolCalls: []llm.ToolCall{tool("end", "terminate", `{"success":true}`)}})
	st, _, events := runScripted(t, agent.RunOptions{Limits: agent.Limits{MaxSteps: len(responses)}, ID: run.ID(id)}, s.vars, responses...)
	return st, events
}

// record runs the steps, then terminate, and returns the recording of the
// run's log and its final variables.
func (s *steps) record(t testing.TB, id string) (*codegen.Recording, map[string]json.RawMessage) {
	t.Helper()
	st, events := s.run(t, id)
	rec, err := codegen.FromEvents(events)
	if err != nil {
		t.Fatal(err)
	}
	return rec, finalVars(t, st)
}

// finalVars is what the replay's Variables must encode to: every variable
// recordingOf reads the log of h, a run that ended, and makes its
// Recording.
func recordingOf(ctx context.Context, t testing.TB, h *agent.Handle) *codegen.Recording {
	t.Helper()
	var events []run.Event
	for e, err := range h.Events(ctx, 1) {
		if err != nil {
			t.Fatal(err)
		}
		events = append(events, e)
	}
	rec, err := codegen.FromEvents(events)
	if err != nil {
		t.Fatal(err)
	}
	return rec
}

// that is neither secret nor not JSON-representable.
func finalVars(t testing.TB, rt *agent.State) map[string]json.RawMessage {
	t.Helper()
	out := map[string]json.RawMessage{}
	for _, v := range rt.Variables() {
		if v.Secret {
			continue
		}
		b, err := json.Marshal(v.Value)
		if err != nil {
			continue
		}
		out[v.Name] = b
	}
	return out
}

// runScripted runs a scripted model over a fresh runtime and returns the
// runtime, the outcome and the run's event log.
func runScripted(t testing.TB, opts agent.RunOptions, vars []variable.Spec, responses ...llm.Response) (*agent.State, agent.Outcome, []run.Event) {
	t.Helper()
	rt := newRuntime(t, llm.NewScripted(responses...), vars...)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if opts.ID == "" {
		opts.ID = run.ID("run_" + t.Name()[strings.LastIndex(t.Name(), "/")+1:])
	}
	if opts.Task == "" {
		opts.Task = "test"
	}
	h, err := rt.Start(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	out, err := h.Wait(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if out.Status != run.StatusCompleted {
		t.Fatalf("run ended %s: %s", out.Status, out.Reason)
	}
	var events []run.Event
	for e, err := range h.Events(ctx, 1) {
		if err != nil {
			t.Fatal(err)
		}
		events = append(events, e)
	}
	return h.State(), out, events
}

func execute(t *testing.T, s *steps, step agent.Step) {
	t.Helper()
	s.steps = append(s.steps, step)
}

func call(id, name, args string) agent.ToolCall {
	return agent.ToolCall{ID: id, Name: name, Arguments: args}
}

func tool(id, name, args string) llm.ToolCall {
	return llm.ToolCall{ID: id, Name: name, Arguments: args}
}

// JSON calls only, driven by a scripted model and generated from the
// stored log: package functions, a closure (greet), a method (count), a
// typed result.
func recordJSONCalls(t *testing.T) (*codegen.Recording, map[string]json.RawMessage, json.RawMessage) {
	rt, out, events := runScripted(t, agent.RunOptions{}, []variable.Spec{{Name: "city", Value: "Paris"}},
		llm.Response{Text: "First the weather in the city.", ToolCalls: []llm.ToolCall{tool("c1", "get_weather", `{"location":"<<var:city>>","unit":"c","return":null}`)}},
		llm.Response{Text: "Describe it, and greet.", ToolCalls: []llm.ToolCall{
			tool("c2", "describe", `{"w":"<<var:weather>>"}`),
			tool("c3", "greet", `{"name":"Ada"}`),
			tool("c4", "count", `{"n":3}`),
			tool("c5", "count", `{"n":4}`),
		}},
		llm.Response{ToolCalls: []llm.ToolCall{tool("c6", "list_items", `{}`)}},
		llm.Response{Text: "Done: the weather is the result.", ToolCalls: []llm.ToolCall{tool("c7", "terminate", `{"success":true,"result":"<<var:weather>>"}`)}},
	)
	rec, err := codegen.FromEvents(events)
	if err != nil {
		t.Fatal(err)
	}
	return rec, finalVars(t, rt), out.Result
}

// Snippets only: an import, a package used
// without an import, a func declaration, an assignment to a starting
// variable, a re-declaration.
func recordSnippetsOnly(t *testing.T) (*codegen.Recording, map[string]json.RawMessage, json.RawMessage) {
	rt := newState(t, nil, variable.Spec{Name: "numbers", Value: []int{3, 1, 2}}, variable.Spec{Name: "title", Value: "scores"})
	execute(t, rt, agent.Step{Reason: "Sort a copy of the numbers.", Snippets: []string{
		"import \"sort\"\n\nsorted := append([]int(nil), numbers...)\nsort.Ints(sorted)",
	}})
	execute(t, rt, agent.Step{Reason: "Sum them and draw a bar.", Snippets: []string{
		"sum := 0\nfor _, n := range sorted {\n\tsum += n\n}\nbar := strings.Repeat(\"*\", sum)",
		"func double(x int) int { return x * 2 }\n\ndoubled := double(sum)\nnumbers = append(numbers, doubled)",
	}})
	execute(t, rt, agent.Step{Snippets: []string{
		"sum, extra := len(sorted)*10, len(bar) // sum exists: Go reuses it\ntitle = strings.ToUpper(title) + \": \" + fmt.Sprint(sum, extra)",
	}})
	rec, vars := rt.record(t, "run_snippets_only")
	return rec, vars, nil
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// Snippets and calls mixed, from a scripted run: a snippet calls actions
// by name (a package function, the closure, the method), then JSON calls
// use the snippet's variables.
func recordMixed(t *testing.T) (*codegen.Recording, map[string]json.RawMessage, json.RawMessage) {
	rt, out, events := runScripted(t, agent.RunOptions{}, []variable.Spec{{Name: "city", Value: "Oslo"}},
		llm.Response{Text: "Let me look in Go.\n```go\nw, err := get_weather(city, \"f\")\nif err != nil {\n\tpanic(err)\n}\nhello := greet(w.City)\nn := count(2) + count(5)\n```"},
		llm.Response{Text: "Describe w.", ToolCalls: []llm.ToolCall{
			tool("c1", "describe", `{"w":"<<var:w>>"}`),
			tool("c2", "run_go", `{"code":"import \"strings\"\nshout := strings.ToUpper(hello) + strings.Repeat(\"!\", n)"}`),
		}},
		llm.Response{ToolCalls: []llm.ToolCall{tool("c3", "terminate", `{"success":true,"result":{"city":"Oslo","ok":true}}`)}},
	)
	_ = out
	rec, err := codegen.FromEvents(events)
	if err != nil {
		t.Fatal(err)
	}
	return rec, finalVars(t, rt), out.Result
}

// Results assigned to existing variables: "return" names one, and a
// snippet re-declares one.
func recordReturnExisting(t *testing.T) (*codegen.Recording, map[string]json.RawMessage, json.RawMessage) {
	rt := newState(t, nil, variable.Spec{Name: "report", Value: codegentest.Weather{City: "nowhere"}})
	execute(t, rt, agent.Step{Reason: "Weather in Paris into report.", Calls: []agent.ToolCall{
		call("c1", "get_weather", `{"location":"Paris","return":"report"}`),
		call("c2", "count", `{"n":1}`),
	}})
	execute(t, rt, agent.Step{Calls: []agent.ToolCall{
		call("c3", "get_weather", `{"location":"Lyon","unit":"f"}`),
		call("c4", "count", `{"n":10,"return":"count_result"}`),
		call("c5", "get_weather", `{"location":"Recife","return":"weather"}`),
	}})
	execute(t, rt, agent.Step{Snippets: []string{"report = weather\ncount_result = count_result * 2"}})
	rec, vars := rt.record(t, "run_return_existing")
	return rec, vars, nil
}

// A failed call and a failed snippet in the middle are left out.
func recordFailedCall(t *testing.T) (*codegen.Recording, map[string]json.RawMessage, json.RawMessage) {
	rt := newState(t, nil, variable.Spec{Name: "city", Value: "Atlantis"})
	execute(t, rt, agent.Step{Reason: "Try the city.", Calls: []agent.ToolCall{call("c1", "get_weather", `{"location":"<<var:city>>"}`)}})
	execute(t, rt, agent.Step{Reason: "Try a bad snippet, a bad reference, then Paris.", Snippets: []string{"x := undefined_thing + 1"}, Calls: []agent.ToolCall{
		call("c2", "describe", `{"w":"<<var:nothing>>"}`),
		call("c3", "get_weather", `{"location":"Paris"}`),
	}})
	execute(t, rt, agent.Step{Calls: []agent.ToolCall{call("c4", "describe", `{"w":"<<var:weather>>"}`)}})
	rec, vars := rt.record(t, "run_failed_call")
	return rec, vars, nil
}

// A secret starting variable passed by reference: never a literal.
func recordSecret(t *testing.T) (*codegen.Recording, map[string]json.RawMessage, json.RawMessage) {
	rt, out, events := runScripted(t, agent.RunOptions{}, []variable.Spec{
		{Name: "api_key", Value: "sk-test-123", Secret: true},
		{Name: "user", Value: "ada"},
	},
		llm.Response{Text: "Open a session.", ToolCalls: []llm.ToolCall{tool("c1", "authorize", `{"token":"<<var:api_key>>","user":"<<var:user>>"}`)}},
		llm.Response{Text: "```go\nscopes := len(authorize_result.Scope)\n```"},
		llm.Response{ToolCalls: []llm.ToolCall{tool("c2", "terminate", `{"success":true,"result":"<<var:authorize_result>>"}`)}},
	)
	rec, err := codegen.FromEvents(events)
	if err != nil {
		t.Fatal(err)
	}
	// authorize_result is derived from the secret, so the log keeps the
	// run's result from everyone but the host; the replay, run by the
	// host with the secret, computes it again.
	if !out.Redacted || out.ResultVariable != "authorize_result" {
		t.Fatalf("outcome = %+v, want the result redacted", out)
	}
	v, _ := rt.Variable(out.ResultVariable)
	result, err := json.Marshal(v.Value)
	if err != nil {
		t.Fatal(err)
	}
	return rec, finalVars(t, rt), result
}

// A run with a result schema and a structured raw result.
func recordStructured(t *testing.T) (*codegen.Recording, map[string]json.RawMessage, json.RawMessage) {
	rt, out, events := runScripted(t, agent.RunOptions{ResultSchema: agent.ResultSchemaFor[codegentest.Summary]()}, nil,
		llm.Response{ToolCalls: []llm.ToolCall{tool("c1", "list_items", `{}`)}},
		llm.Response{ToolCalls: []llm.ToolCall{tool("c2", "total", `{"items":"<<var:list_items_result>>"}`)}},
		llm.Response{ToolCalls: []llm.ToolCall{tool("c3", "terminate", `{"success":true,"result":{"city":"Paris","total":26.5,"items":["apples","bread","tea"],"warning":null}}`)}},
	)
	rec, err := codegen.FromEvents(events)
	if err != nil {
		t.Fatal(err)
	}
	return rec, finalVars(t, rt), out.Result
}

// A child run, from a hand-written log: the runtime does not start child
// runs yet. The child's recorded result stands in for the call; the call
// was approved, and a second call was denied.
func recordChildRun(t *testing.T) (*codegen.Recording, map[string]json.RawMessage, json.RawMessage) {
	call1 := run.ToolCall{ID: "c1", Name: "research", Arguments: `{"topic":"<<var:topic>>"}`,
		References: map[string]run.VariableRef{"topic": {Variable: "topic", Type: "string", Preview: `"generics"`}}}
	call2 := run.ToolCall{ID: "c2", Name: "get_weather", Arguments: `{"location":"Paris"}`}
	events := []run.Event{
		{RunID: "run_parent", Seq: 1, Payload: run.RunCreated{Name: "parent"}},
		{Seq: 2, Payload: run.VariableCreated{Variable: run.VariableInfo{Name: "topic", Type: "string"}, Value: json.RawMessage(`"generics"`)}},
		{Seq: 3, Payload: run.StatusChanged{From: run.StatusCreated, To: run.StatusRunning}},
		{Seq: 4, Payload: run.AssistantMessage{Step: 1, Text: "Ask the research agent."}},
		{Seq: 5, Payload: run.ToolCallScheduled{Step: 1, Call: call1}},
		{Seq: 6, Payload: run.AwaitRequested{ID: "aw1", Await: run.AwaitApproval, Call: &call1}},
		{Seq: 7, Payload: run.AwaitResolved{ID: "aw1", Answer: run.Answer{Decision: run.Approved}}},
		{Seq: 8, Payload: run.ChildRunStarted{Child: "run_child", CallID: "c1", Name: "researcher"}},
		{Seq: 9, Payload: run.ChildRunFinished{Child: "run_child", CallID: "c1", Status: run.StatusCompleted, Result: json.RawMessage(`"Go generics arrived in 1.18."`)}},
		{Seq: 10, Payload: run.ToolCallCompleted{CallID: "c1", Success: true, Created: []run.VariableInfo{{Name: "research_result", Type: "string"}},
			Resolution: &run.Resolution{Args: []run.Argument{{Param: "topic", Ref: "topic", Type: "string"}}}, Result: "research_result",
			Action: &run.GoAction{Name: "research", Func: "github.com/byref/byref/codegen/codegentest.Research", Type: "func(context.Context, string) (string, error)"}}},
		{Seq: 11, Payload: run.VariableCreated{Step: 1, Variable: run.VariableInfo{Name: "research_result", Type: "string"}, Value: json.RawMessage(`"Go generics arrived in 1.18."`)}},
		{Seq: 12, Payload: run.AssistantMessage{Step: 2, Text: "Check the weather too."}},
		{Seq: 13, Payload: run.ToolCallScheduled{Step: 2, Call: call2}},
		{Seq: 14, Payload: run.AwaitRequested{ID: "aw2", Await: run.AwaitApproval, Call: &call2}},
		{Seq: 15, Payload: run.AwaitResolved{ID: "aw2", Answer: run.Answer{Decision: run.Denied, Reason: "no network calls today"}}},
		{Seq: 16, Payload: run.ToolCallCompleted{CallID: "c2", Success: false, Error: "denied by the approver: no network calls today"}},
		{Seq: 17, Payload: run.SnippetExecuted{Step: 3, Snippet: run.Snippet{Code: "words := len(strings.Fields(research_result))"}, Success: true,
			Created: []run.VariableInfo{{Name: "words", Type: "int"}}}},
		{Seq: 18, Payload: run.VariableCreated{Step: 3, Variable: run.VariableInfo{Name: "words", Type: "int"}, Value: json.RawMessage(`5`)}},
		{Seq: 19, Payload: run.ToolCallScheduled{Step: 4, Call: run.ToolCall{ID: "c3", Name: "terminate", Arguments: `{"success":true,"result":"<<var:research_result>>"}`}}},
		{Seq: 20, Payload: run.ToolCallCompleted{CallID: "c3", Success: true, Resolution: &run.Resolution{Args: []run.Argument{
			{Param: "success", Raw: json.RawMessage("true")}, {Param: "result", Ref: "research_result", Type: "string"}}}}},
		{Seq: 21, Payload: run.Result{Value: json.RawMessage(`"Go generics arrived in 1.18."`)}},
	}
	rec, err := codegen.FromEvents(events)
	if err != nil {
		t.Fatal(err)
	}
	vars := map[string]json.RawMessage{"topic": json.RawMessage(`"generics"`), "research_result": json.RawMessage(`"Go generics arrived in 1.18."`), "words": json.RawMessage(`5`)}
	return rec, vars, json.RawMessage(`"Go generics arrived in 1.18."`)
}

// Snippets that stop early with a top-level return: the replay jumps past
// the rest of the snippet and goes on with the next one.
func recordEarlyReturn(t *testing.T) (*codegen.Recording, map[string]json.RawMessage, json.RawMessage) {
	rt := newState(t, nil, variable.Spec{Name: "text", Value: "12x"})
	execute(t, rt, agent.Step{Reason: "Parse the text.", Snippets: []string{
		"n, err := strconv.Atoi(text)\nif err != nil {\n\tfmt.Println(\"not a number:\", err)\n\treturn\n}\nn *= 2",
		"acc := 0\nfor _, w := range []string{\"1\", \"2\", \"x\", \"4\"} {\n\tv, err := strconv.Atoi(w)\n\tif err != nil {\n\t\treturn\n\t}\n\tacc += v\n}\nacc = -1",
	}})
	execute(t, rt, agent.Step{Snippets: []string{"summary := fmt.Sprint(n, \" \", acc, \" \", err != nil)"}})
	rec, vars := rt.record(t, "run_early_return")
	if string(vars["acc"]) != "3" || string(vars["summary"]) != `"0 3 true"` {
		t.Fatalf("the run itself: %s", vars)
	}
	return rec, vars, nil
}

// A run that asks its user (the built-in ask_user) and uses the answer:
// the replay assigns the recorded answer instead of asking, with no
// ask_user in the caller's action set.
func recordAskUser(t *testing.T) (*codegen.Recording, map[string]json.RawMessage, json.RawMessage) {
	rt := newRuntime(t, llm.NewScripted(
		llm.Response{Text: "I need to know the city.", ToolCalls: []llm.ToolCall{tool("c1", "ask_user", `{"question":"Which city?\nOne of Paris, Oslo.","return":"city"}`)}},
		llm.Response{Text: "And a name to greet.", ToolCalls: []llm.ToolCall{tool("c2", "ask_user", `{"question":"Your name, \"as you like\"?","return":null}`)}},
		llm.Response{Text: "Greet, and the weather.", ToolCalls: []llm.ToolCall{
			tool("c3", "greet", `{"name":"<<var:ask_user_result>>"}`),
			tool("c4", "get_weather", `{"location":"<<var:city>>"}`),
		}},
		llm.Response{ToolCalls: []llm.ToolCall{tool("c5", "terminate", `{"success":true,"result":"<<var:weather>>"}`)}},
	), variable.Spec{Name: "city", Value: "Paris"})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	h, err := rt.Start(ctx, agent.RunOptions{Task: "the weather where I am", ID: "run_ask_user"})
	if err != nil {
		t.Fatal(err)
	}
	out := answerAwaits(ctx, t, h, []run.Answer{{Text: "Oslo"}, {Text: `Ada "the Countess" \ Lovelace`}}, func(run.AwaitRequested) {})
	return recordingOf(ctx, t, h), finalVars(t, h.State()), out.Result
}

// answerAwaits answers the run's awaits in order with answers, after
// giving each to check, and returns how the run, which must complete,
// ended.
func answerAwaits(ctx context.Context, t *testing.T, h *agent.Handle, answers []run.Answer, check func(run.AwaitRequested)) agent.Outcome {
	t.Helper()
	for e, err := range h.Events(ctx, 1) {
		if err != nil {
			t.Fatal(err)
		}
		if req, ok := e.Payload.(run.AwaitRequested); ok {
			check(req)
			if err := h.Resume(ctx, req.ID, answers[0]); err != nil {
				t.Fatal(err)
			}
			if answers = answers[1:]; len(answers) == 0 {
				break
			}
		}
	}
	out, err := h.Wait(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if out.Status != run.StatusCompleted {
		t.Fatalf("run ended %s: %s", out.Status, out.Reason)
	}
	return out
}

// A run whose model calls a tool of its client (an AG-UI front end's
// tool, built as agui builds one: a per-run action that awaits the
// client's input and returns it): the replay uses the client's recorded
// answers as the calls' results, with no function to call.
func recordFrontendTool(t *testing.T) (*codegen.Recording, map[string]json.RawMessage, json.RawMessage) {
	rt := newRuntime(t, llm.NewScripted(
		llm.Response{Text: "Ask the user to confirm.", ToolCalls: []llm.ToolCall{tool("c1", "confirm_booking", `{"city":"<<var:city>>","nights":2}`)}},
		llm.Response{Text: "And the colour of the page.", ToolCalls: []llm.ToolCall{tool("c2", "set_theme", `{"colour":"teal","return":null}`)}},
		llm.Response{ToolCalls: []llm.ToolCall{tool("c3", "terminate", `{"success":true,"result":"<<var:confirm_booking_result>>"}`)}},
	), variable.Spec{Name: "city", Value: "Oslo"})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	h, err := rt.Create(ctx, agent.RunOptions{Task: "book two nights", ID: "run_frontend_tool"})
	if err != nil {
		t.Fatal(err)
	}
	if err := h.State().AddActions(clientTool(t, "confirm_booking", `{"type":"object","properties":{"city":{"type":"string"},"nights":{"type":"integer"}},"required":["city","nights"]}`),
		clientTool(t, "set_theme", `{"type":"object","properties":{"colour":{"type":"string"}}}`)); err != nil {
		t.Fatal(err)
	}
	if err := h.Begin(ctx); err != nil {
		t.Fatal(err)
	}
	out := answerAwaits(ctx, t, h, []run.Answer{{Input: json.RawMessage(`"confirmed: \"Oslo\", 2 nights"`)}, {Input: json.RawMessage(`{"ok":true}`)}},
		func(req run.AwaitRequested) {
			if !req.Client {
				t.Fatalf("the await of a client's call is not marked Client: %+v", req)
			}
		})
	return recordingOf(ctx, t, h), finalVars(t, h.State()), out.Result
}

// clientTool is a tool of the run's client, as agui builds one from a
// front end's RunAgentInput.tools.
func clientTool(t *testing.T, name, schema string) *action.Action {
	t.Helper()
	a, err := toolschema.Client(name, "", json.RawMessage(schema), func([]byte) string { return "the client runs this call" })
	if err != nil {
		t.Fatal(err)
	}
	return a
}
