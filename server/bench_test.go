package server

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/byref/byref/agent"
	"github.com/byref/byref/run"
)

// benchLog is the log of a completed run of n steps, each a message, a
// call and an artifact it created.
func benchLog(n int) []run.Event {
	id := run.ID("01a20000-0000-7000-8000-000000000001")
	t := time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC)
	events := []run.Event{
		{RunID: id, Seq: 1, Time: t, Payload: run.RunCreated{Name: "bench", Session: "0b6f3f5e-2f53-4a8e-9c1b-7d8a3f6e9a10", Tags: map[string]string{TagAgent: "bench"}}},
		{RunID: id, Seq: 2, Time: t, Payload: run.StatusChanged{From: run.StatusCreated, To: run.StatusRunning}},
		{RunID: id, Seq: 3, Time: t, Payload: run.UserMessage{Text: "make the report"}},
	}
	add := func(p run.Payload) {
		events = append(events, run.Event{RunID: id, Seq: int64(len(events) + 1), Time: t, Payload: p})
	}
	for i := 1; i <= n; i++ {
		add(run.AssistantMessage{Step: i, Text: fmt.Sprintf("step %d", i)})
		add(run.ToolCallScheduled{Step: i, Call: run.ToolCall{ID: fmt.Sprint("call_", i), Name: "export", Arguments: `{"return":null}`}})
		add(run.ToolCallCompleted{CallID: fmt.Sprint("call_", i), Success: true})
		add(run.VariableCreated{Step: i, Variable: run.VariableInfo{Name: fmt.Sprint("export_result_", i), Type: artifactType},
			Value: []byte(`{"name":"report.csv","content_type":"text/csv","content":"aWQsc3RhdHVzCjEsbGF0ZQo="}`)})
	}
	add(run.Result{Value: []byte(`{"rows":1}`)})
	add(run.StatusChanged{From: run.StatusRunning, To: run.StatusCompleted})
	return events
}

// BenchmarkProjector folds a 50-step log into its ACP run and events, as
// every GET of a run, every stream and every history lookup does.
func BenchmarkProjector(b *testing.B) {
	events := benchLog(50)
	b.ReportAllocs()
	for b.Loop() {
		p := &projector{}
		for _, e := range events {
			p.apply(e)
		}
	}
}

// BenchmarkHistoryLookup resolves a forwarded session descriptor that
// names one 64 KiB resource MaxHistoryURLs times: the request the cache
// bounds.
func BenchmarkHistoryLookup(b *testing.B) {
	ctx := context.Background()
	store := run.NewMemoryStore()
	s, err := New(Options{Store: store, Agents: []Agent{{Name: "bench"}}, Engine: noEngine{}, MaxHistoryBytes: 64 << 20})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	events := benchLog(1)
	events[2].Payload = run.UserMessage{Text: strings.Repeat("x", 64<<10)}
	if _, _, err := store.Create(ctx, events[0]); err != nil {
		b.Fatal(err)
	}
	if _, err := store.Append(ctx, events[0].RunID, 1, events[1:]...); err != nil {
		b.Fatal(err)
	}
	desc := &sessionDescriptor{ID: "0b6f3f5e-2f53-4a8e-9c1b-7d8a3f6e9a10"}
	for range MaxHistoryURLs {
		desc.History = append(desc.History, "http://127.0.0.1:8000/resources/"+string(events[0].RunID)+".0")
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.history(ctx, run.SessionID(desc.ID), desc); err != nil {
			b.Fatal(err)
		}
	}
}

// noEngine lets a benchmark build a Server without agents' runtimes.
type noEngine struct{}

func (noEngine) Start(context.Context, string, runtimeOptions) (runtimeController, error) {
	return nil, fmt.Errorf("no engine")
}
func (noEngine) Control(context.Context, run.ID) (runtimeController, error) {
	return nil, run.ErrRunNotFound
}

type (
	runtimeOptions    = agent.RunOptions
	runtimeController = agent.Controller
)
