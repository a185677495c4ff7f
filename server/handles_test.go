package server_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/byref/byref/internal/leaktest"
	"github.com/byref/byref/run"
)

// TestHandlePreviewsDoNotLeak runs an agent that holds a real *sql.DB
// opened on a connection string with a password and a struct with
// credentials in unexported fields: it queries the database, reads the
// struct in a snippet and awaits an approval of a call given both. The
// password shows in no request to the model, no stored event, no ACP
// response (stream, await, resume, read) and no inspector answer; the
// read-only query does not mark the database modified.
func TestHandlePreviewsDoNotLeak(t *testing.T) {
	ts, model, store := leaktest.Serve(t, nil)
	c := client{t: t, base: ts.URL}

	stream := c.sse("POST", "/runs", create("tickets", "How many tickets are open? Close ticket 1.", "stream"))
	for _, e := range stream {
		if leaktest.Leaks(string(e)) {
			t.Errorf("the ACP stream holds the secret: %s", e)
		}
	}
	id := streamRunID(stream)
	if id == "" {
		t.Fatal("no run in the stream")
	}
	awaiting := c.run("GET", "/runs/"+id, "", 200)
	if awaiting.Status != "awaiting" || awaiting.AwaitRequest == nil {
		t.Fatalf("run = %+v, want it awaiting the approval of close_ticket", awaiting)
	}
	approval := awaiting.AwaitRequest.Message.Parts[0].Content
	if !strings.Contains(approval, "*sql.DB handle") || !strings.Contains(approval, `Credentials{User: "app"}`) {
		t.Errorf("the approval does not show the resolved arguments: %s", approval)
	}
	if _, b := c.do("GET", "/runs/"+id, ""); leaktest.Leaks(string(b)) {
		t.Errorf("the awaiting run holds the secret: %s", b)
	}
	final := c.run("POST", "/runs/"+id, resume("yes", "sync"), 200)
	if final.Status != "completed" || !strings.Contains(final.text(), "2") {
		t.Fatalf("run = %+v, want completed with 2 open tickets", final)
	}

	leaktest.CheckModel(t, model)
	events, err := store.Read(context.Background(), run.ID(id), 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range events {
		b, _ := json.Marshal(e)
		if leaktest.Leaks(string(b)) {
			t.Errorf("stored event %d holds the secret: %s", e.Seq, b)
		}
		if done, ok := e.Payload.(run.ToolCallCompleted); ok {
			for _, m := range done.Modified {
				t.Errorf("call %s marked %s modified: a query changes the pool, not which database db is", done.CallID, m.Name)
			}
		}
	}
	for _, path := range []string{"/runs/" + id, "/runs/" + id + "/events", "/ui/api/runs/" + id, "/ui/api/runs/" + id + "/events",
		"/ui/api/runs/" + id + "/replay", "/ui/api/runs"} {
		if _, b := c.do("GET", path, ""); leaktest.Leaks(string(b)) {
			t.Errorf("GET %s holds the secret: %s", path, b)
		}
	}
}
