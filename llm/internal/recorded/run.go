package recorded

import (
	"context"
	"testing"

	"github.com/byref/byref/agent"
	"github.com/byref/byref/run"
)

// Run and RunRestored run a provider's run test to its end.

// RunRestored is the middle of a provider's run test: it starts a run on
// first, waits until the run awaits its user, restores it from the log on
// second (another process sharing the store, whose model talks to the
// next server), answers the await with answer and waits for the restored
// run to complete. It returns the outcome and the restored run's
// snapshot; the first process's run is canceled when the test ends.
func RunRestored(t *testing.T, first, second *agent.Agent, task, answer string) (agent.Outcome, run.Snapshot) {
	t.Helper()
	ctx := context.Background()
	h, err := first.Start(ctx, agent.RunOptions{Task: task})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = h.Cancel(ctx) }) // the first process's loop, still waiting
	for e, err := range h.Events(ctx, 1) {
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := e.Payload.(run.AwaitRequested); ok {
			break
		}
	}
	restored, err := second.Restore(ctx, h.ID(), agent.RestoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	req, ok := restored.Pending()
	if !ok {
		t.Fatal("the restored run awaits nothing")
	}
	if err := restored.Resume(ctx, req.ID, run.Answer{Text: answer}); err != nil {
		t.Fatal(err)
	}
	return completed(t, restored)
}

// Run runs task on rt to its end, which must be a completion, and
// returns the outcome and the run's snapshot.
func Run(t *testing.T, rt *agent.Agent, task string) (agent.Outcome, run.Snapshot) {
	t.Helper()
	h, err := rt.Start(context.Background(), agent.RunOptions{Task: task})
	if err != nil {
		t.Fatal(err)
	}
	return completed(t, h)
}

// completed waits for h's outcome, which must be a completion, and returns
// it with the run's snapshot.
func completed(t *testing.T, h *agent.Handle) (agent.Outcome, run.Snapshot) {
	t.Helper()
	ctx := context.Background()
	o, err := h.Wait(ctx)
	if err != nil || o.Status != run.StatusCompleted {
		t.Fatalf("outcome %+v, %v", o, err)
	}
	snap, err := h.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return o, snap
}
