package postgres_test

import (
	"context"
	"fmt"
	"log"

	"github.com/byref/byref/run"
	"github.com/byref/byref/run/postgres"
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
