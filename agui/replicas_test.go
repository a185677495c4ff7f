package agui_test

import (
	"encoding/json"
	"net/http/httptest"
	"os"
	"testing"

	"github.com/byref/byref/agui"
	"github.com/byref/byref/internal/pgtest"
	"github.com/byref/byref/internal/replicatest"
	"github.com/byref/byref/server"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// Any replica answers any run over AG-UI: an interrupt of a run one
// replica runs is resolved, or the run cancelled, through another (the
// answer forwarded to the run's owner), and the stream there carries the
// run to its end.
func TestReplicasOverAGUI(t *testing.T) {
	url := pgtest.Start(t).Database(t)
	var bases []string
	for range 2 {
		r := replicatest.Start(t, url, server.Options{}, testAgents, func(s *server.Server) error {
			_, err := agui.Mount(s, agui.Options{})
			return err
		})
		ts := httptest.NewServer(r.Server)
		t.Cleanup(ts.Close)
		bases = append(bases, ts.URL)
	}
	a, b := bases[0], bases[1]
	interrupt := func() any {
		t.Helper()
		_, evs := post(t, a+"/agui/approver", input("Shout"))
		fin := evs[len(evs)-1]
		return fin["outcome"].(map[string]any)["interrupts"].([]any)[0].(map[string]any)["id"]
	}
	resume := func(id any, status string, payload any) (int, []map[string]any) {
		t.Helper()
		body, _ := json.Marshal(map[string]any{"threadId": "t1", "runId": "r2", "messages": []any{},
			"resume": []any{map[string]any{"interruptId": id, "status": status, "payload": payload}}})
		return post(t, b+"/agui/approver", string(body))
	}
	status, evs := resume(interrupt(), "resolved", "approve")
	if status != 200 || evs[len(evs)-1]["outcome"].(map[string]any)["type"] != "success" {
		t.Fatalf("resolved through another replica: %d %s", status, types(evs))
	}
	status, evs = resume(interrupt(), "cancelled", nil)
	if status != 200 || evs[len(evs)-1]["type"] != "RUN_FINISHED" && evs[len(evs)-1]["type"] != "RUN_ERROR" {
		t.Fatalf("cancelled through another replica: %d %s", status, types(evs))
	}
}
