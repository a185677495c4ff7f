package run_test

import (
	"context"
	"testing"

	"github.com/byref/byref/run"
	"github.com/byref/byref/run/storetest"
)

func TestMemoryStoreConformance(t *testing.T) {
	storetest.Run(t, func(*testing.T) run.Store { return run.NewMemoryStore() })
}

func BenchmarkMemoryStoreAppend(b *testing.B) {
	ctx := context.Background()
	s := run.NewMemoryStore()
	if _, _, err := s.Create(ctx, run.Event{RunID: "run_bench", Payload: run.RunCreated{}}); err != nil {
		b.Fatal(err)
	}
	e := run.Event{Payload: run.ToolCallCompleted{CallID: "call_1", Success: true, Stdout: "ok"}}
	last := int64(1)
	b.ReportAllocs()
	for b.Loop() {
		var err error
		if last, err = s.Append(ctx, "run_bench", last, e); err != nil {
			b.Fatal(err)
		}
	}
}
