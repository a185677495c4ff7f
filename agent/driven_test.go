package agent_test

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/byref/byref/agent"
	"github.com/byref/byref/llm"
	"github.com/byref/byref/run"
)

// advance advances h and fails the test on an error.
func advance(t *testing.T, h *agent.Handle) agent.Pause {
	t.Helper()
	p, err := h.Advance(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func kinds(ps []agent.Pause) []agent.PauseKind {
	var out []agent.PauseKind
	for _, p := range ps {
		out = append(out, p.Kind)
	}
	return out
}

// TestDrivenRunStopsAtEveryPause: a driven run makes no model call and runs
// no step until advanced, and the events of its pauses, put together, are
// its log.
func TestDrivenRunStopsAtEveryPause(t *testing.T) {
	model := llm.NewScripted(weatherThenDone...)
	rt := newAgent(t, model, agent.Options{})
	h, err := rt.Start(context.Background(), agent.RunOptions{Task: "t", Driven: true, Approval: agent.ApproveOnToolCall})
	if err != nil {
		t.Fatal(err)
	}
	var pauses []agent.Pause
	p := advance(t, h)
	if p.Kind != agent.PauseModel || len(model.Requests()) != 0 {
		t.Fatalf("first pause %s after %d model calls, want model before any", p.Kind, len(model.Requests()))
	}
	pauses = append(pauses, p)
	for p.Kind != agent.PauseEnded {
		if p.Kind == agent.PauseAwait {
			resume(t, h, p.Await.ID, run.Answer{Decision: run.Approved})
		}
		p = advance(t, h)
		pauses = append(pauses, p)
	}
	want := []agent.PauseKind{agent.PauseModel, agent.PauseStep, agent.PauseAwait, agent.PauseModel, agent.PauseStep, agent.PauseEnded}
	if got := kinds(pauses); !reflect.DeepEqual(got, want) {
		t.Fatalf("pauses = %v, want %v", got, want)
	}
	if !p.Outcome.OK() {
		t.Fatalf("outcome = %+v", p.Outcome)
	}
	if again := advance(t, h); again.Kind != agent.PauseEnded || len(again.Events) != 0 {
		t.Fatalf("Advance after the end = %s with %d events, want the end again with none", again.Kind, len(again.Events))
	}
	var seen []run.Event
	for _, p := range pauses {
		seen = append(seen, p.Events...)
	}
	logged := events(t, h)
	// The pauses carry everything after RunCreated, which the store's
	// Create records.
	first := 1
	if len(seen) != len(logged[first:]) {
		t.Fatalf("pauses carried %d events, the log has %d after creation", len(seen), len(logged[first:]))
	}
	for i, e := range seen {
		l := logged[first+i]
		if e.Seq != l.Seq || e.Type() != l.Type() || !e.Time.Equal(l.Time) {
			t.Fatalf("event %d: pause has %d %s %v, log has %d %s %v", i, e.Seq, e.Type(), e.Time, l.Seq, l.Type(), l.Time)
		}
	}
}

// TestDrivenExpireFailsTheRun: a driven run keeps no await timer; Expire
// fails it, naming the await.
func TestDrivenExpireFailsTheRun(t *testing.T) {
	rt := newAgent(t, llm.NewScripted(weatherThenDone...), agent.Options{})
	h, _ := rt.Start(context.Background(), agent.RunOptions{Task: "t", Driven: true, Approval: agent.ApproveOnToolCall, AwaitTimeout: 1})
	p := advance(t, h)
	for p.Kind != agent.PauseAwait {
		p = advance(t, h)
	}
	if h.Status() != run.StatusAwaiting {
		t.Fatalf("status %s: a driven run's await timed out on its own", h.Status())
	}
	if err := h.Expire(context.Background(), "await_9"); !errors.Is(err, agent.ErrNoAwait) {
		t.Fatalf("Expire of another await = %v, want ErrNoAwait", err)
	}
	if err := h.Expire(context.Background(), p.Await.ID); err != nil {
		t.Fatal(err)
	}
	end := advance(t, h)
	if end.Kind != agent.PauseEnded || end.Outcome.Status != run.StatusFailed {
		t.Fatalf("after Expire: %s %+v", end.Kind, end.Outcome)
	}
	if o := wait(t, h); o.Status != run.StatusFailed || o.Reason != "the approval await_1 was not answered within 1ns" {
		t.Fatalf("outcome = %+v", o)
	}
}

// TestDrivenCancelAtACheckpoint: a run cancelled while it stands at a
// checkpoint ends canceled, and Advance reports the end.
func TestDrivenCancelAtACheckpoint(t *testing.T) {
	model := llm.NewScripted(weatherThenDone...)
	rt := newAgent(t, model, agent.Options{})
	h, _ := rt.Start(context.Background(), agent.RunOptions{Task: "t", Driven: true})
	advance(t, h) // before the first model call
	if err := h.Cancel(context.Background()); err != nil {
		t.Fatal(err)
	}
	p := advance(t, h)
	if p.Kind != agent.PauseEnded || p.Outcome.Status != run.StatusCanceled {
		t.Fatalf("after Cancel: %s %+v", p.Kind, p.Outcome)
	}
	if n := len(model.Requests()); n != 0 {
		t.Fatalf("the model was called %d times after the run was cancelled at its checkpoint", n)
	}
}

// TestDrivenFollowUp: after a follow-up, Advance goes on with the new turn.
func TestDrivenFollowUp(t *testing.T) {
	model := llm.NewScripted(append(weatherThenDone, llm.Text("again"))...)
	rt := newAgent(t, model, agent.Options{})
	h, _ := rt.Start(context.Background(), agent.RunOptions{Task: "t", Driven: true})
	p := advance(t, h)
	for p.Kind != agent.PauseEnded {
		p = advance(t, h)
	}
	if err := h.FollowUp(context.Background(), "more"); err != nil {
		t.Fatal(err)
	}
	if p = advance(t, h); p.Kind != agent.PauseModel {
		t.Fatalf("first pause of the follow-up = %s, want model", p.Kind)
	}
	if p = advance(t, h); p.Kind != agent.PauseEnded || string(p.Outcome.Result) != `"again"` {
		t.Fatalf("follow-up ended with %s %+v", p.Kind, p.Outcome)
	}
}

func TestAdvanceRefusesARunNotDriven(t *testing.T) {
	rt := newAgent(t, llm.NewScripted(weatherThenDone...), agent.Options{})
	h, _ := rt.Start(context.Background(), agent.RunOptions{Task: "t"})
	wait(t, h)
	if _, err := h.Advance(context.Background()); !errors.Is(err, agent.ErrNotDriven) {
		t.Fatalf("Advance = %v, want ErrNotDriven", err)
	}
}

// TestRestoreRunningRunRerunsItsUnfinishedStep: a run whose process stopped
// after the model chose a step but before its results were recorded goes
// on in another runtime from that step, without asking the model again.
func TestRestoreRunningRunRerunsItsUnfinishedStep(t *testing.T) {
	store := run.NewMemoryStore()
	first := llm.NewScripted(weatherThenDone...)
	rt := newAgent(t, first, agent.Options{Store: store})
	h, _ := rt.Start(context.Background(), agent.RunOptions{Task: "t", Driven: true})
	advance(t, h) // before the model call
	if p := advance(t, h); p.Kind != agent.PauseStep {
		t.Fatalf("pause = %s, want step", p.Kind)
	}
	// The process "stops" here: h is never advanced again.

	second := llm.NewScripted(weatherThenDone[1:]...)
	rt2, err := agent.New(agent.Options{Store: store, Model: second, Actions: rt.Actions()})
	if err != nil {
		t.Fatal(err)
	}
	h2, err := rt2.Restore(context.Background(), h.ID(), agent.RestoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	o := wait(t, h2)
	if !o.OK() || string(o.Result) == "" {
		t.Fatalf("outcome = %+v", o)
	}
	if n := len(second.Requests()); n != 1 {
		t.Fatalf("the restored run asked the model %d times, want 1 (the scheduled step runs without asking again)", n)
	}
	if _, ok := h2.State().Variable("weather"); !ok {
		t.Fatal("the step rerun on restore did not create weather")
	}
}

// TestRestoreCompletedRunTakesAFollowUp: a completed run restored on
// another runtime ends its turn at once and can be followed up, with the
// whole conversation.
func TestRestoreCompletedRunTakesAFollowUp(t *testing.T) {
	store := run.NewMemoryStore()
	rt := newAgent(t, llm.NewScripted(weatherThenDone...), agent.Options{Store: store})
	h, _ := rt.Start(context.Background(), agent.RunOptions{Task: "t"})
	first := wait(t, h)

	model := llm.NewScripted(llm.Text("more"))
	rt2, _ := agent.New(agent.Options{Store: store, Model: model, Actions: rt.Actions()})
	h2, err := rt2.Restore(context.Background(), h.ID(), agent.RestoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if o := wait(t, h2); o.Status != run.StatusCompleted || string(o.Result) != string(first.Result) {
		t.Fatalf("restored outcome = %+v, want %+v", o, first)
	}
	if err := h2.FollowUp(context.Background(), "and now?"); err != nil {
		t.Fatal(err)
	}
	if o := wait(t, h2); string(o.Result) != `"more"` {
		t.Fatalf("follow-up outcome = %+v", o)
	}
	msgs := model.Requests()[0].Messages
	if last := msgs[len(msgs)-1]; last.Text != "and now?" || len(msgs) < 5 {
		t.Fatalf("the follow-up's model call saw %d messages ending with %q", len(msgs), last.Text)
	}
}

// TestRestoreRefusesAnEndedRun: failed and canceled runs stay ended.
func TestRestoreRefusesAnEndedRun(t *testing.T) {
	store := run.NewMemoryStore()
	rt := newAgent(t, llm.NewScripted(weatherThenDone...), agent.Options{Store: store})
	h, _ := rt.Create(context.Background(), agent.RunOptions{Task: "t"})
	if err := h.Cancel(context.Background()); err != nil {
		t.Fatal(err)
	}
	rt2, _ := agent.New(agent.Options{Store: store, Model: llm.NewScripted(), Actions: rt.Actions()})
	if _, err := rt2.Restore(context.Background(), h.ID(), agent.RestoreOptions{}); err == nil || !strings.Contains(err.Error(), "only a run that has not ended") {
		t.Fatalf("Restore of a canceled run = %v", err)
	}
}
