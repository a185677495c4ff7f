package server

import (
	"context"
	"errors"
	"fmt"

	"github.com/byref/byref/agent"
	"github.com/byref/byref/run"
	"github.com/byref/byref/variable"
)

// Recover picks up the runs a previous process left in the store. Call it
// once, after New and before serving, when the store is durable and no
// other process uses it. Runs left created, running or cancelling are
// marked failed with the reason "interrupted" (agent.Recover). Awaiting
// runs are restored on their agent's runtime (agent.Agent.Restore),
// so they can be resumed and cancelled as if the server had never
// stopped; a variable the log holds no value of gets the agent's starting
// variable of that name (the same live object). A run whose variables
// cannot be rebuilt, or whose agent is gone, is marked failed as
// interrupted instead.
//
// With Options.Replicas set, Recover joins the replicas instead, and
// returns no runs: the runs of a replica that stopped (this server's
// previous process, or another's) are taken over by the first replica to
// learn it stopped, and restored there (see Replicas, OnTakeOver). Call it
// once, after New and before serving, on every replica (with an Engine
// too: replicas then claim background work only).
//
// With Options.Engine set (and no Replicas), Recover changes nothing and
// returns an error: the engine recovers its own runs, and the server
// controls them through Engine.Control.
func (s *Server) Recover(ctx context.Context) (restored, interrupted []run.ID, err error) {
	if s.opts.Replicas != nil {
		return nil, nil, s.join(ctx)
	}
	if s.opts.Engine != nil {
		return nil, nil, errEngineRecovers
	}
	awaiting, gone, err := agent.Recover(ctx, s.store)
	if err != nil {
		return nil, gone, err
	}
	interrupted = gone
	for _, id := range awaiting {
		if err := s.restore(ctx, id); err != nil {
			s.log.Warn("server: a run awaiting before the restart cannot go on", "run", id, "err", err)
			if err := s.markFailed(ctx, id, "interrupted: it cannot be restored after the restart: "+err.Error()); err != nil {
				return restored, interrupted, err
			}
			interrupted = append(interrupted, id)
			continue
		}
		restored = append(restored, id)
	}
	s.log.Info("server: recovered runs", "restored", len(restored), "interrupted", len(interrupted))
	return restored, interrupted, nil
}

// restore brings a run back on its agent: one awaiting after a restart,
// or any that has not ended when a replica takes it over (one that had
// not begun begins).
func (s *Server) restore(ctx context.Context, id run.ID) error {
	sum, err := s.store.Get(ctx, id)
	if err != nil {
		return err
	}
	ag, ok := s.agents[sum.Tags[TagAgent]]
	if !ok {
		reason := fmt.Sprintf("interrupted: the agent %q is not served any more", sum.Tags[TagAgent])
		_, err := s.store.Append(ctx, id, sum.LastSeq,
			run.Event{Payload: run.Error{Message: reason, Failure: run.FailureInterrupted}},
			run.Event{Payload: run.StatusChanged{From: sum.Status, To: run.StatusFailed, Reason: reason}})
		return errors.Join(errors.New(reason), err)
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return errClosed
	}
	s.wg.Add(1)
	s.mu.Unlock()
	live, err := s.liveValues(ctx, ag, id)
	if err != nil {
		s.wg.Done()
		return err
	}
	h, err := ag.Agent.Restore(ctx, id, agent.RestoreOptions{OnStatus: ag.Run.OnStatus, Model: ag.Run.Model, Variables: live})
	if err == nil && h.Status() == run.StatusCreated {
		// Taken over before it began (its spec holds its task).
		err = h.Begin(ctx)
	}
	if err != nil {
		s.wg.Done()
		return err
	}
	s.publishDeltas(h)
	s.mu.Lock()
	s.live[id] = h
	s.mu.Unlock()
	go s.watch(ag.Name, id, h, runCtx{})
	return nil
}

// markFailed marks a run that has not ended failed as interrupted, with
// the reason.
func (s *Server) markFailed(ctx context.Context, id run.ID, reason string) error {
	sum, err := s.store.Get(ctx, id)
	if err != nil || sum.Status.Terminal() {
		return err
	}
	_, err = s.store.Append(ctx, id, sum.LastSeq,
		run.Event{Payload: run.Error{Message: reason, Failure: run.FailureInterrupted}},
		run.Event{Payload: run.StatusChanged{From: sum.Status, To: run.StatusFailed, Reason: reason}})
	return err
}

// liveValues returns the agent's starting variables that the run's log
// holds without a value (a *Notes, a database handle: values that are not
// JSON): the restored run gets the same live objects back, by name.
func (s *Server) liveValues(ctx context.Context, ag *Agent, id run.ID) ([]variable.Spec, error) {
	snap, err := run.LoadSnapshot(ctx, s.store, id)
	if err != nil {
		return nil, err
	}
	st, err := ag.Agent.NewState()
	if err != nil {
		return nil, err
	}
	starting := map[string]variable.Spec{}
	for _, sp := range st.Specs() {
		starting[sp.Name] = sp
	}
	var live []variable.Spec
	for _, v := range snap.Variables {
		if sp, ok := starting[v.Name]; ok && v.Value == nil {
			live = append(live, sp)
		}
	}
	return live, nil
}
