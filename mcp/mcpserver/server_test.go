package mcpserver_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
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
	"github.com/byref/byref/mcp/mcpserver"
	"github.com/byref/byref/schema"
)

type Forecast struct {
	City  string  `json:"city"`
	TempC float64 `json:"temp_c"`
}

// exportActions are byref actions of every kind the server must handle.
func exportActions() *action.Set {
	return action.MustSet(
		action.MustNew(action.Spec{
			Name: "forecast", Description: "The forecast for a city.",
			Params: []action.Param{{Name: "city", Description: "the city"}, {Name: "days", Default: 1}},
			Result: "the forecast",
			Func: func(city string, days int) (Forecast, error) {
				if city == "" {
					return Forecast{}, errorString("say which city")
				}
				return Forecast{City: city, TempC: 20 + float64(days)}, nil
			},
		}),
		action.MustNew(action.Spec{
			Name: "shout", Description: "Upper-cases text and prints it.",
			Params: []action.Param{{Name: "text"}},
			Func: func(ctx context.Context, text string) string {
				action.Stdout(ctx).Write([]byte("shouting\n"))
				return strings.ToUpper(text)
			},
		}),
		action.MustNew(action.Spec{
			Name: "close_chan", Description: "Needs a channel variable.",
			Params: []action.Param{{Name: "c"}},
			Func:   func(c chan int) { close(c) },
		}),
	)
}

type errorString string

func (e errorString) Error() string { return string(e) }

// exportAgent is an agent on a scripted model that answers with its task
// in capitals, through the shout action.
func exportAgent() agent.Child {
	return agent.Child{
		Name: "shouter", Description: "Shouts the task.",
		Agent: shouter(),
	}
}

func shouter() *agent.Agent {
	model := llm.NewScriptedFunc(func(req llm.Request) (llm.Response, error) {
		last := req.Messages[len(req.Messages)-1]
		if last.Role == llm.RoleTool {
			return llm.CallTool(action.TerminateName, `{"success":true,"result":"<<var:shout_result>>"}`), nil
		}
		arg, _ := json.Marshal(last.Text)
		return llm.CallTool("shout", `{"text":`+string(arg)+`,"return":null}`), nil
	})
	rt, err := agent.New(agent.Options{Model: model, Actions: exportActions()})
	if err != nil {
		panic(err)
	}
	return rt
}

func exportServer() (*mcpserver.Server, error) {
	return mcpserver.New(mcpserver.Options{Actions: exportActions(), Agents: []agent.Child{exportAgent()}})
}

func newExportServer(t *testing.T) *mcpserver.Server {
	t.Helper()
	s, err := exportServer()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func callTool(t *testing.T, cs *sdk.ClientSession, name, args string) *sdk.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: name, Arguments: json.RawMessage(args)})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return res
}

func text(r *sdk.CallToolResult) string {
	var parts []string
	for _, c := range r.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "|")
}

// checkServed lists and calls the served tools from an MCP client.
func checkServed(t *testing.T, cs *sdk.ClientSession) {
	t.Helper()
	var names []string
	for tool, err := range cs.Tools(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, tool.Name)
		if tool.Name == "forecast" {
			a, _ := exportActions().Get("forecast")
			want := schema.BuildPlainTool(schema.ToolSpec{Name: "forecast", Description: a.Description() + " Returns: the forecast", Params: []schema.Param{
				{Name: "city", Description: "the city", TypeName: "string", Raw: a.Param(0).Raw},
				{Name: "days", TypeName: "int", Raw: a.Param(1).Raw, Optional: true, Default: "1"},
			}})
			got, _ := json.Marshal(tool.InputSchema)
			var g, w any
			json.Unmarshal(got, &g)
			json.Unmarshal(want.Parameters, &w)
			gb, _ := json.Marshal(g)
			wb, _ := json.Marshal(w)
			if string(gb) != string(wb) {
				t.Errorf("forecast's input schema:\n%s\nwant the plain-mode schema:\n%s", gb, wb)
			}
		}
	}
	if want := []string{"forecast", "shout", "shouter"}; !slices.Equal(sorted(names), want) {
		t.Fatalf("tools %v, want %v (close_chan takes a reference only)", names, want)
	}

	r := callTool(t, cs, "forecast", `{"city":"Paris","days":null}`)
	if r.IsError || text(r) != `{"city":"Paris","temp_c":21}` {
		t.Errorf("forecast: %v %q", r.IsError, text(r))
	}
	if sc, _ := json.Marshal(r.StructuredContent); string(sc) != `{"city":"Paris","temp_c":21}` {
		t.Errorf("forecast's structured content: %s", sc)
	}
	if r := callTool(t, cs, "forecast", `{"city":"","days":2}`); !r.IsError || !strings.Contains(text(r), "say which city") {
		t.Errorf("forecast's error: %v %q", r.IsError, text(r))
	}
	if r := callTool(t, cs, "forecast", `{"city":7,"days":2}`); !r.IsError || !strings.Contains(text(r), "city") {
		t.Errorf("forecast with a bad argument: %v %q", r.IsError, text(r))
	}
	if r := callTool(t, cs, "shout", `{"text":"hi"}`); r.IsError || text(r) != "HI|shouting\n" {
		t.Errorf("shout: %v %q", r.IsError, text(r))
	}
	if r := callTool(t, cs, "shouter", `{"task":"hello there"}`); r.IsError || text(r) != "HELLO THERE" {
		t.Errorf("the agent: %v %q", r.IsError, text(r))
	}
}

