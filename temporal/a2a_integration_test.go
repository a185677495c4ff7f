package temporal_test

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"

	sdk "github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/byref/byref/a2a"
	"github.com/byref/byref/agent"
	"github.com/byref/byref/server"
	byreftemporal "github.com/byref/byref/temporal"
)

// a2aOnTemporal serves an agent on Temporal over A2A: a task goes
// input-required for an approval, is answered by a message on the same
// task and completes on a worker.
func (cl *cluster) a2aOnTemporal(t *testing.T) {
	startWorker(t, cl.hostPort, cl.db, "q-a2a", t.TempDir())
	e, err := byreftemporal.NewEngine(cl.client, byreftemporal.EngineOptions{Store: cl.store, TaskQueue: "q-a2a", Timing: timing})
	if err != nil {
		t.Fatal(err)
	}
	s, err := server.New(server.Options{Store: cl.store, Engine: e, Agents: []server.Agent{
		{Name: "quick", Description: "The weather, with approval.", Run: agent.RunOptions{Approval: agent.ApproveOnToolCall}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a2a.Mount(s, a2a.Options{}); err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s)
	t.Cleanup(func() { ts.Close(); s.Close() })

	ctx := context.Background()
	c, _, err := a2a.NewClient(ctx, ts.URL+"/a2a/quick", a2a.ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Destroy()
	res, err := c.SendMessage(ctx, &sdk.SendMessageRequest{Message: sdk.NewMessage(sdk.MessageRoleUser, sdk.NewTextPart("What is the weather?"))})
	if err != nil {
		t.Fatal(err)
	}
	task := res.(*sdk.Task)
	if task.Status.State != sdk.TaskStateInputRequired {
		t.Fatalf("created task: %s", task.Status.State)
	}
	res, err = c.SendMessage(ctx, &sdk.SendMessageRequest{Message: sdk.NewMessageForTask(sdk.MessageRoleUser, task, sdk.NewTextPart("approve"))})
	if err != nil {
		t.Fatal(err)
	}
	done := res.(*sdk.Task)
	if done.Status.State != sdk.TaskStateCompleted || done.ID != task.ID || len(done.Artifacts) == 0 || !strings.Contains(done.Artifacts[0].Parts[0].Text(), "sunny") {
		t.Fatalf("answered task: %s %+v", done.Status.State, done.Artifacts)
	}
}
