package server

import (
	"context"
	"errors"
	"sync/atomic"
	"time"

	"github.com/byref/byref/run"
)

// DefaultShutdownGrace is Options.ShutdownGrace's default.
const DefaultShutdownGrace = 10 * time.Second

// InterruptedReason is the failure reason Close records for a run whose
// step was still going when Options.ShutdownGrace ran out. runtime.Recover
// gives a run a crashed process left running a reason with the same
// prefix, "interrupted".
const InterruptedReason = "interrupted: the server stopped before the run's step finished"

// errStopped is what the runs' view of the store answers once Close has
// sealed it.
var errStopped = errors.New("server: the server has stopped; the run's log keeps its last state")

// gate is the view of the store the server's own runtimes record into.
// Close seals it before it cancels the runs' contexts, so that a
// cancellation that only stops the process never reaches the log: an
// awaiting run stays awaiting, to be restored by the next process
// (Recover), and a run cut short in a step is marked interrupted by Close
// itself.
type gate struct {
	run.Store
	sealed atomic.Bool
}

// Create implements run.Store.
func (g *gate) Create(ctx context.Context, e run.Event) (run.Summary, bool, error) {
	if g.sealed.Load() {
		return run.Summary{}, false, errStopped
	}
	return g.Store.Create(ctx, e)
}

// Append implements run.Store.
func (g *gate) Append(ctx context.Context, id run.ID, last int64, events ...run.Event) (int64, error) {
	if g.sealed.Load() {
		return 0, errStopped
	}
	return g.Store.Append(ctx, id, last, events...)
}

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
		if sc, ok := e.Data.(run.StatusChanged); ok && settled(sc.To) {
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
		run.Event{Data: run.Error{Message: InterruptedReason, Failure: run.FailureInterrupted}},
		run.Event{Data: run.StatusChanged{From: sum.Status, To: run.StatusFailed, Reason: InterruptedReason}})
	var conflict *run.ConflictError
	if errors.As(err, &conflict) {
		return s.interrupt(ctx, id) // a last event landed before the seal
	}
	return err
}

// stopRuns is the part of Close that ends the runs of this process: see
// Close.
func (s *Server) stopRuns() {
	if s.opts.Engine != nil {
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
	// Every run whose turn goes on once the seal is set is either settled
	// in the log or cut short in a step.
	s.gate.sealed.Store(true)
	ids := s.liveIDs()
	s.cancel()
	s.wg.Wait()
	for _, id := range ids {
		if err := s.interrupt(context.Background(), id); err != nil {
			s.log.Error("server: marking a run interrupted", "run", id, "err", err)
		}
	}
}
