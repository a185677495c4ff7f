package postgres

import (
	"context"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/byref/byref/run"
)

// reportLatency reports the median and the 99th percentile of latencies.
func reportLatency(b *testing.B, lat []time.Duration) {
	if len(lat) == 0 {
		return
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
}

func benchAppend(b *testing.B, batch int) {
	ctx := context.Background()
	s := openAt(b, "", Options{})
	if _, _, err := s.Create(ctx, run.Event{RunID: "run_bench", Payload: run.RunCreated{}}); err != nil {
		b.Fatal(err)
	}
	events := make([]run.Event, batch)
	for i := range events {
		events[i] = run.Event{Payload: run.ToolCallCompleted{CallID: "call_1", Success: true, Stdout: "ok", Duration: time.Millisecond}}
	}
	last := int64(1)
	lat := make([]time.Duration, 0, 1024)
	b.ReportAllocs()
	for b.Loop() {
		start := time.Now()
		var err error
		if last, err = s.Append(ctx, "run_bench", last, events...); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(start))
	}
	reportLatency(b, lat)
	b.ReportMetric(float64(b.N*batch)/b.Elapsed().Seconds(), "events/s")
}

// BenchmarkAppend appends one event per statement, as the run's writer
// (whose Store knows the log's end).
func BenchmarkAppend(b *testing.B) { benchAppend(b, 1) }

// BenchmarkAppendStep10 appends a step of 10 events per statement.
func BenchmarkAppendStep10(b *testing.B) { benchAppend(b, 10) }

// BenchmarkAppendToFollower measures from the start of an Append in one
// process (Store) to a subscriber in another yielding the event: the
// append, its commit, the notification and the subscriber's reads.
func BenchmarkAppendToFollower(b *testing.B) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w := openAt(b, "", Options{})
	r := openAt(b, "", Options{Schema: w.schema})
	if _, _, err := w.Create(ctx, run.Event{RunID: "run_bench", Payload: run.RunCreated{}}); err != nil {
		b.Fatal(err)
	}
	seen := make(chan int64, 1)
	go func() {
		for e, err := range r.Events(ctx, "run_bench", 2) {
			if err != nil {
				return
			}
			seen <- e.Seq
		}
	}()
	event := run.Event{Payload: run.AssistantMessage{Text: "hello"}}
	last := int64(1)
	lat := make([]time.Duration, 0, 1024)
	b.ReportAllocs()
	for b.Loop() {
		start := time.Now()
		var err error
		if last, err = w.Append(ctx, "run_bench", last, event); err != nil {
			b.Fatal(err)
		}
		if got := <-seen; got != last {
			b.Fatalf("followed %d, want %d", got, last)
		}
		lat = append(lat, time.Since(start))
	}
	reportLatency(b, lat)
}

// BenchmarkDeltaToFollower measures from PublishDelta in one process to a
// follower's Live in another yielding the delta: the queue, the
// notification and the listener.
func BenchmarkDeltaToFollower(b *testing.B) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w := openAt(b, "", Options{})
	r := openAt(b, "", Options{Schema: w.schema})
	if _, _, err := w.Create(ctx, run.Event{RunID: "run_bench", Payload: run.RunCreated{}}); err != nil {
		b.Fatal(err)
	}
	seen := make(chan run.Delta, 1)
	go func() {
		for e, err := range r.Live(ctx, "run_bench", 1) {
			if err != nil {
				return
			}
			if d, ok := e.Payload.(run.Delta); ok {
				seen <- d
			} else {
				seen <- run.Delta{} // events 1 (the follower has joined) and 2
			}
		}
	}()
	<-seen
	if _, err := w.Append(ctx, "run_bench", 1, run.Event{Payload: run.AssistantMessage{Text: "hello"}}); err != nil {
		b.Fatal(err)
	}
	<-seen
	lat := make([]time.Duration, 0, 1024)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		start := time.Now()
		w.PublishDelta("run_bench", run.Delta{Step: 1, What: run.DeltaText, Text: "token", After: 2, Offset: int64(5 * (i - 1)), CallID: strconv.Itoa(i)})
		if d := <-seen; d.CallID != strconv.Itoa(i) {
			b.Fatalf("followed delta %q, want %d", d.CallID, i)
		}
		lat = append(lat, time.Since(start))
	}
	reportLatency(b, lat)
}

// fill inserts n runs in one statement, as Create would write them: run
// i is tagged tenant=t<i%1000>, in session s<i%5000>, with statuses in
// turn.
func fill(b *testing.B, s *Store, n int) {
	statuses := make([]string, 0, len(run.Statuses()))
	for _, st := range run.Statuses() {
		statuses = append(statuses, string(st))
	}
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano()
	if _, err := s.pool.Exec(context.Background(), s.sql(`INSERT INTO {s}.runs (id, name, session, turn,
		parent_run, parent_tool_call, tags, status, reason, created_at, updated_at, last_seq)
		SELECT format('run_%s', lpad(i::text, 6, '0')), '', 's' || (i % 5000), '', '', '',
			jsonb_build_object('tenant', 't' || (i % 1000)), ($2::text[])[1 + i % cardinality($2::text[])], '',
			$3::bigint + i, $3::bigint + i, 1
		FROM generate_series(0, $1::int - 1) AS i`), n, statuses, t0); err != nil {
		b.Fatal(err)
	}
	// As autovacuum would: statistics, and the GIN index's pending
	// entries merged.
	if _, err := s.pool.Exec(context.Background(), s.sql(`VACUUM ANALYZE {s}.runs`)); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkListByTag100k lists a page of the 100 runs with one tag among
// 100,000 runs.
func BenchmarkListByTag100k(b *testing.B) {
	s := openAt(b, "", Options{})
	fill(b, s, 100_000)
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

// BenchmarkListByStatusAndTag100k lists a page of one status and one tag
// among 100,000 runs.
func BenchmarkListByStatusAndTag100k(b *testing.B) {
	s := openAt(b, "", Options{})
	fill(b, s, 100_000)
	ctx := context.Background()
	q := run.Query{Statuses: []run.Status{run.StatusAwaiting}, Tags: map[string]string{"tenant": "t2"}}
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := s.List(ctx, q); err != nil {
			b.Fatal(err)
		}
	}
}
