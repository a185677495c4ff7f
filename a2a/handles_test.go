package a2a_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	sdk "github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/byref/byref/a2a"
	"github.com/byref/byref/internal/leaktest"
	"github.com/byref/byref/server"
)

// TestHandlePreviewsDoNotLeak sends, over A2A, a task to an agent that
// holds a real *sql.DB opened on a connection string with a password and
// a struct with credentials in unexported fields: the task that asks for
// the approval of a call given both, read back with GetTask, and the
// requests to the model hold no password.
func TestHandlePreviewsDoNotLeak(t *testing.T) {
	ts, model, _ := leaktest.Serve(t, func(s *server.Server) error {
		_, err := a2a.Mount(s, a2a.Options{})
		return err
	})
	c := clientFor(t, ts.URL, "tickets")
	res, err := c.SendMessage(context.Background(), userMessage("How many tickets are open? Close ticket 1."))
	if err != nil {
		t.Fatal(err)
	}
	task, ok := res.(*sdk.Task)
	if !ok || task.Status.State != sdk.TaskStateInputRequired {
		t.Fatalf("result = %+v, want a task awaiting the approval", res)
	}
	got, err := c.GetTask(context.Background(), &sdk.GetTaskRequest{ID: task.ID})
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []any{task, got} {
		b, _ := json.Marshal(v)
		if leaktest.Leaks(string(b)) {
			t.Errorf("the task holds the secret: %s", b)
		}
		if !strings.Contains(string(b), "*sql.DB handle") {
			t.Errorf("the approval does not show db as a handle: %s", b)
		}
	}
	leaktest.CheckModel(t, model)
}
