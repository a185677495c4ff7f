package agui_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/byref/byref/agui"
	"github.com/byref/byref/internal/leaktest"
	"github.com/byref/byref/server"
)

// TestHandlePreviewsDoNotLeak streams, over AG-UI, a run that holds a real
// *sql.DB opened on a connection string with a password and a struct with
// credentials in unexported fields, up to the approval it awaits: no event
// (state snapshots and deltas, tool results, the interrupt) and no request
// to the model holds the password.
func TestHandlePreviewsDoNotLeak(t *testing.T) {
	ts, model, _ := leaktest.Serve(t, func(s *server.Server) error {
		_, err := agui.Mount(s, agui.Options{})
		return err
	})

	status, evs := post(t, ts.URL+"/agui/tickets", input("How many tickets are open? Close ticket 1."))
	if status != 200 {
		t.Fatalf("status %d", status)
	}
	all, _ := json.Marshal(evs)
	if leaktest.Leaks(string(all)) {
		t.Errorf("the AG-UI stream holds the secret: %s", all)
	}
	if !strings.Contains(string(all), "*sql.DB handle") {
		t.Errorf("the stream never shows db as a handle: %s", all)
	}
	leaktest.CheckModel(t, model)
}
