package mcpserver_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
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
	"github.com/byref/byref/run"
)

// askingAgents: "asker" asks its user a question and returns the answer;
// "approver" needs an approval of its call of shout.
func askingAgents() []agent.Child {
	asker := llm.NewScriptedFunc(func(req llm.Request) (llm.Response, error) {
		last := req.Messages[len(req.Messages)-1]
		if last.Role == llm.RoleTool {
			return llm.CallTool(action.TerminateName, `{"success":true,"result":"<<var:ask_user_result>>"}`), nil
		}
		return llm.CallTool(action.AskUserName, `{"question":"Which color?"}`), nil
	})
	rtAsk, err := agent.New(agent.Options{Model: asker, Actions: exportActions()})
	if err != nil {
		panic(err)
	}
	return []agent.Child{
		{Name: "asker", Description: "Asks which color.", Agent: rtAsk, Run: agent.RunOptions{AwaitTimeout: time.Minute}},
		{Name: "approver", Description: "Shouts, once approved.", Agent: shouter(), Run: agent.RunOptions{Approval: agent.ApproveOnToolCall, AwaitTimeout: time.Minute}},
	}
}

// TestAgentAwaitsGoToTheClient: a run's question and approval are asked
// of the MCP client by elicitation, and its answers resume the run; a
// declined approval cancels it. In process and over streamable HTTP.
func TestAgentAwaitsGoToTheClient(t *testing.T) {
	s, err := mcpserver.New(mcpserver.Options{Agents: askingAgents()})
	if err != nil {
		t.Fatal(err)
	}
	for _, transport := range []string{"memory", "http"} {
		t.Run(transport, func(t *testing.T) {
			var asked []string
			decision := "approve"
			client := sdk.NewClient(&sdk.Implementation{Name: "probe", Version: "1"}, &sdk.ClientOptions{
				ElicitationHandler: func(ctx context.Context, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
					asked = append(asked, req.Params.Message)
					if strings.Contains(req.Params.Message, "Which color?") {
						return &sdk.ElicitResult{Action: "accept", Content: map[string]any{"answer": "blue"}}, nil
					}
					if decision == "decline" {
						return &sdk.ElicitResult{Action: "decline"}, nil
					}
					return &sdk.ElicitResult{Action: "accept", Content: map[string]any{"decision": decision}}, nil
				},
			})
			ctx := context.Background()
			var ct sdk.Transport
			if transport == "memory" {
				st, c := sdk.NewInMemoryTransports()
				ss, err := s.MCP().Connect(ctx, st, nil)
				if err != nil {
					t.Fatal(err)
				}
				defer ss.Close()
				ct = c
			} else {
				hs := httptest.NewServer(s.Handler(nil))
				defer hs.Close()
				ct = &sdk.StreamableClientTransport{Endpoint: hs.URL, HTTPClient: hs.Client(), MaxRetries: -1}
			}
			cs, err := client.Connect(ctx, ct, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			if r := callTool(t, cs, "asker", `{"task":"pick a color"}`); r.IsError || text(r) != "blue" {
				t.Fatalf("asker: %v %q (asked %q)", r.IsError, text(r), asked)
			}
			if r := callTool(t, cs, "approver", `{"task":"hello"}`); r.IsError || text(r) != "HELLO" {
				t.Fatalf("approver: %v %q (asked %q)", r.IsError, text(r), asked)
			}
			if len(asked) != 2 || !strings.Contains(asked[1], "shout") {
				t.Fatalf("asked %q", asked)
			}
			decision = "decline"
			if r := callTool(t, cs, "approver", `{"task":"hello"}`); !r.IsError || !strings.Contains(text(r), "cancelled") {
				t.Fatalf("a declined approval: %v %q", r.IsError, text(r))
			}
		})
	}
}

// TestAgentAwaitBothWays: a byref agent served over MCP (in process, and
// by the test binary over stdio) and imported by a byref client: the
// served run's question becomes the calling run's await, answered like any
// other.
func TestAgentAwaitBothWays(t *testing.T) {
	for _, transport := range []string{"memory", "stdio"} {
		t.Run(transport, func(t *testing.T) { agentAwaitBothWays(t, transport) })
	}
}

func agentAwaitBothWays(t *testing.T, transport string) {
	ctx := context.Background()
	var cs *sdk.ClientSession
	if transport == "stdio" {
		cs = mcptest.Stdio(t, serverEnv, "asking")
	} else {
		s, err := mcpserver.New(mcpserver.Options{Agents: askingAgents()[:1]})
		if err != nil {
			t.Fatal(err)
		}
		st, ct := sdk.NewInMemoryTransports()
		ss, err := s.MCP().Connect(ctx, st, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer ss.Close()
		if cs, err = mcp.Connect(ctx, ct); err != nil {
			t.Fatal(err)
		}
		defer cs.Close()
	}
	set, err := mcp.Import(ctx, cs, mcp.ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	store := run.NewMemoryStore()
	model := llm.NewScripted(
		llm.CallTool("asker", `{"task":"pick a color","return":null}`),
		llm.CallTool(action.TerminateName, `{"success":true,"result":"<<var:asker_result>>"}`),
	)
	rt, err := agent.New(agent.Options{Model: model, Actions: set, Store: store})
	if err != nil {
		t.Fatal(err)
	}
	h, err := rt.Start(ctx, agent.RunOptions{Task: "ask the asker"})
	if err != nil {
		t.Fatal(err)
	}
	for e, err := range store.Events(ctx, h.ID(), 1) {
		if err != nil {
			t.Fatal(err)
		}
		if sc, ok := e.Payload.(run.StatusChanged); ok && sc.To == run.StatusAwaiting {
			break
		}
	}
	pending, ok := h.Pending()
	if !ok || pending.Await != run.AwaitInput || !strings.Contains(pending.Message, "Which color?") {
		t.Fatalf("pending %+v %v", pending, ok)
	}
	if err := h.Resume(ctx, pending.ID, run.Answer{Input: json.RawMessage(`{"answer":"green"}`)}); err != nil {
		t.Fatal(err)
	}
	o, err := h.Wait(ctx)
	if err != nil || o.Status != run.StatusCompleted || string(o.Result) != `"green"` {
		t.Fatalf("outcome %+v %s %v", o, o.Result, err)
	}
}
