package a2a

import (
	"context"
	"iter"

	"github.com/byref/byref/agent"
	"github.com/byref/byref/run"
	"github.com/byref/byref/server"
)

// runs is what the A2A handlers need to start and control runs: today the
// ACP server's seam (server.Server.StartRun and Control), so that A2A runs
// use the ACP server's agents, store and engine (in process, or on
// Temporal) and its watchers. It is the one place that knows how runs are
// started; a change of the runtime's API changes only this file.
type runs interface {
	StartRun(ctx context.Context, agentName string, req server.StartRequest) (run.ID, error)
	Control(ctx context.Context, id run.ID) (agent.Controller, error)
	Store() run.Store
	Follow(ctx context.Context, id run.ID, from int64) iter.Seq2[run.Event, error]
}

var _ runs = (*server.Server)(nil)
