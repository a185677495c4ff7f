package server

import (
	"context"
	"iter"

	"github.com/byref/byref/agent"
	"github.com/byref/byref/run"
)

// follower is a controller that also yields a run's live deltas between
// its events: a *agent.Handle.
type follower interface {
	Events(ctx context.Context, from int64) iter.Seq2[run.Event, error]
}

// Follow yields the run's events from sequence number from, as
// run.Store.Events does, until the run ends or ctx is done; for a run
// this process executes, its live deltas (run.Delta) come between them as
// agent.Handle.Events says. For a run another process executes (an
// engine's worker), the deltas come when the store carries them between
// processes (run.LiveStore, as run/postgres does) and that process
// publishes them (as package temporal's workers do, and servers in
// replicas: see publishDeltas): those of every message that begins
// after the stream does (run.LiveStore.Live). Otherwise such a run has no deltas here:
// only its events.
func (s *Server) Follow(ctx context.Context, id run.ID, from int64) iter.Seq2[run.Event, error] {
	s.mu.Lock()
	c := s.live[id]
	s.mu.Unlock()
	if f, ok := c.(follower); ok {
		return f.Events(ctx, from)
	}
	if ls, ok := s.store.(run.LiveStore); ok {
		return ls.Live(ctx, id, from)
	}
	return s.store.Events(ctx, id, from)
}

// publishDeltas has a run of this process publish its live deltas through
// the store, when the server is one of several replicas and the store
// carries deltas between processes (run.LiveStore): a replica that holds
// a client following the run streams them (Follow).
func (s *Server) publishDeltas(c agent.Controller) {
	ls, ok := s.store.(run.LiveStore)
	h, isHandle := c.(*agent.Handle)
	if !ok || !isHandle || s.opts.Replicas == nil || s.opts.Engine != nil {
		return
	}
	id := h.ID()
	h.PublishDeltas(func(d run.Delta) { ls.PublishDelta(id, d) })
}
