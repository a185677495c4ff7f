package agent_test

import (
	"context"
	"strconv"
	"testing"

	"github.com/byref/byref/agent"
	"github.com/byref/byref/internal/sessiontest"
	"github.com/byref/byref/run"
)

// BenchmarkSessionFold measures what a run of a session pays at its
// start on top of a run without one: the fold of the session's n earlier
// runs from the store (each called load_orders and open_db, then
// answered).
func BenchmarkSessionFold(b *testing.B) {
	for _, n := range []int{1, 10, 50} {
		store := run.NewMemoryStore()
		opts := sessiontest.Agent()
		opts.Store = store
		rt, err := agent.New(opts)
		if err != nil {
			b.Fatal(err)
		}
		for range n {
			if _, err := rt.Run(context.Background(), agent.RunOptions{Session: "chat", Task: "load the orders"}); err != nil {
				b.Fatal(err)
			}
		}
		b.Run(strconv.Itoa(n)+"-runs", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if s, err := rt.Session(context.Background(), "chat"); err != nil || len(s.Runs) != n {
					b.Fatal(s.Runs, err)
				}
			}
		})
		_ = rt.Close(context.Background())
	}
}
