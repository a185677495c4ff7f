package main

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/byref/byref/internal/pgtest"
	"github.com/jackc/pgx/v5"
)

// approve is the resume that approves what a scripted:lifecycle run
// awaits.
const approve = `{"await_resume":{"type":"message","message":{"role":"user","parts":[{"content_type":"text/plain","content":"approve"}]}},"mode":"sync"}`

// waitOutput waits until the process's output holds want; a hang guard
// fails the test after a minute.
func (s *served) waitOutput(want string) {
	s.t.Helper()
	for deadline := time.Now().Add(time.Minute); !strings.Contains(s.out.String(), want); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			s.t.Fatalf("the output never said %q:\n%s", want, s.out)
		}
	}
}

// events returns the body of GET /runs/{id}/events.
func (s *served) events(id string) string {
	s.t.Helper()
	resp, err := http.Get(s.base + "/runs/" + id + "/events")
	if err != nil {
		s.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

// Every byref serve --store postgres://… on a database is a replica: a
// second one answers the first one's runs (a resume there is forwarded to
// the first), and when the first stops, the second takes over the run it
// left awaiting, which goes on there. The banner never shows the
// password.
func TestServeOnPostgres(t *testing.T) {
	u, err := url.Parse(pgtest.Start(t).Database(t))
	if err != nil {
		t.Fatal(err)
	}
	u.User = url.UserPassword(u.User.Username(), "hunter2") // the test server trusts local users
	args := []string{"--store", u.String(), "--model", "scripted:lifecycle"}
	a := serve(t, args...)
	r1 := a.post("/runs", create("compute the answer", "sync"))
	r2 := a.post("/runs", create("compute the answer again", "sync"))
	if r1.Status != "awaiting" || r2.Status != "awaiting" {
		t.Fatalf("runs %s and %s are %s and %s, want awaiting", r1.RunID, r2.RunID, r1.Status, r2.Status)
	}

	b := serve(t, args...)
	if got := b.get("/runs/" + r1.RunID); got.Status != "awaiting" {
		t.Fatalf("on the second replica, run %s is %s, want awaiting", r1.RunID, got.Status)
	}
	got := b.post("/runs/"+r1.RunID, approve)
	if got.Status != "completed" || len(got.Output) == 0 || got.Output[len(got.Output)-1].Parts[0].Content != "42" {
		t.Fatalf("resumed on the second replica: %+v", got)
	}

	a.stop()
	b.waitOutput("byref: took over 1 run of replica")
	got = b.post("/runs/"+r2.RunID, approve)
	if got.Status != "completed" {
		t.Fatalf("resumed on the replica that took it over: %+v", got)
	}
	b.stop()
	for _, s := range []*served{a, b} {
		if o := s.out.String(); strings.Contains(o, "hunter2") || !strings.Contains(o, "byref serve --store postgres://") || !strings.Contains(o, "(the URL with its password, or $BYREF_STORE)") {
			t.Fatalf("the output shows the password, or not how to serve the runs again:\n%s", o)
		}
	}
}

// When a replica is killed (SIGKILL: its session ends, nothing is
// cleaned up), another takes over its runs: a run it left awaiting can be
// resumed there, and its log says it was taken over.
func TestServeReplicaTakesOver(t *testing.T) {
	args := []string{"--store", pgtest.Start(t).Database(t), "--model", "scripted:lifecycle"}
	a := serve(t, args...)
	b := serve(t, args...)
	r := a.post("/runs", create("compute the answer", "sync"))
	if r.Status != "awaiting" {
		t.Fatalf("run %s is %s, want awaiting", r.RunID, r.Status)
	}
	killedAt := time.Now()
	if err := a.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-a.done
	b.waitOutput("byref: took over 1 run of replica")
	// For the notes; it bounds nothing.
	t.Logf("the other replica took over %v after the kill", time.Since(killedAt).Round(time.Millisecond))
	if ev := b.events(r.RunID); !strings.Contains(ev, "taken over by replica") {
		t.Fatalf("the run's events do not say it was taken over:\n%s", ev)
	}
	got := b.post("/runs/"+r.RunID, approve)
	if got.Status != "completed" {
		t.Fatalf("resumed on the replica that took it over: %+v", got)
	}
	b.stop()
}

// A replica whose connection to the database is lost (its sessions are
// ended, as a database restart or a network failure would) stops its runs
// without recording anything, since another replica may take them over,
// and exits saying why.
func TestServeExitsWhenItLosesTheDatabase(t *testing.T) {
	srv := pgtest.Start(t)
	db := srv.Database(t)
	a := serve(t, "--store", db, "--model", "scripted:lifecycle")
	r := a.post("/runs", create("compute the answer", "sync"))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a hang guard
	defer cancel()
	conn, err := pgx.Connect(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-a.done:
		if err == nil || !strings.Contains(a.out.String(), "lost the connection to the database") {
			t.Fatalf("byref serve exited with %v:\n%s", err, a.out)
		}
	case <-ctx.Done():
		t.Fatalf("byref serve did not exit:\n%s", a.out)
	}
	var status string
	if err := conn.QueryRow(ctx, `SELECT status FROM byref.runs WHERE id = $1`, r.RunID).Scan(&status); err != nil || status != "awaiting" {
		t.Fatalf("the run is %q, %v; want awaiting, for another replica to take over", status, err)
	}
}
