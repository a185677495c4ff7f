package server

import (
	"context"
	"errors"
	"time"

	"github.com/byref/byref/run"
)

// DefaultShutdownGrace is Options.ShutdownGrace's default.
const DefaultShutdownGrace = 10 * time.Second

// InterruptedReason is the failure reason Close records for a run that its
// agent's runtime left unfinished in the log once Options.ShutdownGrace ran
// out (agent.Agent.Close marks the runs it stops in a step itself).
// Every such reason, and agent.Recover's for a run a crashed process
// left running, starts with "interrupted".
const InterruptedReason = "interrupted: the server stopped before the run's step finished"

// liveIDs returns the IDs of the runs whose turn goes on in this process.
func (s *Server) liveIDs() []run.ID {
	s.mu.Lock()
	defer s.mu.Unlock()
	ids := make([]run.ID, 0, len(s.live))
	for id := range s.live {
		ids = append(ids, id)
	}
	return ids
}

// settle waits until the run awaits or has ended, or ctx is done, and
// reports whether it did.
func (s *Server) settle(ctx context.Context, id run.ID) bool {
	sum, err := s.store.Get(context.WithoutCancel(ctx), id)
	if err != nil {
		return false
	}
	if settled(sum.Status) {
		return true
	}
	for e, err := range s.store.Events(ctx, id, sum.LastSeq+1) {
		if err != nil {
			return false
		}
		if sc, ok := e.Payload.(run.StatusChanged); ok && settled(sc.To) {
			return true
		}
	}
	return false
}

// settled reports whether a run in status st can be left as it is by a
// stopping server: it awaits, or it has ended.
func settled(st run.Status) bool {
	return st == run.StatusAwaiting || st.Terminal()
}

// interrupt marks a run the server cut short in a step as failed with
// InterruptedReason, unless it has settled meanwhile.
func (s *Server) interrupt(ctx context.Context, id run.ID) error {
	sum, err := s.store.Get(ctx, id)
	if err != nil || settled(sum.Status) {
		return err
	}
	s.log.Warn("server: a run's step was still going at shutdown; marked interrupted", "run", id)
	_, err = s.store.Append(ctx, id, sum.LastSeq,
		run.Event{Payload: run.Error{Message: InterruptedReason, Failure: run.FailureInterrupted}},
		run.Event{Payload: run.StatusChanged{From: sum.Status, To: run.StatusFailed, Reason: InterruptedReason}})
	var conflict *run.ConflictError
	if errors.As(err, &conflict) {
		return s.interrupt(ctx, id) // a last event landed meanwhile
	}
	return err
}

// stopRuns is the part of Close that ends the runs of this process: it
// lets running steps go on to a pause or an end for up to ShutdownGrace,
// then closes the agents' runtimes (agent.Agent.Close), which stops
// their runs without recording a cancellation: an awaiting run stays
// awaiting, a running one is marked failed as interrupted. A run that the
// runtime left unfinished in the log is marked interrupted here.
func (s *Server) stopRuns() {
	if s.opts.Engine != nil || s.leaseLost.Load() {
		// An engine's runs go on elsewhere; those of a replica that lost
		// its lease were abandoned, and another replica takes them over.
		s.cancel()
		s.wg.Wait()
		return
	}
	gctx, cancel := context.WithTimeout(context.Background(), s.opts.ShutdownGrace)
	for _, id := range s.liveIDs() {
		if !s.settle(gctx, id) {
			break // out of time: the others are stopped as they are
		}
	}
	cancel()
	s.stopping.Store(true)
	ids := s.liveIDs()
	closing, cancel := context.WithTimeout(context.Background(), s.opts.ShutdownGrace)
	defer cancel()
	for _, name := range s.order {
		if rt := s.agents[name].Agent; rt != nil {
			if err := rt.Close(closing); err != nil {
				s.log.Error("server: closing an agent", "agent", name, "err", err)
			}
		}
	}
	s.cancel()
	s.wg.Wait()
	for _, id := range ids {
		if err := s.interrupt(context.Background(), id); err != nil {
			s.log.Error("server: marking a run interrupted", "run", id, "err", err)
		}
	}
}
