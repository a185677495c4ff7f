package server_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/byref/byref/agent"
	"github.com/byref/byref/internal/pgtest"
	"github.com/byref/byref/llm"
	"github.com/byref/byref/run"
	"github.com/byref/byref/run/postgres"
	"github.com/byref/byref/server"
)

// A run that another process executes (an engine's worker) streams its
// deltas through this server when the store carries them between
// processes: Follow yields them between the run's events.
func TestFollowDeltasOfAnotherProcess(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a hang guard
	defer cancel()
	url := pgtest.Start(t).Database(t)
	open := func() *postgres.Store {
		s, err := postgres.Open(ctx, url, postgres.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}
	mine, worker := open(), open()
	s, _ := startServer(t, server.Options{Store: mine, Agents: []server.Agent{scriptedAgent(mine, "a", llm.NewScripted(), agent.RunOptions{})}})

	if _, _, err := worker.Create(ctx, run.Event{RunID: "run_elsewhere", Payload: run.RunCreated{}}); err != nil {
		t.Fatal(err)
	}
	last, err := worker.Append(ctx, "run_elsewhere", 1, run.Event{Payload: run.StatusChanged{From: run.StatusCreated, To: run.StatusRunning}})
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan string, 16)
	go func() {
		defer close(got)
		for e, err := range s.Follow(ctx, "run_elsewhere", 1) {
			if err != nil {
				got <- err.Error()
				return
			}
			if d, ok := e.Payload.(run.Delta); ok {
				got <- "Δ" + d.Text
			} else {
				got <- fmt.Sprint(e.Seq)
			}
		}
	}()
	expect := func(want ...string) {
		t.Helper()
		for _, w := range want {
			if g := <-got; g != w {
				t.Fatalf("followed %q, want %q", g, w)
			}
		}
	}
	expect("1", "2")
	last, err = worker.Append(ctx, "run_elsewhere", last, run.Event{Payload: run.UserMessage{Text: "go"}})
	if err != nil {
		t.Fatal(err)
	}
	worker.PublishDelta("run_elsewhere", run.Delta{Step: 1, What: run.DeltaText, Text: "Hel", After: last})
	worker.PublishDelta("run_elsewhere", run.Delta{Step: 1, What: run.DeltaText, Text: "lo", After: last, Offset: 3})
	expect("3", "ΔHel", "Δlo")
	if _, err := worker.Append(ctx, "run_elsewhere", last, run.Event{Payload: run.AssistantMessage{Text: "Hello"}},
		run.Event{Payload: run.StatusChanged{From: run.StatusRunning, To: run.StatusCompleted}}); err != nil {
		t.Fatal(err)
	}
	expect("4", "5")
	if g, ok := <-got; ok {
		t.Fatalf("followed %q after the run ended", g)
	}
}
