//go:build temporal

package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/log"

	"github.com/byref/byref/run"
	"github.com/byref/byref/server"
	"github.com/byref/byref/temporal"
)

// timing is the Timing of the runs a server starts: a worker silent for
// --worker-lost-after (in a model call, a step, or not taking the run's
// next task) is lost and its runs move to another worker.
func (f temporalFlags) timing() temporal.Timing {
	return temporal.Timing{Heartbeat: *f.lostAfter, ScheduleToStart: *f.lostAfter}
}

// dial connects to the Temporal frontend of --temporal; the SDK's log
// goes to stderr, warnings and errors only.
func (f temporalFlags) dial(ctx context.Context, stderr io.Writer) (client.Client, error) {
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	c, err := client.DialContext(ctx, client.Options{HostPort: *f.hostPort, Logger: log.NewStructuredLogger(logger)})
	if err != nil {
		return nil, fmt.Errorf("connecting to Temporal at %s: %w (start its server there, e.g. temporal server start-dev, or pass --temporal host:port)", *f.hostPort, err)
	}
	return c, nil
}

// engine returns the engine byref serve starts runs on, recording into
// store, and what to call after the server closes.
func (f temporalFlags) engine(ctx context.Context, store run.Store, stderr io.Writer) (server.Engine, func(), error) {
	c, err := f.dial(ctx, stderr)
	if err != nil {
		return nil, nil, err
	}
	e, err := temporal.NewEngine(c, temporal.EngineOptions{Store: store, TaskQueue: *f.queue, Timing: f.timing()})
	if err != nil {
		c.Close()
		return nil, nil, err
	}
	return e, c.Close, nil
}
