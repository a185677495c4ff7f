package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/log"

	"github.com/byref/byref/run"
	"github.com/byref/byref/temporal"
)

// temporalFlags are the flags with which byref serve runs its agent on
// Temporal, and byref worker hosts the runs.
type temporalFlags struct {
	hostPort  *string        // --temporal: the frontend's host:port; "" means in-process runs
	queue     *string        // --task-queue
	lostAfter *time.Duration // --worker-lost-after
}

// addTemporalFlags defines the flags on fs.
func addTemporalFlags(fs *flag.FlagSet) temporalFlags {
	return temporalFlags{
		hostPort:  fs.String("temporal", os.Getenv("BYREF_TEMPORAL"), ""),
		queue:     fs.String("task-queue", temporal.DefaultTaskQueue, ""),
		lostAfter: fs.Duration("worker-lost-after", 0, ""),
	}
}

// on reports whether runs go to Temporal.
func (f temporalFlags) on() bool { return *f.hostPort != "" }

// check refuses the flags where they cannot work: Temporal's workers and
// the servers that start runs share the run store, so it must be one all
// of them reach, a PostgreSQL database.
func (f temporalFlags) check(storeSpec string) error {
	if !isPostgresURL(storeSpec) {
		return usagef("--temporal needs --store postgres://… (or $BYREF_STORE): the workers and the servers share the run store, which a SQLite file cannot be across processes")
	}
	if *f.lostAfter < 0 {
		return usagef("--worker-lost-after %v: give a positive duration, e.g. 5s", *f.lostAfter)
	}
	return nil
}

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
// store, and the client to close after the server.
func (f temporalFlags) engine(ctx context.Context, store run.Store, stderr io.Writer) (*temporal.Engine, client.Client, error) {
	c, err := f.dial(ctx, stderr)
	if err != nil {
		return nil, nil, err
	}
	e, err := temporal.NewEngine(c, temporal.EngineOptions{Store: store, TaskQueue: *f.queue, Timing: f.timing()})
	if err != nil {
		c.Close()
		return nil, nil, err
	}
	return e, c, nil
}
