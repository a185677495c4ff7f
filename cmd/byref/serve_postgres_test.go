package main

import (
	"context"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/byref/byref/internal/pgtest"
	"github.com/jackc/pgx/v5"
)

// byref serve --store postgres://… records runs in PostgreSQL: a run left
// awaiting goes on after a restart on the same database, a second server
// on the database is refused while the first serves, and the banner
// never shows the password.
func TestServeOnPostgres(t *testing.T) {
	u, err := url.Parse(pgtest.Start(t).Database(t))
	if err != nil {
		t.Fatal(err)
	}
	u.User = url.UserPassword(u.User.Username(), "hunter2") // the test server trusts local users
	store := u.String()
	args := []string{"--store", store, "--model", "scripted:lifecycle"}
	s := serve(t, args...)
	r := s.post("/runs", create("compute the answer", "sync"))
	if r.Status != "awaiting" {
		t.Fatalf("run %s is %s, want awaiting", r.RunID, r.Status)
	}

	out, code := byref(t, "", append([]string{"serve", "--addr", "127.0.0.1:0"}, args...)...)
	if code == 0 || !strings.Contains(out, "another byref serve is serving the runs") {
		t.Fatalf("a second byref serve on the database: exit %d\n%s", code, out)
	}

	s.stop()
	s = serve(t, args...)
	if got := s.get("/runs/" + r.RunID); got.Status != "awaiting" {
		t.Fatalf("after the restart, run %s is %s, want awaiting", r.RunID, got.Status)
	}
	got := s.post("/runs/"+r.RunID, `{"await_resume":{"type":"message","message":{"role":"user","parts":[{"content_type":"text/plain","content":"approve"}]}},"mode":"sync"}`)
	if got.Status != "completed" || len(got.Output) == 0 || got.Output[len(got.Output)-1].Parts[0].Content != "42" {
		t.Fatalf("resumed after the restart: %+v", got)
	}
	s.stop()
	if o := s.out.String(); strings.Contains(o, "hunter2") || !strings.Contains(o, "byref serve --store postgres://") || !strings.Contains(o, "(the URL with its password, or $BYREF_STORE)") {
		t.Fatalf("the output shows the password, or not how to serve the runs again:\n%s", o)
	}
}

// A standby byref serve waits while another serves the database, and
// takes over when that one is killed: a run left awaiting goes on there.
func TestServeStandbyTakesOver(t *testing.T) {
	srv := pgtest.Start(t)
	store := srv.Database(t)
	args := []string{"--store", store, "--model", "scripted:lifecycle"}
	a := serve(t, args...)
	r := a.post("/runs", create("compute the answer", "sync"))
	if r.Status != "awaiting" {
		t.Fatalf("run %s is %s, want awaiting", r.RunID, r.Status)
	}
	// Once the standby waits for the lock in the database, kill the
	// serving process.
	killed := make(chan error, 1)
	var killedAt time.Time
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a hang guard
		defer cancel()
		conn, err := pgx.Connect(ctx, srv.URL())
		if err != nil {
			killed <- err
			return
		}
		defer conn.Close(ctx)
		for {
			var waiting int
			if err := conn.QueryRow(ctx, `SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted`).Scan(&waiting); err != nil {
				killed <- err
				return
			}
			if waiting > 0 {
				killedAt = time.Now()
				killed <- a.cmd.Process.Kill()
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
	}()
	b := serve(t, append(args, "--standby")...) // binds once it has taken over
	if err := <-killed; err != nil {
		t.Fatal(err)
	}
	<-a.done // the killed process has been waited for
	// For the notes; it bounds nothing.
	t.Logf("the standby served %v after the kill", time.Since(killedAt).Round(time.Millisecond))
	if out := b.out.String(); !strings.Contains(out, "standing by") || !strings.Contains(out, "taking over") || !strings.Contains(out, "1 run awaiting before the restart goes on") {
		t.Fatalf("the standby's output:\n%s", out)
	}
	got := b.post("/runs/"+r.RunID, `{"await_resume":{"type":"message","message":{"role":"user","parts":[{"content_type":"text/plain","content":"approve"}]}},"mode":"sync"}`)
	if got.Status != "completed" {
		t.Fatalf("resumed on the standby: %+v", got)
	}
	b.stop()
}