func sorted(s []string) []string { s = slices.Clone(s); slices.Sort(s); return s }

func TestServeInMemory(t *testing.T) {
	s := newExportServer(t)
	if sk := s.Skipped(); len(sk) != 1 || sk[0].Action != "close_chan" {
		t.Errorf("skipped: %+v", sk)
	}
	checkServed(t, mcptest.InMemory(t, s.MCP()))
}

func TestServeStdio(t *testing.T) {
	checkServed(t, mcptest.Stdio(t, serverEnv, "byref"))
}

func TestServeStreamableHTTP(t *testing.T) {
	hs := httptest.NewServer(newExportServer(t).Handler(nil))
	defer hs.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := mcp.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: hs.URL, HTTPClient: hs.Client(), MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	checkServed(t, cs)
}

// TestRoundTrip serves byref actions over MCP and imports them back: the
// imported actions have the served ones' parameters and work in a run.
func TestRoundTrip(t *testing.T) {
	set := mcptest.Import(t, mcptest.InMemory(t, newExportServer(t).MCP()), mcp.ImportOptions{Prefix: "remote_"})
	fc, ok := set.Get("remote_forecast")
	// Plain-mode schemas require every property and make optional ones
	// nullable; the import keeps that.
	if !ok || fc.NumParams() != 2 || fc.Param(0).Name != "city" || fc.Param(1).Name != "days" || !strings.Contains(string(fc.Param(1).Raw), `{"type":"null"}`) {
		t.Fatalf("remote_forecast: %v", fc.Params())
	}
	ag, _ := agent.New(agent.Options{Actions: set})
	rt, _ := ag.NewState()
	r := rt.Execute(context.Background(), agent.Step{Calls: []agent.ToolCall{
		{ID: "1", Name: "remote_shouter", Arguments: `{"task":"round trip","return":null}`},
		{ID: "2", Name: "remote_forecast", Arguments: `{"city":"Oslo","days":null,"return":null}`},
	}})
	if !r.Responses[1].Success {
		t.Fatal(r.Responses[1].Error)
	}
	if v, _ := rt.Variable(r.Responses[1].Variables[0].Name); v.Value != `{"city":"Oslo","temp_c":21}` {
		t.Errorf("remote_forecast: %#v", v.Value)
	}
	if !r.Responses[0].Success {
		t.Fatal(r.Responses[0].Error)
	}
	v, _ := rt.Variable(r.Responses[0].Variables[0].Name)
	if v.Value != "ROUND TRIP" {
		t.Errorf("remote_shouter: %#v", v.Value)
	}
}

func TestNewServerErrors(t *testing.T) {
	if _, err := mcpserver.New(mcpserver.Options{}); err == nil || !strings.Contains(err.Error(), "no tools") {
		t.Errorf("no tools: %v", err)
	}
	if _, err := mcpserver.New(mcpserver.Options{Agents: []agent.Child{{Name: "a"}}}); err == nil || !strings.Contains(err.Error(), "Agent is nil") {
		t.Errorf("agent without Agent: %v", err)
	}
	spec := exportAgent()
	spec.Name = "shout"
	if _, err := mcpserver.New(mcpserver.Options{Actions: exportActions(), Agents: []agent.Child{spec}}); err == nil || !strings.Contains(err.Error(), "shout") {
		t.Errorf("duplicate names: %v", err)
	}
}

// Actions that need approval, and actions whose result is a live value,
// are not served: nobody can approve an MCP call, and the value would be
// lost (with its resources) when the call's runtime goes.
func TestServeLeavesOutWhatMCPCannotHandle(t *testing.T) {
	type handle struct{ open bool }
	pay := action.MustNew(action.Spec{Name: "pay", Func: func(n int) int { return n }, Params: []action.Param{{Name: "n"}}, NeedsApproval: true})
	open := action.MustNew(action.Spec{Name: "open_handle", Func: func() *handle { return &handle{open: true} }})
	ok := action.MustNew(action.Spec{Name: "double", Func: func(n int) int { return 2 * n }, Params: []action.Param{{Name: "n"}}})
	s, err := mcpserver.New(mcpserver.Options{Name: "t", Actions: action.MustSet(pay, open, ok)})
	if err != nil {
		t.Fatal(err)
	}
	skipped := map[string]string{}
	for _, u := range s.Skipped() {
		skipped[u.Action] = u.Reason
	}
	if !strings.Contains(skipped["pay"], "approval") || !strings.Contains(skipped["open_handle"], "cannot be sent as JSON") {
		t.Fatalf("skipped = %v", skipped)
	}
}
