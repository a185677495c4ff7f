package a2a

import (
	"encoding/json"
	"testing"
	"time"

	sdk "github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/byref/byref/run"
)

// runLog is a small run's log: created, running, its task, a question and
// its answer, an assistant message, a result, completed.
func runLog() []run.Event {
	now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	payloads := []run.Payload{
		run.RunCreated{Session: "ctx-1", Tags: map[string]string{"acp.agent": "echo"}, Options: run.Spec{ResultSchema: json.RawMessage(`{"type":"object"}`)}},
		run.StatusChanged{From: run.StatusCreated, To: run.StatusRunning},
		run.UserMessage{Text: "What is the weather?"},
		run.AwaitRequested{ID: "a1", Await: run.AwaitQuestion, Message: "Which city?"},
		run.StatusChanged{From: run.StatusRunning, To: run.StatusAwaiting},
		run.AwaitResolved{ID: "a1", Answer: run.Answer{Text: "Paris"}},
		run.StatusChanged{From: run.StatusAwaiting, To: run.StatusRunning},
		run.AssistantMessage{Step: 2, Text: "Sunny in Paris."},
		run.Result{Value: json.RawMessage(`{"city":"Paris","celsius":21}`)},
		run.StatusChanged{From: run.StatusRunning, To: run.StatusCompleted},
	}
	events := make([]run.Event, len(payloads))
	for i, p := range payloads {
		events[i] = run.Event{RunID: "run-1", Seq: int64(i + 1), Time: now, Payload: p}
	}
	return events
}

func TestProjection(t *testing.T) {
	p := &projector{}
	var kinds []string
	for _, e := range runLog() {
		for _, ev := range p.apply(e) {
			switch ev := ev.(type) {
			case *sdk.TaskStatusUpdateEvent:
				kinds = append(kinds, stateName(ev.Status.State))
			case *sdk.TaskArtifactUpdateEvent:
				kinds = append(kinds, "artifact")
			}
		}
	}
	// The assistant's text is the answer artifact until the result
	// replaces it.
	want := "working input-required working artifact working artifact completed"
	if got := join(kinds); got != want {
		t.Fatalf("events %q, want %q", got, want)
	}
	task := p.snapshot(nil)
	if task.Status.State != sdk.TaskStateCompleted || task.ContextID != "ctx-1" || len(task.Artifacts) != 1 {
		t.Fatalf("task %+v", task)
	}
	// The history is every turn: the task, the question, its answer (an
	// answer from Go: its text) and the agent's message.
	if got, want := historyOf(task), "user:What is the weather? agent:Which city? user:Paris agent:Sunny in Paris."; got != want {
		t.Fatalf("history %q, want %q", got, want)
	}
	if task.Status.Message != task.History[3] {
		t.Fatalf("the completed status message %+v is not the last agent message of the history", task.Status.Message)
	}
	if task.Artifacts[0].Metadata["schema"] == nil {
		t.Fatal("the typed result's artifact lacks its schema")
	}
}

// TestHistoryAsSent: the user's messages of the history are the A2A
// messages as their client sent them (its messageId, parts, metadata), the
// task's and the answer's alike.
func TestHistoryAsSent(t *testing.T) {
	events := runLog()
	task := sdk.NewMessage(sdk.MessageRoleUser, sdk.NewTextPart("What is the weather?"), sdk.NewDataPart(map[string]any{"units": "metric"}))
	task.ID, task.Metadata = "client-msg-1", map[string]any{"trace": "t-1"}
	answer := sdk.NewMessage(sdk.MessageRoleUser, sdk.NewTextPart("Paris"))
	answer.ID = "client-msg-2"
	rawTask, _ := json.Marshal(task)
	rawAnswer, _ := json.Marshal(answer)
	events[2].Payload = run.UserMessage{Text: "What is the weather?", Message: rawTask}
	events[5].Payload = run.AwaitResolved{ID: "a1", Answer: run.Answer{Text: "Paris", Message: rawAnswer}}
	p := &projector{}
	for _, e := range events {
		p.apply(e)
	}
	h := p.snapshot(nil).History
	if len(h) != 4 || h[0].ID != "client-msg-1" || h[2].ID != "client-msg-2" {
		t.Fatalf("history IDs: %s", historyIDs(h))
	}
	if h[0].TaskID != "run-1" || h[0].ContextID != "ctx-1" || h[0].Metadata["trace"] != "t-1" || len(h[0].Parts) != 2 || h[0].Parts[1].Data() == nil {
		t.Fatalf("the task's message %+v lost what was sent", h[0])
	}
	if h[1].Role != sdk.MessageRoleAgent || h[3].Role != sdk.MessageRoleAgent || h[1].ID == h[3].ID {
		t.Fatalf("agent messages: %s", historyIDs(h))
	}
}

