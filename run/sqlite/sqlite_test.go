package sqlite

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/byref/byref/run"
	"github.com/byref/byref/run/storetest"
)

func open(t testing.TB, path string) *Store {
	t.Helper()
	s, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) run.Store {
		return open(t, filepath.Join(t.TempDir(), "runs.db"))
	})
}

func TestReopen(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "runs.db")
	s, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.Create(ctx, run.Event{RunID: "run_a", Payload: run.RunCreated{Name: "a", Tags: map[string]string{"k": "v"}}}); err != nil {
		t.Fatal(err)
	}
	var batch []run.Event
	for _, p := range storetest.EveryKind() {
		batch = append(batch, run.Event{Payload: p})
	}
	last, err := s.Append(ctx, "run_a", 1, batch...)
	if err != nil {
		t.Fatal(err)
	}
	before, err := s.Read(ctx, "run_a", 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	s = open(t, path)
	after, err := s.Read(ctx, "run_a", 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(after) != len(before) || int64(len(after)) != last {
		t.Fatalf("after reopening: %d events, want %d", len(after), len(before))
	}
	for i := range before {
		if b, a := mustJSON(t, before[i]), mustJSON(t, after[i]); b != a {
			t.Errorf("event %d changed:\n%s\n%s", i+1, b, a)
		}
	}
	runs, _, err := s.List(ctx, run.Query{Tags: map[string]string{"k": "v"}, Statuses: []run.Status{run.StatusCompleted}})
	if err != nil || len(runs) != 1 || runs[0].LastSeq != last {
		t.Fatalf("List after reopening = %+v, %v", runs, err)
	}
	if _, err := s.Append(ctx, "run_a", last, run.Event{Payload: run.StatusChanged{From: run.StatusCompleted, To: run.StatusRunning}}); err != nil {
		t.Fatalf("append after reopening: %v", err)
	}
}

func mustJSON(t *testing.T, e run.Event) string {
	b, err := e.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestFailedAppendLeavesNothing(t *testing.T) {
	ctx := context.Background()
	s := open(t, filepath.Join(t.TempDir(), "runs.db"))
	if _, _, err := s.Create(ctx, run.Event{RunID: "run_a", Payload: run.RunCreated{}}); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("disk on fire")
	s.failAfterInsert = func(seq int64) error {
		if seq == 3 {
			return boom
		}
		return nil
	}
	batch := []run.Event{
		{Payload: run.StatusChanged{From: run.StatusCreated, To: run.StatusRunning}},
		{Payload: run.AssistantMessage{Text: "one"}},
		{Payload: run.AssistantMessage{Text: "two"}},
	}
	if _, err := s.Append(ctx, "run_a", 1, batch...); !errors.Is(err, boom) {
		t.Fatalf("Append = %v, want the injected failure", err)
	}
	s.failAfterInsert = nil
	events, err := s.Read(ctx, "run_a", 1, 0)
	if err != nil || len(events) != 1 {
		t.Fatalf("after a failed append: %d events, %v; want only run_created", len(events), err)
	}
	sum, err := s.Get(ctx, "run_a")
	if err != nil || sum.Status != run.StatusCreated || sum.LastSeq != 1 {
		t.Fatalf("after a failed append: %+v, %v", sum, err)
	}
	if last, err := s.Append(ctx, "run_a", 1, batch...); err != nil || last != 4 {
		t.Fatalf("retried Append = %d, %v; want 4", last, err)
	}
}

func TestSchemaVersion(t *testing.T) {
	if SchemaVersion != len(migrations) {
		t.Fatalf("SchemaVersion = %d, but there are %d migrations", SchemaVersion, len(migrations))
	}
	path := filepath.Join(t.TempDir(), "runs.db")
	s := open(t, path)
	var v int
	if err := s.r.QueryRow("PRAGMA user_version").Scan(&v); err != nil || v != SchemaVersion {
		t.Fatalf("user_version = %d, %v; want %d", v, err, SchemaVersion)
	}
	var mode string
	if err := s.r.QueryRow("PRAGMA journal_mode").Scan(&mode); err != nil || mode != "wal" {
		t.Fatalf("journal_mode = %q, %v; want wal", mode, err)
	}
	if _, err := s.w.Exec("PRAGMA user_version = 99"); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if _, err := Open(path, Options{}); err == nil {
		t.Fatal("Open accepted a database from the future")
	}
}

func TestOpenBadPath(t *testing.T) {
	for _, p := range []string{"", "a?b.db", filepath.Join(t.TempDir(), "missing", "dir", "runs.db")} {
		if s, err := Open(p, Options{}); err == nil {
			s.Close()
			t.Errorf("Open(%q) succeeded", p)
		}
	}
}

// A follower waiting for the next append of a live run ends, with an
// error, when the store closes.
func TestCloseWakesFollowers(t *testing.T) {
	ctx := context.Background()
	s, err := Open(filepath.Join(t.TempDir(), "runs.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.Create(ctx, run.Event{RunID: "run_live", Payload: run.RunCreated{}}); err != nil {
		t.Fatal(err)
	}
	got := make(chan error, 1)
	seen := make(chan struct{})
	go func() {
		var last error
		for _, err := range s.Events(ctx, "run_live", 1) {
			if err != nil {
				last = err
				continue
			}
			close(seen)
		}
		got <- last
	}()
	<-seen
	time.Sleep(20 * time.Millisecond) // the follower now waits for an append
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-got:
		if err == nil {
			t.Fatal("the follower ended without an error")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a follower still waits 5s after Close")
	}
}

func TestListRefusesTooManyTags(t *testing.T) {
	s := open(t, filepath.Join(t.TempDir(), "runs.db"))
	tags := map[string]string{}
	for i := range run.MaxQueryTags {
		tags[fmt.Sprint("k", i)] = "v"
	}
	if _, _, err := s.List(context.Background(), run.Query{Tags: tags}); err != nil {
		t.Fatalf("%d tags: %v", len(tags), err)
	}
	tags["one_more"] = "v"
	_, _, err := s.List(context.Background(), run.Query{Tags: tags})
	if err == nil || !strings.Contains(err.Error(), "at most 16") {
		t.Fatalf("%d tags: %v, want an error saying at most %d", len(tags), err, run.MaxQueryTags)
	}
}
