package server_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/byref/byref/action"
	"github.com/byref/byref/agent"
	"github.com/byref/byref/internal/toolschematest"
	"github.com/byref/byref/llm"
	"github.com/byref/byref/run"
	"github.com/byref/byref/server"
)

// The inspector shows a call of a client's tool as answered by the
// client: its await while it is pending, and the call in the snapshot
// before and after the answer; its replay uses the client's answer.
func TestUIAPIClientCall(t *testing.T) {
	agents := testAgents(nil)
	agents = append(agents, scriptedAgent(agents[0].Agent.Store(), "booker", llm.NewScripted(
		llm.CallTool("confirm", `{"what":"two nights in Oslo"}`),
		llm.CallTool("terminate", `{"success":true,"result":"<<var:confirm_result>>"}`),
	), agent.RunOptions{}))
	s, ts := startServer(t, server.Options{Agents: agents})
	c := client{t: t, base: ts.URL}
	id, err := s.StartRun(context.Background(), "booker", server.StartRequest{Task: "book", Actions: []*action.Action{toolschematest.Confirm()}})
	if err != nil {
		t.Fatal(err)
	}
	waitStatus(t, s, string(id), run.StatusAwaiting)
	view := func() run.Snapshot {
		t.Helper()
		status, b := c.do("GET", "/ui/api/runs/"+string(id), "")
		var v struct{ Snapshot run.Snapshot }
		if status != 200 || json.Unmarshal(b, &v) != nil {
			t.Fatalf("GET run: %d %s", status, b)
		}
		if len(v.Snapshot.ToolCalls) == 0 || !v.Snapshot.ToolCalls[0].Client {
			t.Fatalf("the client's call is not marked as answered by the client: %s", b)
		}
		return v.Snapshot
	}
	if snap := view(); snap.Await == nil || !snap.Await.Client {
		t.Fatalf("the await of the client's call is not marked: %+v", snap.Await)
	}
	if status, b := c.post("/ui/api/runs/"+string(id)+"/resume", `{"answer":{"input":"confirmed"}}`); status != 202 {
		t.Fatalf("answer for the client: %d %s", status, b)
	}
	waitStatus(t, s, string(id), run.StatusCompleted)
	if snap := view(); !snap.ToolCalls[0].Done || !snap.ToolCalls[0].Success || string(snap.Result) != `"confirmed"` {
		t.Fatalf("after the answer: %+v, result %s", snap.ToolCalls[0], snap.Result)
	}
	status, b := c.do("GET", "/ui/api/runs/"+string(id)+"/replay", "")
	if status != 200 || !strings.Contains(string(b), "answered by the client") || !strings.Contains(string(b), `confirm_result := "confirmed"`) {
		t.Fatalf("replay: %d %s", status, b)
	}
}
