package mcpserver_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/byref/byref/agent"
	"github.com/byref/byref/internal/leaktest"
	"github.com/byref/byref/mcp/mcpserver"
)

// TestHandlePreviewsDoNotLeak serves over MCP an agent that holds a real
// *sql.DB opened on a connection string with a password and a struct with
// credentials in unexported fields: the approval the client is asked by
// elicitation shows db as a handle, and neither it, the tool's result nor
// a request to the model holds the password.
func TestHandlePreviewsDoNotLeak(t *testing.T) {
	rt, model := leaktest.NewAgent(t, nil)
	s, err := mcpserver.New(mcpserver.Options{Agents: []agent.Child{{Name: "tickets", Description: "Triages tickets.", Agent: rt,
		Run: agent.RunOptions{AwaitTimeout: time.Minute}}}})
	if err != nil {
		t.Fatal(err)
	}
	var asked []string
	client := sdk.NewClient(&sdk.Implementation{Name: "probe", Version: "1"}, &sdk.ClientOptions{
		ElicitationHandler: func(ctx context.Context, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
			asked = append(asked, req.Params.Message)
			return &sdk.ElicitResult{Action: "accept", Content: map[string]any{"decision": "approve"}}, nil
		},
	})
	ctx := context.Background()
	st, ct := sdk.NewInMemoryTransports()
	ss, err := s.MCP().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := client.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	r := callTool(t, cs, "tickets", `{"task":"How many tickets are open? Close ticket 1."}`)
	res, _ := json.Marshal(r)
	if r.IsError || text(r) != "2" {
		t.Fatalf("tickets: %s (asked %q)", res, asked)
	}
	if len(asked) != 1 || !strings.Contains(asked[0], "*sql.DB handle") {
		t.Errorf("the approval asked %q; want db shown as a handle", asked)
	}
	for _, s := range append(asked, string(res)) {
		if leaktest.Leaks(s) {
			t.Errorf("the MCP client was sent the secret: %s", s)
		}
	}
	leaktest.CheckModel(t, model)
}
