package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/byref/byref/action"
	"github.com/byref/byref/agent"
	"github.com/byref/byref/internal/mcptest"
	"github.com/byref/byref/llm"
	"github.com/byref/byref/mcp"
	"github.com/byref/byref/run"
	"github.com/byref/byref/variable"
)

func TestImportKeepsSchemas(t *testing.T) {
	set := mcptest.Import(t, mcptest.InMemory(t, toolServer()), mcp.ImportOptions{})
	if got, want := set.Names(), []string{"add", "fail", "greet", "user_lookup"}; !slices.Equal(got, want) {
		t.Fatalf("actions %v, want %v", got, want)
	}
	greet, _ := set.Get("greet")
	params := greet.Params()
	if len(params) != 2 || params[0].Name != "name" || params[0].Optional || params[1].Name != "style" || !params[1].Optional {
		t.Fatalf("greet's params: %+v", params)
	}
	// Of type any: a raw value, or a reference to any variable.
	if params[0].Type != reflect.TypeFor[any]() || params[0].Description != "who to greet" {
		t.Errorf("name: type %v, description %q", params[0].Type, params[0].Description)
	}
	// The $ref is inlined: the parameter's schema stands alone.
	var style map[string]any
	json.Unmarshal(params[1].Raw, &style)
	if style["type"] != "string" || len(style["enum"].([]any)) != 2 {
		t.Errorf("style's schema: %s", params[1].Raw)
	}
	if greet.Result().Kind().String() != "string" {
		t.Errorf("greet returns %v, want string (text content)", greet.Result())
	}
	add, _ := set.Get("add")
	if add.Result() != reflectRaw || add.NumParams() != 2 {
		t.Errorf("add: result %v, %d params", add.Result(), add.NumParams())
	}
	// A property that is not a Go identifier: one "arguments" parameter
	// with the whole schema.
	lookup, _ := set.Get("user_lookup")
	if lookup.NumParams() != 1 || lookup.Param(0).Name != "arguments" || !strings.Contains(string(lookup.Param(0).Raw), `"user-id"`) {
		t.Errorf("user_lookup: %+v", lookup.Params())
	}

	// What the model sees in plain mode is the tool's own shape.
	rt, _ := agent.New(agent.Options{Actions: set, HideFromAI: true})
	st, _ := rt.NewState()
	for _, tool := range st.Tools() {
		if tool.Name != "greet" {
			continue
		}
		var s struct {
			Properties map[string]map[string]any
			Required   []string
		}
		json.Unmarshal(tool.Parameters, &s)
		if s.Properties["name"]["type"] != "string" || !slices.Equal(s.Required, []string{"name", "style"}) {
			t.Errorf("greet's plain schema: %s", tool.Parameters)
		}
	}
}

var reflectRaw = action.MustNew(action.Spec{Name: "x", Func: func(json.RawMessage) {}, Params: []action.Param{{Name: "p"}}}).Param(0).Type

// exercise calls the imported tools through agent.Execute and checks the
// results became variables.
func exercise(t *testing.T, set *action.Set) {
	t.Helper()
	ag, err := agent.New(agent.Options{Actions: set})
	if err != nil {
		t.Fatal(err)
	}
	rt, _ := ag.NewState()
	res := rt.Execute(context.Background(), agent.Step{Calls: []agent.ToolCall{
		{ID: "1", Name: "greet", Arguments: `{"name":"Ada","style":"loud","return":null}`},
		{ID: "2", Name: "add", Arguments: `{"a":2,"b":3,"return":null}`},
		{ID: "3", Name: "fail", Arguments: `{}`},
		{ID: "4", Name: "user_lookup", Arguments: `{"arguments":{"user-id":7},"return":null}`},
		{ID: "5", Name: "greet", Arguments: `{"name":"Bob","style":null,"return":null}`},
		{ID: "6", Name: "greet", Arguments: `{"name":"Eve","style":"whisper","return":null}`},
	}})
	r := res.Responses
	for _, i := range []int{0, 1, 3, 4} {
		if !r[i].Success || len(r[i].Variables) != 1 {
			t.Fatalf("call %s: %+v", r[i].CallID, r[i])
		}
	}
	value := func(i int) any {
		v, _ := rt.Variable(r[i].Variables[0].Name)
		return v.Value
	}
	if got := value(0); got != "HELLO, Ada!" {
		t.Errorf("greet: %v", got)
	}
	if got, ok := value(1).(json.RawMessage); !ok || string(got) != `{"sum":5}` {
		t.Errorf("add: %#v", value(1))
	}
	if r[2].Success || !strings.Contains(r[2].Error, "the disk is full") {
		t.Errorf("fail: %+v", r[2])
	}
	if got := value(3); got != "user 7 is Ada" {
		t.Errorf("user_lookup: %v", got)
	}
	if got := value(4); got != "Hello, Bob" {
		t.Errorf("greet without style: %v", got)
	}
	if r[5].Success || !strings.Contains(r[5].Error, "must be one of") {
		t.Errorf("a value outside the enum must be refused before the call: %+v", r[5])
	}
}

