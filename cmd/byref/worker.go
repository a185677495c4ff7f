//go:build temporal

package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"go.temporal.io/sdk/worker"

	"github.com/byref/byref/agent"
	"github.com/byref/byref/run"
	"github.com/byref/byref/temporal"
)

// workerCmd is byref worker: a Temporal worker that hosts the runs of the
// agent "byref" that byref serve --temporal starts, recording them in the
// PostgreSQL store the servers read.
func workerCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("worker")
	storeSpec := fs.String("store", os.Getenv("BYREF_STORE"), "")
	modelSpec := fs.String("model", "", "")
	tf := addTemporalFlags(fs)
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("unexpected argument %q", pos[0])
	}
	if !tf.on() {
		return usagef("byref worker needs --temporal host:port (or $BYREF_TEMPORAL), the Temporal server the runs are scheduled on")
	}
	if err := tf.check(*storeSpec); err != nil {
		return err
	}
	spec := servedModel(*modelSpec)
	model, err := openModel(spec)
	if err != nil {
		return err
	}
	store, where, err := openServed(ctx, *storeSpec)
	if err != nil {
		return err
	}
	defer store.Close()
	c, err := tf.dial(ctx, stderr)
	if err != nil {
		return err
	}
	defer c.Close()
	// A run's workflow tasks go to the worker that last ran them; when that
	// worker is lost they wait this long before another takes them.
	wopts := worker.Options{StickyScheduleToStartTimeout: *tf.lostAfter}
	w, err := temporal.NewWorker(c, temporal.WorkerOptions{Store: store, TaskQueue: *tf.queue, Worker: wopts, Agents: []temporal.Agent{{
		Name: "byref",
		New: func(store run.Store) (*agent.Agent, error) {
			return agent.New(agent.Options{Model: model, Store: store})
		},
		Run: agent.RunOptions{ModelName: spec},
	}}})
	if err != nil {
		return err
	}
	if err := w.Start(); err != nil {
		return fmt.Errorf("%w (is the Temporal server at %s serving the namespace \"default\"?)", err, *tf.hostPort)
	}
	defer w.Stop()
	fmt.Fprintf(stdout, "byref: worker of the agent \"byref\" on Temporal at %s, task queue %s, model %s (runs in %s)\n", *tf.hostPort, *tf.queue, spec, where)
	fmt.Fprintln(stdout, "byref: Ctrl-C stops; the runs this worker hosts go on on another worker")
	<-ctx.Done()
	return nil
}
