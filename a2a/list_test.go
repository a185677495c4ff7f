package a2a_test

import (
	"context"
	"errors"
	"testing"
	"time"

	sdk "github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/byref/byref/a2a"
	"github.com/byref/byref/server"
)

func TestListTasks(t *testing.T) {
	_, ts := startA2A(t, server.Options{}, a2a.Options{})
	ctx := context.Background()
	echo, awaiter := clientFor(t, ts.URL, "echo"), clientFor(t, ts.URL, "awaiter")
	var ids []sdk.TaskID
	first := time.Now()
	for i := range 5 {
		res, err := echo.SendMessage(ctx, userMessage("task "+string(rune('a'+i))))
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, res.(*sdk.Task).ID)
	}
	res, err := awaiter.SendMessage(ctx, userMessage("ask me"))
	if err != nil {
		t.Fatal(err)
	}
	asking := res.(*sdk.Task)

	// Pages of 2, newest first, without overlap, totalSize the whole.
	var seen []sdk.TaskID
	token := ""
	for pages := 0; ; pages++ {
		if pages > 3 {
			t.Fatal("more pages than tasks")
		}
		page, err := echo.ListTasks(ctx, &sdk.ListTasksRequest{PageSize: 2, PageToken: token})
		if err != nil {
			t.Fatal(err)
		}
		if page.TotalSize != 5 || len(page.Tasks) > 2 {
			t.Fatalf("page %d: %d tasks of %d", pages, len(page.Tasks), page.TotalSize)
		}
		for _, task := range page.Tasks {
			seen = append(seen, task.ID)
			if len(task.Artifacts) != 0 {
				t.Fatal("artifacts without includeArtifacts")
			}
		}
		if token = page.NextPageToken; token == "" {
			break
		}
	}
	if len(seen) != 5 || seen[0] != ids[4] || seen[4] != ids[0] {
		t.Fatalf("listed %v, want %v newest first", seen, ids)
	}

	// Filters: the state (input-required is the awaiter's task; the echo
	// agent has none), the context, the time; and the task's contents.
	one := 1
	got, err := awaiter.ListTasks(ctx, &sdk.ListTasksRequest{Status: sdk.TaskStateInputRequired, HistoryLength: &one})
	if err != nil || len(got.Tasks) != 1 || got.Tasks[0].ID != asking.ID || len(got.Tasks[0].History) != 1 {
		t.Fatalf("input-required: %+v, %v", got, err)
	}
	if got, err := awaiter.ListTasks(ctx, &sdk.ListTasksRequest{Status: sdk.TaskStateAuthRequired}); err != nil || got.TotalSize != 0 {
		t.Fatalf("auth-required: %+v, %v", got, err)
	}
	if got, err := echo.ListTasks(ctx, &sdk.ListTasksRequest{Status: sdk.TaskStateInputRequired}); err != nil || got.TotalSize != 0 {
		t.Fatalf("another agent's tasks are listed: %+v, %v", got, err)
	}
	third, err := echo.GetTask(ctx, &sdk.GetTaskRequest{ID: ids[2]})
	if err != nil {
		t.Fatal(err)
	}
	got, err = echo.ListTasks(ctx, &sdk.ListTasksRequest{ContextID: third.ContextID, IncludeArtifacts: true})
	if err != nil || len(got.Tasks) != 1 || got.Tasks[0].ID != ids[2] || len(got.Tasks[0].Artifacts) != 1 {
		t.Fatalf("by context: %+v, %v", got, err)
	}
	if got, err := echo.ListTasks(ctx, &sdk.ListTasksRequest{StatusTimestampAfter: &first}); err != nil || got.TotalSize != 5 {
		t.Fatalf("after the start: %+v, %v", got, err)
	}
	later := time.Now().Add(time.Hour)
	if got, err := echo.ListTasks(ctx, &sdk.ListTasksRequest{StatusTimestampAfter: &later}); err != nil || got.TotalSize != 0 {
		t.Fatalf("after the end: %+v, %v", got, err)
	}

	// Bad input names the fix.
	for _, req := range []*sdk.ListTasksRequest{{PageSize: 101}, {PageToken: "nonsense"}, {Status: "TASK_STATE_SLEEPING"}} {
		if _, err := echo.ListTasks(ctx, req); !errors.Is(err, sdk.ErrInvalidParams) {
			t.Fatalf("ListTasks(%+v) = %v, want invalid params", req, err)
		}
	}
}
