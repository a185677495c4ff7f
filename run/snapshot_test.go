package run_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/byref/byref/run"
)

var update = flag.Bool("update", false, "rewrite the golden logs in testdata")

// logBuilder writes a run's log as the runtime would, one event a second.
type logBuilder struct {
	id     run.ID
	events []run.Event
	status run.Status
}

var t0 = time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC)

func newLog(id run.ID, c run.RunCreated) *logBuilder {
	b := &logBuilder{id: id, status: run.StatusCreated}
	b.add(c)
	return b
}

func (b *logBuilder) add(ps ...run.Payload) *logBuilder {
	for _, p := range ps {
		n := len(b.events)
		b.events = append(b.events, run.Event{RunID: b.id, Seq: int64(n + 1), Time: t0.Add(time.Duration(n) * time.Second), Payload: p})
	}
	return b
}

func (b *logBuilder) to(s run.Status, reason string) *logBuilder {
	b.add(run.StatusChanged{From: b.status, To: s, Reason: reason})
	b.status = s
	return b
}

func (b *logBuilder) phase(from, to run.Phase) *logBuilder {
	return b.add(run.PhaseChanged{From: from, To: to})
}

func weatherCall(id string) run.ToolCall {
	return run.ToolCall{ID: id, Name: "get_weather", Arguments: `{"city":"<<var:city>>"}`,
		References: map[string]run.VariableRef{"city": {Variable: "city", Type: "string", Preview: `"Paris"`}}}
}

func variable(name, typ, preview string) run.VariableInfo {
	return run.VariableInfo{Name: name, Type: typ, Preview: preview}
}

