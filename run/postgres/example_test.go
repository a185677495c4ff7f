package postgres_test

import (
	"context"
	"fmt"
	"log"

	"github.com/byref/byref/agent"
	"github.com/byref/byref/llm"
	"github.com/byref/byref/run"
	"github.com/byref/byref/run/postgres"
	"github.com/byref/byref/server"
)

// Every process (servers, workers) opens the same database; a subscriber
// in one is woken by the appends of any other. (Not run: it needs a
// PostgreSQL server. The package's tests start one of their own.)
func ExampleOpen() {
	ctx := context.Background()
	s, err := postgres.Open(ctx, "postgres://byref:secret@db.internal:5432/byref?pool_max_conns=8", postgres.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	if _, _, err := s.Create(ctx, run.Event{RunID: "run_1", Payload: run.RunCreated{Name: "weather"}}); err != nil {
		log.Fatal(err)
	}
	// In another process: follow the run as it is appended to.
	for e, err := range s.Events(ctx, "run_1", 1) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(e.Seq, e.Type())
	}
}

// Every server on the database is a replica: any of them answers any
// run, and when one stops or dies another takes its runs over. Start the
// same program, with the same agents, on each machine. (Not run: it needs
// a PostgreSQL server.)
func ExampleStore_NewReplica() {
	ctx := context.Background()
	store, err := postgres.Open(ctx, "postgres://byref:secret@db.internal:5432/byref", postgres.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer store.Close()
	replica, err := store.NewReplica()
	if err != nil {
		log.Fatal(err)
	}
	a, err := agent.New(agent.Options{Model: llm.NewScripted(llm.Text("hello")), Store: store})
	if err != nil {
		log.Fatal(err)
	}
	s, err := server.New(server.Options{Store: store, Replicas: replica, Token: "secret",
		Agents: []server.Agent{{Name: "hello", Agent: a}}})
	if err != nil {
		log.Fatal(err)
	}
	s.OnTakeOver(func(from string, runs int) {
		if from != "" { // "" when it joins
			log.Printf("took over %d runs of replica %s", runs, from)
		}
	})
	if _, _, err := s.Recover(ctx); err != nil { // joins the replicas
		log.Fatal(err)
	}
	// Serve returns server.ErrLeaseLost when the replica lost the
	// database: its runs were stopped, and another replica takes them
	// over; let a supervisor start the process again.
	if err := s.ListenAndServe(ctx, "0.0.0.0:8000"); err != nil {
		log.Fatal(err)
	}
}
