package mcpserver_test

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/byref/byref/action"
	"github.com/byref/byref/agent"
	"github.com/byref/byref/internal/mcptest"
	"github.com/byref/byref/llm"
	"github.com/byref/byref/mcp"
	"github.com/byref/byref/mcp/mcpserver"
	"github.com/byref/byref/run"
)

// longActions report progress, or wait to be cancelled.
func longActions(started chan<- struct{}, stopped chan<- error) *action.Set {
	return action.MustSet(
		action.MustNew(action.Spec{Name: "steps", Description: "Works in three steps.", Func: func(ctx context.Context) string {
			for i := 1; i <= 3; i++ {
				_ = action.Progress(ctx, fmt.Sprintf("step %d of 3", i))
			}
			return "done"
		}}),
		action.MustNew(action.Spec{Name: "wait", Description: "Waits until it is cancelled.", Func: func(ctx context.Context) error {
			started <- struct{}{}
			<-ctx.Done()
			stopped <- context.Cause(ctx)
			return ctx.Err()
		}}),
	)
}

// TestProgressAndCancellation: an action's progress reaches the MCP
// client as progress notifications, and a client that cancels its call
// cancels the action's context.
func TestProgressAndCancellation(t *testing.T) {
	started, stopped := make(chan struct{}, 1), make(chan error, 1)
	s, err := mcpserver.New(mcpserver.Options{Actions: longActions(started, stopped)})
	if err != nil {
		t.Fatal(err)
	}
	st, ct := sdk.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := s.MCP().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	var mu sync.Mutex
	var got []string
	client := sdk.NewClient(&sdk.Implementation{Name: "probe", Version: "1"}, &sdk.ClientOptions{
		ProgressNotificationHandler: func(ctx context.Context, req *sdk.ProgressNotificationClientRequest) {
			mu.Lock()
			got = append(got, fmt.Sprintf("%v:%g:%s", req.Params.ProgressToken, req.Params.Progress, req.Params.Message))
			mu.Unlock()
		},
	})
	cs, err := client.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	params := &sdk.CallToolParams{Name: "steps", Arguments: json.RawMessage(`{}`)}
	params.SetProgressToken("tok")
	if _, err := cs.CallTool(ctx, params); err != nil {
		t.Fatal(err)
	}
	// Notifications are handled apart from the result: wait for them.
	for {
		mu.Lock()
		n := len(got)
		mu.Unlock()
		if n >= 3 {
			break
		}
		runtimeGosched()
	}
	if strings.Join(got, " ") != "tok:1:step 1 of 3 tok:2:step 2 of 3 tok:3:step 3 of 3" {
		t.Fatalf("progress %q", got)
	}

	cctx, cancel := context.WithCancel(ctx)
	errc := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(cctx, &sdk.CallToolParams{Name: "wait", Arguments: json.RawMessage(`{}`)})
		errc <- err
	}()
	<-started
	cancel()
	if err := <-stopped; err == nil {
		t.Fatal("the action's context was not cancelled")
	}
	if err := <-errc; err == nil {
		t.Fatal("the cancelled call returned no error")
	}
}

// TestProgressBothWays: a byref action served over MCP and imported back
// by a byref client reports progress into the calling run's log.
func TestProgressBothWays(t *testing.T) {
	s, err := mcpserver.New(mcpserver.Options{Actions: longActions(nil, nil)})
	if err != nil {
		t.Fatal(err)
	}
	st, ct := sdk.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := s.MCP().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.Connect(ctx, ct)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	set := mcptest.Import(t, cs, mcp.ImportOptions{Filter: func(tool *sdk.Tool) bool { return tool.Name == "steps" }})
	store := run.NewMemoryStore()
	model := llm.NewScripted(llm.CallTool("steps", `{"return":null}`), llm.Text("done"))
	rt, err := agent.New(agent.Options{Model: model, Actions: set, Store: store})
	if err != nil {
		t.Fatal(err)
	}
	h, err := rt.Start(ctx, agent.RunOptions{Task: "work"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	// The client handles notifications apart from results: the last may
	// be recorded just after the call's result, even after the run ends.
	var progress []string
	for len(progress) < 3 {
		progress = progress[:0]
		events, err := store.Read(ctx, h.ID(), 1, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range events {
			if p, ok := e.Payload.(run.Progress); ok {
				progress = append(progress, p.Message)
			}
		}
		runtimeGosched()
	}
	if strings.Join(progress, "|") != "step 1 of 3|step 2 of 3|step 3 of 3" {
		t.Fatalf("progress in the run's log: %q", progress)
	}
}

func runtimeGosched() { runtime.Gosched() }
