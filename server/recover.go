package server

import (
	"context"
	"errors"
	"fmt"

	"github.com/byref/byref/run"
	"github.com/byref/byref/runtime"
)

// Recover picks up the runs a previous process left in the store. Call it
// once, after New and before serving, when the store is durable and no
// other process uses it. Runs left created, running or cancelling are
// marked failed with the reason "interrupted" (runtime.Recover). Awaiting
// runs are restored on a fresh runtime of their agent (runtime's
// Runtime.Restore), so they can be resumed and cancelled as if the server
// had never stopped; a run whose variables cannot be rebuilt from the log,
// or whose agent is gone, is marked failed as interrupted instead.
//
// With Options.Engine set, Recover changes nothing and returns an error:
// the engine recovers its own runs, and the server controls them through
// Engine.Control.
func (s *Server) Recover(ctx context.Context) (restored, interrupted []run.ID, err error) {
	if s.opts.Engine != nil {
		return nil, nil, errEngineRecovers
	}
	awaiting, gone, err := runtime.Recover(ctx, s.store)
	if err != nil {
		return nil, gone, err
	}
	interrupted = gone
	for _, id := range awaiting {
		if err := s.restore(ctx, id); err != nil {
			s.log.Warn("server: a run awaiting before the restart cannot go on", "run", id, "err", err)
			interrupted = append(interrupted, id)
			continue
		}
		restored = append(restored, id)
	}
	s.log.Info("server: recovered runs", "restored", len(restored), "interrupted", len(interrupted))
	return restored, interrupted, nil
}

// restore brings one awaiting run back on its agent's runtime.
func (s *Server) restore(ctx context.Context, id run.ID) error {
	sum, err := s.store.Get(ctx, id)
	if err != nil {
		return err
	}
	agent, ok := s.agents[sum.Tags[TagAgent]]
	if !ok {
		reason := fmt.Sprintf("interrupted: the agent %q is not served any more", sum.Tags[TagAgent])
		_, err := s.store.Append(ctx, id, sum.LastSeq,
			run.Event{Data: run.Error{Message: reason}},
			run.Event{Data: run.StatusChanged{From: sum.Status, To: run.StatusFailed, Reason: reason}})
		return errors.Join(errors.New(reason), err)
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return errClosed
	}
	s.wg.Add(1)
	s.mu.Unlock()
	h, err := agent.Runtime.Restore(ctx, id, runtime.RestoreOptions{OnStatus: agent.Run.OnStatus, Model: agent.Run.Model})
	if err != nil {
		s.wg.Done()
		return err
	}
	s.mu.Lock()
	s.live[id] = h
	s.mu.Unlock()
	go s.watch(agent.Name, id, h, runCtx{})
	return nil
}