func historyOf(task *sdk.Task) string {
	var out []string
	for _, m := range task.History {
		role := "agent"
		if m.Role == sdk.MessageRoleUser {
			role = "user"
		}
		out = append(out, role+":"+m.Parts[0].Text())
	}
	return join(out)
}

func historyIDs(h []*sdk.Message) string {
	var out []string
	for _, m := range h {
		out = append(out, m.ID)
	}
	return join(out)
}

func TestStateMapping(t *testing.T) {
	for _, c := range []struct {
		status run.Status
		await  run.AwaitKind
		want   sdk.TaskState
	}{
		{run.StatusCreated, "", sdk.TaskStateSubmitted},
		{run.StatusRunning, "", sdk.TaskStateWorking},
		{run.StatusAwaiting, run.AwaitQuestion, sdk.TaskStateInputRequired},
		{run.StatusAwaiting, run.AwaitApproval, sdk.TaskStateInputRequired},
		{run.StatusAwaiting, run.AwaitInput, sdk.TaskStateInputRequired},
		{run.StatusAwaiting, run.AwaitAuthorization, sdk.TaskStateAuthRequired},
		{run.StatusCompleted, "", sdk.TaskStateCompleted},
		{run.StatusFailed, "", sdk.TaskStateFailed},
		{run.StatusCancelling, "", sdk.TaskStateWorking},
		{run.StatusCanceled, "", sdk.TaskStateCanceled},
	} {
		if got := State(c.status, c.await); got != c.want {
			t.Errorf("State(%s, %s) = %s, want %s", c.status, c.await, got, c.want)
		}
	}
}

func join(s []string) string {
	out := ""
	for i, x := range s {
		if i > 0 {
			out += " "
		}
		out += x
	}
	return out
}

// BenchmarkProject folds a run's log into its task and stream events: the
// work of every GetTask, stream and subscription, per event.
func BenchmarkProject(b *testing.B) {
	events := runLog()
	b.ReportAllocs()
	for b.Loop() {
		p := &projector{}
		for _, e := range events {
			p.apply(e)
		}
		_ = p.snapshot(nil)
	}
}

// The task's metadata holds the run's usage so far, with the prompt
// cache's reads and writes.
func TestUsageInMetadata(t *testing.T) {
	p := &projector{}
	log := runLog()
	usage := []run.Payload{run.Usage{InputTokens: 1000, OutputTokens: 7, CacheReadTokens: 900, CacheWriteTokens: 60}, run.Usage{InputTokens: 500, OutputTokens: 3, CacheReadTokens: 400}}
	for i, e := range log {
		p.apply(e)
		if i == 2 {
			for _, u := range usage {
				p.apply(run.Event{RunID: e.RunID, Seq: e.Seq, Time: e.Time, Payload: u})
			}
		}
	}
	got, _ := json.Marshal(p.snapshot(nil).Metadata[MetaUsage])
	if want := `{"input_tokens":1500,"output_tokens":10,"cache_read_tokens":1300,"cache_write_tokens":60}`; string(got) != want {
		t.Fatalf("usage %s, want %s", got, want)
	}
}
