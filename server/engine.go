package server

import (
	"context"
	"errors"
	"fmt"

	"github.com/byref/byref/agent"
	"github.com/byref/byref/run"
)

// Engine runs the server's runs somewhere other than this process (for
// example as durable workflows on worker processes), behind the same HTTP
// API: set Options.Engine. The server starts runs through Start, controls
// them (resume, cancel, follow-up) through the agent.Controller it
// returns, and reads them from the store it shares with the engine, as it
// reads its own runs: the ACP and inspector endpoints behave as for runs
// in this process.
//
// The engine's runs outlive the server: Server.Close cancels none of them,
// and Server.Recover refuses to run (the engine recovers its own runs). A
// run one server started can be controlled through another sharing the
// store and the engine: a server asks Control for the runs it does not
// hold itself.
//
// Start's context bounds starting the run, not the run: the run must
// outlive it. The server calls the controllers' Resume and Cancel with the
// request's context, Wait with a context Close cancels, and FollowUp with
// a context that is never cancelled (cancelling Handle.FollowUp's context
// cancels the new turn, and nothing of the server's cancels an engine's
// run). An Engine must be safe for concurrent use.
type Engine interface {
	// Start starts a run of the named agent with opts (the server has set
	// ID, Session, Task, History, Tags and Name from the agent's template,
	// as for a run in this process) and returns its controller. The run
	// records its events into the store the engine and the server share,
	// under opts.ID, and is in it (its run_created event at least) when
	// Start returns. ctx carries the request's values (its trace, its
	// logger fields); it is cancelled when the server closes and once
	// Start has returned: the run must outlive it. An error wrapping
	// agent.ErrInvalidInput is answered 422.
	Start(ctx context.Context, agentName string, opts agent.RunOptions) (agent.Controller, error)
	// Control returns the controller of a run the engine runs or ran, by
	// ID (e.g. after this server restarted); an error wrapping
	// run.ErrRunNotFound when it does not know the run.
	Control(ctx context.Context, id run.ID) (agent.Controller, error)
}

// startOnEngine starts a run on Options.Engine (see start) and returns
// its controller, once the server's store holds the run.
func (s *Server) startOnEngine(ctx context.Context, ag *Agent, opts agent.RunOptions) (agent.Controller, error) {
	// The start, not the run, is bounded: the client going away does not
	// abandon it halfway (as for a run in this process), Close does.
	sctx, rc := s.runContext(ctx)
	c, err := s.opts.Engine.Start(sctx, ag.Name, opts)
	rc.release()
	if err != nil {
		return nil, err
	}
	if c == nil {
		return nil, fmt.Errorf("server: the engine started a run of agent %s but returned no controller", ag.Name)
	}
	if _, err := s.store.Get(ctx, opts.ID); err != nil {
		_ = c.Cancel(ctx)
		if errors.Is(err, run.ErrRunNotFound) {
			return nil, fmt.Errorf("server: the engine started run %s of agent %s, but the server's store does not hold it; give the server (Options.Store) the store the engine records into, and return from Engine.Start once the run is recorded", opts.ID, ag.Name)
		}
		return nil, err
	}
	return c, nil
}

// controller returns the controller of a run to resume or cancel: the
// server's own (a run whose turn goes on in this process or, with an
// engine, one the server watched to its end), else the engine's, else,
// with replicas, one that forwards to the replica that owns the run
// (remote). It returns nil and no error when none has the run.
func (s *Server) controller(ctx context.Context, id run.ID) (agent.Controller, error) {
	s.mu.Lock()
	c := s.live[id]
	if c == nil && s.opts.Engine != nil {
		c = s.followable.get(id)
	}
	s.mu.Unlock()
	switch {
	case c != nil:
		return c, nil
	case s.opts.Engine != nil:
		return s.engineControl(ctx, id)
	}
	return s.remote(ctx, id)
}

// engineControl asks the engine for the run's controller: nil and no
// error when the engine does not know it.
func (s *Server) engineControl(ctx context.Context, id run.ID) (agent.Controller, error) {
	c, err := s.opts.Engine.Control(ctx, id)
	if errors.Is(err, run.ErrRunNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("server: asking the engine for run %s: %w", id, err)
	}
	return c, nil
}

// waitContext is the context a watcher waits for the end of a run's turn
// with: none for a run in this process, which Close cancels, so that the
// watcher sees its end; the server's, which Close cancels, for an
// engine's run, which goes on after Close.
func (s *Server) waitContext() context.Context {
	if s.opts.Engine != nil {
		return s.ctx
	}
	return context.Background()
}

// errEngineRecovers is Recover's error when Options.Engine is set.
var errEngineRecovers = errors.New("server: Recover does nothing with Options.Engine set: the engine recovers its own runs; do not call Recover")
