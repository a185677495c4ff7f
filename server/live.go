package server

import (
	"context"
	"iter"

	"github.com/byref/byref/run"
)

// follower is a controller that also yields a run's live deltas between
// its events: a *runtime.Handle.
type follower interface {
	Events(ctx context.Context, from int64) iter.Seq2[run.Event, error]
}

// Follow yields the run's events from sequence number from, as
// run.Store.Events does, until the run ends or ctx is done; for a run
// this process executes, its live deltas (run.Delta) come between them as
// runtime.Handle.Events says. A run on an engine, or started before a
// restart, has no deltas here: only its events.
func (s *Server) Follow(ctx context.Context, id run.ID, from int64) iter.Seq2[run.Event, error] {
	s.mu.Lock()
	c := s.live[id]
	s.mu.Unlock()
	if f, ok := c.(follower); ok {
		return f.Events(ctx, from)
	}
	return s.store.Events(ctx, id, from)
}
