package agent_test

import (
	"context"
	"strings"
	"testing"

	"github.com/byref/byref/agent"
	"github.com/byref/byref/llm"
	"github.com/byref/byref/run"
)

// A model that gives up (terminate with success false) fails the run with
// run.FailureGaveUp, and its reason is kept in the outcome, the log and the
// snapshot.
func TestGivingUpFailsTheRun(t *testing.T) {
	model := llm.NewScripted(llm.CallTool("terminate", `{"success":false,"result":"the city has no weather service"}`))
	rt := newAgent(t, model, agent.Options{})
	h, err := rt.Start(context.Background(), agent.RunOptions{Task: "t"})
	if err != nil {
		t.Fatal(err)
	}
	o, err := h.Wait(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if o.Status != run.StatusFailed || o.OK() || !strings.Contains(o.Reason, "the city has no weather service") {
		t.Fatalf("outcome = %+v", o)
	}
	snap, err := h.Snapshot(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if snap.Status != run.StatusFailed || snap.FailureKind != run.FailureGaveUp || !strings.Contains(snap.LastError, "the city has no weather service") {
		t.Fatalf("snapshot: status %s, kind %q, error %q", snap.Status, snap.FailureKind, snap.LastError)
	}
}
