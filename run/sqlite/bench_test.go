package sqlite

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/byref/byref/run"
)

func benchAppend(b *testing.B, batch int) {
	ctx := context.Background()
	s := open(b, filepath.Join(b.TempDir(), "bench.db"))
	if _, _, err := s.Create(ctx, run.Event{RunID: "run_bench", Payload: run.RunCreated{}}); err != nil {
		b.Fatal(err)
	}
	events := make([]run.Event, batch)
	for i := range events {
		events[i] = run.Event{Payload: run.ToolCallCompleted{CallID: "call_1", Success: true, Stdout: "ok", Duration: time.Millisecond}}
	}
	last := int64(1)
	b.ReportAllocs()
	for b.Loop() {
		var err error
		if last, err = s.Append(ctx, "run_bench", last, events...); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*batch)/b.Elapsed().Seconds(), "events/s")
}

// BenchmarkAppend appends one event per transaction.
func BenchmarkAppend(b *testing.B) { benchAppend(b, 1) }

// BenchmarkAppendStep10 appends a step of 10 events per transaction.
func BenchmarkAppendStep10(b *testing.B) { benchAppend(b, 10) }

var (
	benchOnce  sync.Once
	benchDir   string
	benchStore *Store
	benchErr   error
)

// listStore returns a store of 100,000 runs, each tagged tenant=t<i%1000>
// (100 runs per tenant), built once per test binary.
func listStore(b *testing.B) *Store {
	benchOnce.Do(func() {
		benchDir, benchErr = os.MkdirTemp("", "byref-sqlite-bench")
		if benchErr != nil {
			return
		}
		benchStore, benchErr = Open(filepath.Join(benchDir, "list.db"), Options{})
		if benchErr != nil {
			return
		}
		benchErr = fill(benchStore, 100_000)
	})
	if benchErr != nil {
		b.Fatal(benchErr)
	}
	return benchStore
}

// fill inserts n runs in one transaction, as Create would write them.
func fill(s *Store, n int) error {
	tx, err := s.w.Begin()
	if err != nil {
		return err
	}
	defer tx.Rollback()
	statuses := run.Statuses()
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano()
	for i := range n {
		tenant := fmt.Sprintf("t%d", i%1000)
		res, err := tx.Exec(`INSERT INTO runs (id, name, session, turn, parent_run, parent_tool_call, tags,
			status, reason, created_at, updated_at, last_seq) VALUES (?, '', ?, '', '', '', ?, ?, '', ?, ?, 1)`,
			fmt.Sprintf("run_%06d", i), fmt.Sprintf("s%d", i%5000), `{"tenant":"`+tenant+`"}`,
			statuses[i%len(statuses)], t0+int64(i), t0+int64(i))
		if err != nil {
			return err
		}
		pk, _ := res.LastInsertId()
		if _, err := tx.Exec(`INSERT INTO run_tags (key, value, run) VALUES ('tenant', ?, ?)`, tenant, pk); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// BenchmarkListByTag100k lists a page of the 100 runs with one tag among
// 100,000 runs.
func BenchmarkListByTag100k(b *testing.B) {
	s := listStore(b)
	ctx := context.Background()
	q := run.Query{Tags: map[string]string{"tenant": "t123"}}
	b.ReportAllocs()
	for b.Loop() {
		runs, next, err := s.List(ctx, q)
		if err != nil || len(runs) != run.DefaultListLimit || next == "" {
			b.Fatalf("List = %d runs, %q, %v", len(runs), next, err)
		}
	}
}

// BenchmarkListByStatusAndTag100k lists a page of one status and one tag among 100,000 runs.
func BenchmarkListByStatusAndTag100k(b *testing.B) {
	s := listStore(b)
	ctx := context.Background()
	q := run.Query{Statuses: []run.Status{run.StatusAwaiting}, Tags: map[string]string{"tenant": "t2"}}
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := s.List(ctx, q); err != nil {
			b.Fatal(err)
		}
	}
}