// recordedLogs are the logs the snapshot tests fold, by name.
func recordedLogs() map[string][]run.Event {
	weather := newLog("run_weather", run.RunCreated{Name: "weather", Session: "s1", Turn: "t1",
		Tags: map[string]string{"user": "ann"}, Input: json.RawMessage(`{"city":"Paris"}`)}).
		add(run.VariableCreated{Variable: variable("city", "string", `"Paris"`), Value: json.RawMessage(`"Paris"`)}).
		to(run.StatusRunning, "").phase("", run.PhasePrompted).
		add(run.UserMessage{Text: "Weather in Paris?", Turn: "t1"}).
		phase(run.PhasePrompted, run.PhasePlanning).
		add(run.AssistantMessage{Step: 1, Text: "Checking.", Reasoning: "need get_weather"},
			run.Usage{InputTokens: 100, OutputTokens: 20}).
		phase(run.PhasePlanning, run.PhaseExecuting).
		add(run.ToolCallScheduled{Step: 1, Call: weatherCall("c1")},
			run.ToolCallCompleted{CallID: "c1", Success: true, Duration: 250 * time.Millisecond,
				Created: []run.VariableInfo{variable("weather", "main.Weather", "{Temp:21}")}},
			run.VariableCreated{Step: 1, Variable: variable("weather", "main.Weather", "{Temp:21}"), Value: json.RawMessage(`{"temp":21}`)}).
		phase(run.PhaseExecuting, run.PhaseSynthesizing).
		add(run.AssistantMessage{Step: 2, Text: "It is 21°C."},
			run.Usage{InputTokens: 150, OutputTokens: 30},
			run.Result{Value: json.RawMessage(`{"temp":21}`)}).
		to(run.StatusCompleted, "terminated")

	snippet := newLog("run_snippet", run.RunCreated{Name: "sum"}).
		to(run.StatusRunning, "").
		add(run.SnippetExecuted{Step: 1, Snippet: run.Snippet{Code: "total := 1 +", Writes: []string{"total"}},
			Error: "expected operand", Duration: time.Millisecond},
			run.Error{Step: 1, Message: "snippet failed to compile"},
			run.SnippetExecuted{Step: 2, Snippet: run.Snippet{Code: "total := 1 + 2", Writes: []string{"total"}},
				Success: true, Duration: 2 * time.Millisecond, Created: []run.VariableInfo{variable("total", "int", "3")}},
			run.VariableCreated{Step: 2, Variable: variable("total", "int", "3"), Value: json.RawMessage(`3`)},
			run.VariableModified{Step: 3, Variable: variable("total", "int", "4"), Value: json.RawMessage(`4`)},
			run.Result{Value: json.RawMessage(`null`)}).
		to(run.StatusCompleted, "")

	approval := newLog("run_approval", run.RunCreated{Name: "approve", Options: run.Spec{Approval: run.ApproveOnToolCall, NonInteractive: true}}).
		to(run.StatusRunning, "").
		add(run.ToolCallScheduled{Step: 1, Call: weatherCall("c1")},
			run.AwaitRequested{ID: "a1", Await: run.AwaitApproval, Message: "Call get_weather?", Call: ptr(weatherCall("c1"))}).
		to(run.StatusAwaiting, "approval").
		add(run.AwaitResolved{ID: "a1", Answer: run.Answer{Decision: run.Denied, Reason: "use Lyon"}}).
		to(run.StatusRunning, "").
		add(run.ToolCallCompleted{CallID: "c1", Error: "denied: use Lyon"},
			run.ToolCallScheduled{Step: 2, Call: weatherCall("c2")},
			run.AwaitRequested{ID: "a2", Await: run.AwaitApproval, Call: ptr(weatherCall("c2")),
				Deadline: t0.Add(time.Hour)}).
		to(run.StatusAwaiting, "approval").
		to(run.StatusFailed, "await a2 timed out")

	followUp := newLog("run_followup", run.RunCreated{Name: "chat", Session: "s2", Turn: "t1"}).
		to(run.StatusRunning, "").
		add(run.UserMessage{Text: "first", Turn: "t1"}, run.Result{Value: json.RawMessage(`1`)}).
		to(run.StatusCompleted, "").
		add(run.UserMessage{Text: "again", Turn: "t2"}).
		to(run.StatusRunning, "follow-up").
		add(run.AwaitRequested{ID: "q1", Await: run.AwaitQuestion, Message: "Which one?"}).
		to(run.StatusAwaiting, "").
		add(run.AwaitResolved{ID: "q1", Answer: run.Answer{Text: "the second"}}).
		to(run.StatusRunning, "").
		add(run.Result{Value: json.RawMessage(`2`)}).
		to(run.StatusCompleted, "")

	parent := newLog("run_parent", run.RunCreated{Name: "manager"}).
		to(run.StatusRunning, "").
		add(run.ToolCallScheduled{Step: 1, Call: run.ToolCall{ID: "c1", Name: "researcher"}},
			run.ChildRunStarted{Child: "run_child1", CallID: "c1", Name: "researcher"},
			run.ToolCallScheduled{Step: 1, Call: run.ToolCall{ID: "c2", Name: "researcher"}},
			run.ChildRunStarted{Child: "run_child2", CallID: "c2", Name: "researcher"},
			run.ChildRunFinished{Child: "run_child1", CallID: "c1", Status: run.StatusCompleted, Result: json.RawMessage(`"found"`)},
			run.ToolCallCompleted{CallID: "c1", Success: true, Duration: time.Second}).
		to(run.StatusCancelling, "user canceled").
		add(run.ChildRunFinished{Child: "run_child2", CallID: "c2", Status: run.StatusCanceled},
			run.ToolCallCompleted{CallID: "c2", Error: "context canceled", Duration: 2 * time.Second}).
		to(run.StatusCanceled, "user canceled")

	auth := newLog("run_auth", run.RunCreated{Name: "auth"}).
		to(run.StatusRunning, "").
		add(run.AwaitRequested{ID: "a1", Await: run.AwaitAuthorization, Link: "https://auth.example/x"}).
		to(run.StatusAwaiting, "authorization").
		to(run.StatusCancelling, "").
		to(run.StatusCanceled, "")

	startFault := newLog("run_fault", run.RunCreated{}).to(run.StatusFailed, "model unreachable")

	return map[string][]run.Event{
		"weather": weather.events, "snippet": snippet.events, "approval": approval.events,
		"followup": followUp.events, "children": parent.events, "authorization": auth.events,
		"startfault": startFault.events,
	}
}

func ptr[T any](v T) *T { return &v }

func TestSnapshotEqualsFoldOfEveryPrefix(t *testing.T) {
	for name, events := range recordedLogs() {
		t.Run(name, func(t *testing.T) {
			var s run.Snapshot
			for i, e := range events {
				s.Apply(e)
				if f := run.Fold(events[:i+1]); !reflect.DeepEqual(s, f) {
					t.Fatalf("after event %d (%s): Apply gives\n%+v\nFold gives\n%+v", e.Seq, e.Type(), s, f)
				}
				// Cloned snapshots go on independently.
				c := s.Clone()
				if !reflect.DeepEqual(c, s) {
					t.Fatalf("Clone differs")
				}
			}
		})
	}
}

// TestRecordedLogsAreLegal appends every recorded log to a store, which
// checks sequence numbers and transitions.
func TestRecordedLogsAreLegal(t *testing.T) {
	ctx := context.Background()
	s := run.NewMemoryStore()
	for name, events := range recordedLogs() {
		if _, _, err := s.Create(ctx, events[0]); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if _, err := s.Append(ctx, events[0].RunID, 1, events[1:]...); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		snap, err := run.LoadSnapshot(ctx, s, events[0].RunID)
		if err != nil || !reflect.DeepEqual(snap, run.Fold(events)) {
			t.Fatalf("%s: the stored log folds differently (%v)", name, err)
		}
	}
}

