package temporal_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"go.temporal.io/sdk/worker"

	"github.com/byref/byref/internal/pgtest"
	"github.com/byref/byref/run"
	"github.com/byref/byref/run/postgres"
	byreftemporal "github.com/byref/byref/temporal"
)

// published is the PostgreSQL store, seeing the deltas a worker publishes
// through it.
type published struct {
	*postgres.Store
	mu     sync.Mutex
	deltas []run.Delta
	more   chan struct{}
}

func (p *published) PublishDelta(id run.ID, d run.Delta) {
	p.mu.Lock()
	p.deltas = append(p.deltas, d)
	p.mu.Unlock()
	select {
	case p.more <- struct{}{}:
	default:
	}
	p.Store.PublishDelta(id, d)
}

// A worker on a store that carries deltas between processes publishes
// the deltas of the runs it hosts: each tool call the model streams,
// after an event before the call's, for followers in other processes.
func TestWorkerPublishesDeltas(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a hang guard
	defer cancel()
	pg, err := postgres.Open(ctx, pgtest.Start(t).Database(t), postgres.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pg.Close() })
	store := &published{Store: pg, more: make(chan struct{}, 1)}
	e := newEnvOn(t, store, weatherAgent())
	// The test environment runs activities on the workflow's goroutine,
	// and these write to a real database: give them more than the
	// default second before calling the workflow stuck.
	e.SetWorkerOptions(worker.Options{DeadlockDetectionTimeout: time.Minute})
	o := e.execute(t, "weather", byreftemporal.RunSpec{Spec: run.Spec{Task: "What is the weather?", NonInteractive: true}, ID: "run-deltas"})
	if !o.OK() {
		t.Fatalf("outcome = %+v", o)
	}
	events, err := pg.Read(ctx, "run-deltas", 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int64{} // each called tool, and its call's event
	for _, ev := range events {
		if c, ok := ev.Payload.(run.ToolCallScheduled); ok {
			want[c.Call.Name] = ev.Seq
		}
	}
	if len(want) < 2 {
		t.Fatalf("the run called %v, want get_weather and terminate", want)
	}
	// The worker publishes as it follows the run, beside it.
	seen := 0
	for len(want) > 0 {
		store.mu.Lock()
		for _, d := range store.deltas[seen:] {
			if seq, ok := want[d.Name]; ok && d.What == run.DeltaToolCall && d.After < seq {
				delete(want, d.Name)
			}
		}
		seen = len(store.deltas)
		store.mu.Unlock()
		if len(want) == 0 {
			break
		}
		select {
		case <-store.more:
		case <-ctx.Done():
			t.Fatalf("no delta published for the calls of %v", want)
		}
	}
}
