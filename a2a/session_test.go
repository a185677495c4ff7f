package a2a_test

import (
	"context"
	"strings"
	"testing"

	sdk "github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/byref/byref/a2a"
	"github.com/byref/byref/agent"
	"github.com/byref/byref/internal/sessiontest"
	"github.com/byref/byref/run"
	"github.com/byref/byref/server"
)

// A second task in the same contextId sees the variables the first left.
func TestContextKeepsVariables(t *testing.T) {
	store := run.NewMemoryStore()
	opts := sessiontest.Agent()
	opts.Store = store
	rt, err := agent.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	_, ts := startA2A(t, server.Options{Store: store, Agents: []server.Agent{{Name: "chat", Agent: rt}}}, a2a.Options{})
	c := clientFor(t, ts.URL, "chat")
	answer := func(task *sdk.Task) string {
		t.Helper()
		if task.Status.State != sdk.TaskStateCompleted || task.Status.Message == nil {
			t.Fatalf("task %s: %+v", task.ID, task.Status)
		}
		return task.Status.Message.Parts[0].Text()
	}
	res, err := c.SendMessage(context.Background(), userMessage("load the orders"))
	if err != nil {
		t.Fatal(err)
	}
	first := res.(*sdk.Task)
	if out := answer(first); sessiontest.Failed(out) {
		t.Fatalf("first task: %s", out)
	}
	msg := sdk.NewMessage(sdk.MessageRoleUser, sdk.NewTextPart("now only the late ones"))
	msg.ContextID = first.ContextID
	res, err = c.SendMessage(context.Background(), &sdk.SendMessageRequest{Message: msg})
	if err != nil {
		t.Fatal(err)
	}
	if out := answer(res.(*sdk.Task)); sessiontest.Failed(out) || !strings.Contains(out, "{2, true}, {3, true}") {
		t.Fatalf("second task in the context did not find orders: %s", out)
	}
	// A task in another context starts afresh.
	res, err = c.SendMessage(context.Background(), userMessage("now only the late ones"))
	if err != nil {
		t.Fatal(err)
	}
	if out := answer(res.(*sdk.Task)); !sessiontest.Failed(out) {
		t.Fatalf("a task in a new context found orders: %s", out)
	}
}