func TestImportInMemory(t *testing.T) {
	exercise(t, mcptest.Import(t, mcptest.InMemory(t, toolServer()), mcp.ImportOptions{}))
}

func TestImportStdio(t *testing.T) {
	exercise(t, mcptest.Import(t, mcptest.Stdio(t, serverEnv, "tools"), mcp.ImportOptions{}))
}

func TestImportStreamableHTTP(t *testing.T) {
	srv := toolServer()
	hs := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil))
	defer hs.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := mcp.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: hs.URL, HTTPClient: hs.Client(), MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	exercise(t, mcptest.Import(t, cs, mcp.ImportOptions{}))
}

func TestImportOptions(t *testing.T) {
	set := mcptest.Import(t, mcptest.InMemory(t, toolServer()), mcp.ImportOptions{
		Prefix:        "fx_",
		Filter:        func(t *sdk.Tool) bool { return t.Name != "fail" },
		NeedsApproval: mcp.UnlessReadOnly,
	})
	if got, want := set.Names(), []string{"fx_add", "fx_greet", "fx_user_lookup"}; !slices.Equal(got, want) {
		t.Fatalf("names %v, want %v", got, want)
	}
	for _, a := range set.All() {
		if want := a.Name() != "fx_greet"; a.NeedsApproval() != want {
			t.Errorf("%s: NeedsApproval %v, want %v", a.Name(), a.NeedsApproval(), want)
		}
	}
	// The prefixed action still calls the server's tool by its own name.
	ag, _ := agent.New(agent.Options{Actions: set})
	rt, _ := ag.NewState()
	r := rt.Execute(context.Background(), agent.Step{Calls: []agent.ToolCall{{ID: "1", Name: "fx_greet", Arguments: `{"name":"Ada","style":null,"return":null}`}}})
	if !r.Responses[0].Success {
		t.Fatal(r.Responses[0].Error)
	}
}

func TestToolErrorIs(t *testing.T) {
	set := mcptest.Import(t, mcptest.InMemory(t, toolServer()), mcp.ImportOptions{})
	fail, _ := set.Get("fail")
	_, err := fail.Call(context.Background(), nil)
	var te *mcp.ToolError
	if !errors.Is(err, mcp.ErrToolFailed) || !errors.As(err, &te) || te.Tool != "fail" || te.Message != "the disk is full" {
		t.Fatalf("err = %#v", err)
	}
}