func TestSnapshotFields(t *testing.T) {
	logs := recordedLogs()
	w := run.Fold(logs["weather"])
	if w.Status != run.StatusCompleted || w.Phase != run.PhaseSynthesizing || w.Name != "weather" ||
		w.Session != "s1" || w.Tags["user"] != "ann" || string(w.Result) != `{"temp":21}` ||
		w.LastAssistantMessage != "It is 21°C." || w.LastUserMessage != "Weather in Paris?" ||
		w.Usage != (run.Usage{InputTokens: 250, OutputTokens: 50}) || w.Step != 2 ||
		!w.CreatedAt.Equal(t0) || w.LastSeq != int64(len(logs["weather"])) || w.Await != nil {
		t.Errorf("weather snapshot = %+v", w)
	}
	if len(w.ToolCalls) != 1 || !w.ToolCalls[0].Done || w.ToolCalls[0].Duration != 250*time.Millisecond ||
		w.ToolCalls[0].Call.References["city"].Variable != "city" || !w.ToolCalls[0].Success {
		t.Errorf("weather tool calls = %+v", w.ToolCalls)
	}
	if v, ok := w.Variable("weather"); !ok || v.Preview != "{Temp:21}" || v.CreatedStep != 1 || string(v.Value) != `{"temp":21}` {
		t.Errorf("weather variable = %+v, %v", v, ok)
	}

	sn := run.Fold(logs["snippet"])
	if v, _ := sn.Variable("total"); v.Preview != "4" || v.Step != 3 || v.CreatedStep != 2 ||
		len(sn.Snippets) != 2 || sn.Snippets[0].Success || !sn.Snippets[1].Success ||
		string(sn.Result) != "null" || sn.LastError != "snippet failed to compile" {
		t.Errorf("snippet snapshot = %+v", sn)
	}

	ap := logs["approval"]
	for i, e := range ap {
		if sc, ok := e.Payload.(run.StatusChanged); ok && sc.To == run.StatusAwaiting {
			if s := run.Fold(ap[:i+1]); s.Await == nil || s.Await.Call == nil || s.Status != run.StatusAwaiting {
				t.Errorf("approval at event %d: await = %+v", e.Seq, s.Await)
			}
		}
	}
	if a := run.Fold(ap); a.Status != run.StatusFailed || a.FailureReason != "await a2 timed out" || a.Await != nil ||
		a.ToolCalls[0].Error != "denied: use Lyon" || a.ToolCalls[1].Done {
		t.Errorf("approval snapshot = %+v", a)
	}

	f := run.Fold(logs["followup"])
	if string(f.Result) != "2" || f.Turn != "t2" || f.Status != run.StatusCompleted {
		t.Errorf("follow-up snapshot: result %s, turn %s, status %s", f.Result, f.Turn, f.Status)
	}

	c := run.Fold(logs["children"])
	if len(c.ChildRuns) != 2 || c.ChildRuns[0].Status != run.StatusCompleted || string(c.ChildRuns[0].Result) != `"found"` ||
		c.ChildRuns[1].Status != run.StatusCanceled || c.ToolCalls[1].Child != "run_child2" || c.Status != run.StatusCanceled {
		t.Errorf("children snapshot = %+v", c)
	}
	if a := run.Fold(logs["authorization"]); a.Await != nil || a.Status != run.StatusCanceled {
		t.Errorf("a cancelled await is still pending: %+v", a.Await)
	}
	if s := run.Fold(logs["startfault"]); s.Status != run.StatusFailed || s.FailureReason != "model unreachable" {
		t.Errorf("start fault snapshot = %+v", s)
	}
}

func TestSnapshotJSONRoundTrip(t *testing.T) {
	for name, events := range recordedLogs() {
		s := run.Fold(events)
		b, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		var back run.Snapshot
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatal(err)
		}
		b2, _ := json.Marshal(back)
		if !bytes.Equal(b, b2) {
			t.Errorf("%s: snapshot JSON does not round-trip:\n%s\n%s", name, b, b2)
		}
	}
}

// TestGoldenLogs keeps the wire form of the recorded logs stable: one JSON
// event per line in testdata/<name>.jsonl. Run with -update to rewrite.
func TestGoldenLogs(t *testing.T) {
	for name, events := range recordedLogs() {
		path := filepath.Join("testdata", name+".jsonl")
		var buf bytes.Buffer
		for _, e := range events {
			b, err := e.MarshalJSON()
			if err != nil {
				t.Fatal(err)
			}
			buf.Write(b)
			buf.WriteByte('\n')
		}
		if *update {
			if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		golden, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (run go test -update to create it)", err)
		}
		if !bytes.Equal(golden, buf.Bytes()) {
			t.Errorf("%s: the wire form changed; if on purpose, run go test -update", path)
		}
		var decoded []run.Event
		sc := bufio.NewScanner(bytes.NewReader(golden))
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var e run.Event
			if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			decoded = append(decoded, e)
		}
		if !reflect.DeepEqual(decoded, events) {
			t.Errorf("%s: decoding the golden log does not give the recorded events", path)
		}
	}
}

