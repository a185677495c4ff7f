package a2a_test

import (
	"context"
	"encoding/json"
	"maps"
	"slices"
	"testing"

	sdk "github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"

	"github.com/byref/byref/a2a"
	"github.com/byref/byref/agent"
	"github.com/byref/byref/llm"
	"github.com/byref/byref/run"
	"github.com/byref/byref/server"
)

// fold applies a stream's events to the task it starts with, as the
// specification defines and the reference SDKs do: a status update
// replaces the status (its message joins the history, once, as in
// @a2a-js/sdk's ResultManager) and merges its metadata into the task's (as
// in a2a-go's task manager); an artifact update appends its parts to the
// artifact of the same ID when append is set, else replaces that artifact
// or adds it.
func fold(t *testing.T, task *sdk.Task, ev sdk.Event) *sdk.Task {
	t.Helper()
	switch e := ev.(type) {
	case *sdk.Task:
		return e
	case *sdk.TaskStatusUpdateEvent:
		if task == nil {
			t.Fatalf("a status update before the task: %+v", e)
		}
		task.Status = e.Status
		if m := e.Status.Message; m != nil && !slices.ContainsFunc(task.History, func(h *sdk.Message) bool { return h.ID == m.ID }) {
			task.History = append(task.History, m)
		}
		if e.Metadata != nil {
			if task.Metadata == nil {
				task.Metadata = map[string]any{}
			}
			maps.Copy(task.Metadata, e.Metadata)
		}
	case *sdk.TaskArtifactUpdateEvent:
		if task == nil {
			t.Fatalf("an artifact update before the task: %+v", e)
		}
		i := slices.IndexFunc(task.Artifacts, func(a *sdk.Artifact) bool { return a.ID == e.Artifact.ID })
		switch {
		case i < 0 && e.Append:
			t.Fatalf("an append to artifact %s, which the task does not have", e.Artifact.ID)
		case i < 0:
			task.Artifacts = append(task.Artifacts, e.Artifact)
		case e.Append:
			a := *task.Artifacts[i]
			a.Parts = append(slices.Clone(a.Parts), e.Artifact.Parts...)
			task.Artifacts[i] = &a
		default:
			task.Artifacts[i] = e.Artifact
		}
	default:
		t.Fatalf("unexpected stream event %T", ev)
	}
	return task
}

// jsonOf is v's JSON, for comparing what went over the wire.
func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.MarshalIndent(v, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// streamFolds sends req as a stream, folds its events and checks that the
// fold is exactly the task GetTask returns then. It returns that task and
// the number of artifact updates the stream sent.
func streamFolds(t *testing.T, c *a2aclient.Client, req *sdk.SendMessageRequest) (*sdk.Task, int) {
	t.Helper()
	ctx := context.Background()
	var task *sdk.Task
	chunks := 0
	for ev, err := range c.SendStreamingMessage(ctx, req) {
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := ev.(*sdk.TaskArtifactUpdateEvent); ok {
			chunks++
		}
		task = fold(t, task, ev)
	}
	if task == nil {
		t.Fatal("the stream sent no task")
	}
	got, err := c.GetTask(ctx, &sdk.GetTaskRequest{ID: task.ID})
	if err != nil {
		t.Fatal(err)
	}
	if f, g := jsonOf(t, task), jsonOf(t, got); f != g {
		t.Fatalf("the stream folds to\n%s\nbut GetTask returns\n%s", f, g)
	}
	return got, chunks
}

// A stream, applied as the specification defines, gives exactly the task
// GetTask returns: for streamed text, calls with progress, an await and
// its answer, a structured result and a failure.
func TestStreamFoldsToGetTask(t *testing.T) {
	store := run.NewMemoryStore()
	quitter := newAgent(store, "quitter", llm.NewScripted(llm.CallTool("terminate", `{"success":false,"result":"no data for that year"}`)), agent.RunOptions{})
	_, ts := startA2A(t, server.Options{Store: store, Agents: append(testAgents(store), quitter)}, a2a.Options{})
	t.Run("streamed text", func(t *testing.T) {
		task, updates := streamFolds(t, clientFor(t, ts.URL, "streamer"), userMessage("Hello, streaming world!"))
		if updates < 3 {
			t.Errorf("%d artifact updates; the text was not streamed in pieces", updates)
		}
		if len(task.Artifacts) != 1 || task.Artifacts[0].Name != a2a.ResultArtifact || len(task.Artifacts[0].Parts) != 1 || task.Artifacts[0].Parts[0].Text() != "Hello, streaming world!" {
			t.Errorf("artifacts %s, want the answer once", jsonOf(t, task.Artifacts))
		}
		if _, ok := task.Metadata[a2a.MetaUsage]; !ok {
			t.Errorf("no usage in the task's metadata: %v", task.Metadata)
		}
	})
	t.Run("calls and progress", func(t *testing.T) {
		streamFolds(t, clientFor(t, ts.URL, "worker"), userMessage("work"))
	})
	t.Run("structured result", func(t *testing.T) {
		streamFolds(t, clientFor(t, ts.URL, "typed"), userMessage("Paris"))
	})
	t.Run("await and answer", func(t *testing.T) {
		c := clientFor(t, ts.URL, "awaiter")
		task, _ := streamFolds(t, c, userMessage("ask me"))
		if task.Status.State != sdk.TaskStateInputRequired {
			t.Fatalf("state %s, want input-required", task.Status.State)
		}
		answer := userMessage("hi")
		answer.Message.TaskID, answer.Message.ContextID = task.ID, task.ContextID
		if task, _ = streamFolds(t, c, answer); task.Status.State != sdk.TaskStateCompleted {
			t.Fatalf("state %s after the answer", task.Status.State)
		}
	})
	t.Run("failure", func(t *testing.T) {
		task, _ := streamFolds(t, clientFor(t, ts.URL, "quitter"), userMessage("hello"))
		if task.Status.State != sdk.TaskStateFailed {
			t.Fatalf("state %s, want failed", task.Status.State)
		}
	})
}
