package sqlite_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/byref/byref/run"
	"github.com/byref/byref/run/sqlite"
)

func ExampleOpen() {
	dir, err := os.MkdirTemp("", "byref")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	ctx := context.Background()

	s, err := sqlite.Open(filepath.Join(dir, "runs.db"), sqlite.Options{})
	if err != nil {
		log.Fatal(err)
	}
	if _, _, err := s.Create(ctx, run.Event{RunID: "run_1", Payload: run.RunCreated{Name: "weather"}}); err != nil {
		log.Fatal(err)
	}
	if _, err := s.Append(ctx, "run_1", 1,
		run.Event{Payload: run.StatusChanged{From: run.StatusCreated, To: run.StatusRunning}},
		run.Event{Payload: run.AssistantMessage{Text: "Checking."}}); err != nil {
		log.Fatal(err)
	}
	s.Close()

	// The run survives closing and reopening the file.
	s, err = sqlite.Open(filepath.Join(dir, "runs.db"), sqlite.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	snap, err := run.LoadSnapshot(ctx, s, "run_1")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(snap.Name, snap.Status, snap.LastAssistantMessage, snap.LastSeq)
	// Output:
	// weather running Checking. 3
}
