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
	if _, _, err := s.Create(ctx, run.Event{RunID: "run_bench", Data: run.RunCreated{}}); err != nil {
		b.Fatal(err)
	}
	events := make([]run.Event, batch)
	for i := range events {
		events[i] = run.Event{Data: run.ToolCallCompleted{CallID: "call_1", Success: true, Stdout: "ok", Duration: time.Millisecond}}
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
	if _, _, err := w.Create(ctx, run.Event{RunID: "run_bench", Data: run.RunCreated{}}); err != nil {
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
	event := run.Event{Data: run.AssistantMessage{Text: "hello"}}
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
	if _, _, err := w.Create(ctx, run.Event{RunID: "run_bench", Data: run.RunCreated{}}); err != nil {
		b.Fatal(err)
	}
	seen := make(chan run.Delta, 1)
	go func() {
		for e, err := range r.Live(ctx, "run_bench", 1) {
			if err != nil {
				return
			}
			if d, ok := e.Data.(run.Delta); ok {
				seen <- d
			} else {
				seen <- run.Delta{} // events 1 (the follower has joined) and 2
			}
		}
	}()
	<-seen
	if _, err := w.Append(ctx, "run_bench", 1, run.Event{Data: run.AssistantMessage{Text: "hello"}}); err != nil {
		b.Fatal(err)
	}
	<-seen
	lat := make([]time.Duration, 0, 1024)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		start := time.Now()
		w.PublishDelta("run_bench", run.Delta{Step: 1, What: run.DeltaText, Text: "token", After: 2, CallID: strconv.Itoa(i)})
		if d := <-seen; d.CallID != strconv.Itoa(i) {
			b.Fatalf("followed delta %q, want %d", d.CallID, i)
		}
		lat = append(lat, time.Since(start))
	}
	reportLatency(b, lat)
}
