package temporal_test

import (
	"context"
	"fmt"

	"go.temporal.io/sdk/client"

	"github.com/byref/byref/agent"
	"github.com/byref/byref/run"
	"github.com/byref/byref/run/postgres"
	byreftemporal "github.com/byref/byref/temporal"
)

// A worker process hosts runs of its agents; any process with an Engine
// starts and controls them. Both share the store, a PostgreSQL database.
// (Not run: it needs a Temporal server, e.g. temporal server start-dev,
// and PostgreSQL.)
func Example() {
	ctx := context.Background()
	c, err := client.Dial(client.Options{HostPort: "127.0.0.1:7233"})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	// Every worker and starter, on any machine, opens the same database.
	store, err := postgres.Open(ctx, "postgres://byref:secret@db.internal:5432/byref", postgres.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer store.Close()

	// In each worker process:
	w, err := byreftemporal.NewWorker(c, byreftemporal.WorkerOptions{Store: store, Agents: []byreftemporal.Agent{{
		Name: "weather",
		New: func(store run.Store) (*agent.Agent, error) { // called once, by NewWorker
			return agent.New(agent.Options{Store: store /* Model, Actions, Variables */})
		},
	}}})
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := w.Start(); err != nil {
		fmt.Println(err)
		return
	}
	defer w.Stop()

	// Wherever runs are started (or as server.Options.Engine):
	e, err := byreftemporal.NewEngine(c, byreftemporal.EngineOptions{Store: store})
	if err != nil {
		fmt.Println(err)
		return
	}
	r, err := e.Start(ctx, "weather", agent.RunOptions{Task: "What is the weather in Paris?"})
	if err != nil {
		fmt.Println(err)
		return
	}
	o, err := r.Wait(ctx)
	fmt.Println(o.Status, string(o.Result), err)
}
