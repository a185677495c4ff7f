package main

import (
	"net/url"
	"strings"
	"testing"

	"github.com/byref/byref/internal/pgtest"
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
