package a2a_test

import (
	"context"
	"strings"
	"testing"

	sdk "github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/byref/byref/a2a"
	"github.com/byref/byref/agent"
	"github.com/byref/byref/llm"
	"github.com/byref/byref/run"
	"github.com/byref/byref/server"
)

// A task whose model gave up is failed, and its status message carries the
// model's reason.
func TestGaveUpIsFailed(t *testing.T) {
	store := run.NewMemoryStore()
	quitter := newAgent(store, "quitter", llm.NewScripted(llm.CallTool("terminate", `{"success":false,"result":"no data for that year"}`)), agent.RunOptions{})
	_, ts := startA2A(t, server.Options{Store: store, Agents: []server.Agent{quitter}}, a2a.Options{})
	c := clientFor(t, ts.URL, "quitter")
	res, err := c.SendMessage(context.Background(), userMessage("hello"))
	if err != nil {
		t.Fatal(err)
	}
	task, ok := res.(*sdk.Task)
	if !ok {
		t.Fatalf("result %T, want a task", res)
	}
	if task.Status.State != sdk.TaskStateFailed || task.Status.Message == nil || !strings.Contains(task.Status.Message.Parts[0].Text(), "no data for that year") {
		t.Fatalf("task status = %+v, message %+v", task.Status, task.Status.Message)
	}
}