// TestAgentRunUsesImportedTools runs an agent on a scripted model that
// calls an MCP tool by reference to a variable, waits for approval of the
// tool that is not read-only, and returns the tool's result by reference.
func TestAgentRunUsesImportedTools(t *testing.T) {
	set := mcptest.Import(t, mcptest.InMemory(t, toolServer()), mcp.ImportOptions{NeedsApproval: mcp.UnlessReadOnly})
	model := llm.NewScripted(
		llm.CallTool("greet", `{"name":"<<var:who>>","style":null,"return":null}`),
		llm.CallTool("add", `{"a":40,"b":2,"return":null}`),
		llm.CallTool(action.TerminateName, `{"success":true,"result":"<<var:add_result>>"}`),
	)
	who, _ := json.Marshal("Ada")
	rt, err := agent.New(agent.Options{Model: model, Actions: set})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	h, err := rt.Start(ctx, agent.RunOptions{Task: "greet who, then add 40 and 2", Variables: []variable.Spec{{Name: "who", Value: json.RawMessage(who)}}})
	if err != nil {
		t.Fatal(err)
	}
	// add is not read-only: the run awaits its approval.
	var pending run.AwaitRequested
	for pending.ID == "" {
		if p, ok := h.Pending(); ok {
			pending = p
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("no await; status %s", h.Status())
		}
		time.Sleep(5 * time.Millisecond)
	}
	if pending.Await != run.AwaitApproval || pending.Call == nil || pending.Call.Name != "add" {
		t.Fatalf("pending: %+v", pending)
	}
	if err := h.Resume(ctx, pending.ID, run.Answer{Decision: run.Approved}); err != nil {
		t.Fatal(err)
	}
	o, err := h.Wait(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !o.OK() || string(o.Result) != `{"sum":42}` {
		t.Fatalf("outcome %+v, result %s", o, o.Result)
	}
	v, ok := h.State().Variable("greet_result")
	if !ok || v.Value != "Hello, Ada" {
		t.Errorf("greet_result: %+v (variables: %v)", v, h.State().Variables())
	}
}

// TestRelevanceSelectsImportedTools: with a tool limit, the model is
// offered the imported tools that fit the task.
func TestRelevanceSelectsImportedTools(t *testing.T) {
	set := mcptest.Import(t, mcptest.InMemory(t, toolServer()), mcp.ImportOptions{})
	model := llm.NewScripted(llm.Text("done"))
	rt, _ := agent.New(agent.Options{Model: model, Actions: set})
	if _, err := rt.Run(context.Background(), agent.RunOptions{Task: "Adds two numbers: 2 and 3", ToolLimit: 1}); err != nil {
		t.Fatal(err)
	}
	var offered []string
	for _, tool := range model.Requests()[0].Tools {
		offered = append(offered, tool.Name)
	}
	if !slices.Contains(offered, "add") || slices.Contains(offered, "greet") || slices.Contains(offered, "user_lookup") {
		t.Fatalf("offered %v; want add and the built-ins only", offered)
	}
}

// TestImportedToolEchoingASecret: an MCP tool that echoes a secret it was
// given by reference returns a tainted result, which the model never sees,
// in a tool result, a snippet's output or the run's result.
func TestImportedToolEchoingASecret(t *testing.T) {
	const secret = "mcp-s3cret-Tr0ub4dor"
	set := mcptest.Import(t, mcptest.InMemory(t, toolServer()), mcp.ImportOptions{})
	model := llm.NewScripted(
		llm.CallTool("greet", `{"name":"<<var:pw>>","style":null,"return":null}`),
		llm.CallTool("run_go", `{"code":"fmt.Println(strings.ToLower(fmt.Sprint(greet_result)))"}`),
		llm.CallTool(action.TerminateName, `{"success":true,"result":"<<var:greet_result>>"}`),
	)
	pw, _ := json.Marshal(secret)
	rt, err := agent.New(agent.Options{Model: model, Actions: set,
		Variables: []variable.Spec{{Name: "pw", Value: json.RawMessage(pw), Secret: true}}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	h, err := rt.Start(ctx, agent.RunOptions{Task: "greet pw"})
	if err != nil {
		t.Fatal(err)
	}
	o, err := h.Wait(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if o.Status != run.StatusCompleted || !o.Redacted {
		t.Fatalf("outcome %+v", o)
	}
	if v, ok := h.State().Variable("greet_result"); !ok || !v.Tainted || !strings.Contains(fmt.Sprint(v.Value), secret) {
		t.Fatalf("greet_result: %+v", v)
	}
	for i, req := range model.Requests() {
		raw, _ := json.Marshal(req)
		if strings.Contains(strings.ToLower(string(raw)), "s3cret") {
			t.Errorf("request %d shows the secret: %s", i+1, raw)
		}
	}
}