// benchLog returns a log of about n events: steps of a message, a tool
// call, its completion, a variable and usage.
func benchLog(n int) []run.Event {
	b := newLog("run_bench", run.RunCreated{Name: "bench"}).to(run.StatusRunning, "")
	for step := 1; len(b.events) < n-1; step++ {
		id := fmt.Sprintf("c%d", step)
		b.add(run.AssistantMessage{Step: step, Text: "next"},
			run.ToolCallScheduled{Step: step, Call: weatherCall(id)},
			run.ToolCallCompleted{CallID: id, Success: true, Duration: time.Millisecond},
			run.VariableCreated{Step: step, Variable: variable(fmt.Sprintf("v%d", step%20), "int", "1")},
			run.Usage{InputTokens: 10, OutputTokens: 2})
	}
	return b.to(run.StatusCompleted, "").events
}

func BenchmarkFold1000(b *testing.B) {
	events := benchLog(1000)
	b.ReportAllocs()
	for b.Loop() {
		run.Fold(events)
	}
}

func BenchmarkSnapshotApply(b *testing.B) {
	events := benchLog(1000)
	var s run.Snapshot
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if i == len(events) {
			s, i = run.Snapshot{}, 0
		}
		s.Apply(events[i])
		i++
	}
}

func TestSnapshotFailureKind(t *testing.T) {
	events := newLog("run_refused", run.RunCreated{Name: "refused"}).
		to(run.StatusRunning, "").
		add(run.Error{Message: "a retried call"}).
		add(run.Error{Step: 1, Message: "the model refused the task: no.", Failure: run.FailureRefusal, Refusal: "no."}).
		to(run.StatusFailed, "the model refused the task: no.").events
	s := run.Fold(events)
	if s.Status != run.StatusFailed || s.FailureKind != run.FailureRefusal || s.Refusal != "no." || s.FailureReason != "the model refused the task: no." {
		t.Errorf("snapshot = %+v", s)
	}
	b, _ := json.Marshal(s)
	var back run.Snapshot
	if err := json.Unmarshal(b, &back); err != nil || back.FailureKind != run.FailureRefusal || back.Refusal != "no." {
		t.Errorf("round trip: %+v, %v", back, err)
	}
	if plain := run.Fold(events[:3]); plain.FailureKind != "" {
		t.Errorf("an Error without Failure set the kind %q", plain.FailureKind)
	}
}

// A call the run's client runs is marked in the snapshot from its await
// on, and stays marked once answered; a JSON log without the field (an
// older one) reads as a call the run ran itself.
func TestSnapshotClientCall(t *testing.T) {
	call := run.ToolCall{ID: "c1", Name: "confirm", Arguments: `{}`}
	other := run.ToolCall{ID: "c2", Name: "fetch", Arguments: `{}`}
	events := []run.Event{
		{Seq: 1, Payload: run.ToolCallScheduled{Step: 1, Call: call}},
		{Seq: 2, Payload: run.ToolCallScheduled{Step: 1, Call: other}},
		{Seq: 3, Payload: run.AwaitRequested{ID: "a1", Await: run.AwaitInput, Call: &call, Client: true}},
		{Seq: 4, Payload: run.AwaitRequested{ID: "a2", Await: run.AwaitInput, Call: &other}},
	}
	snap := run.Fold(events)
	if !snap.ToolCalls[0].Client || snap.ToolCalls[1].Client {
		t.Fatalf("client marks: %+v", snap.ToolCalls)
	}
	snap = run.Fold(append(events, run.Event{Seq: 5, Payload: run.AwaitResolved{ID: "a1", Answer: run.Answer{Input: json.RawMessage(`"yes"`)}}},
		run.Event{Seq: 6, Payload: run.ToolCallCompleted{CallID: "c1", Success: true}}))
	if !snap.ToolCalls[0].Client || !snap.ToolCalls[0].Done {
		t.Fatalf("after the answer: %+v", snap.ToolCalls[0])
	}
	var old run.AwaitRequested
	if err := json.Unmarshal([]byte(`{"id":"a1","kind":"input","call":{"id":"c1","name":"confirm"}}`), &old); err != nil || old.Client {
		t.Fatalf("an older await: %+v %v", old, err)
	}
}
