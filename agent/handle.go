package agent

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/byref/byref/llm"
	"github.com/byref/byref/run"
	"github.com/byref/byref/schema"
)

// Handle is a started run: its ID, its outcome when it ends, its events, and
// the ways to cancel it or follow it up. It is safe for concurrent use.
type Handle struct {
	// Fixed once the run is made (or restored).
	rt     *Agent
	st     *State // the executor
	id     run.ID
	rec    *recorder
	model  llm.Model
	opts   RunOptions
	result *schema.Validator
	// awaited gets a word that the run awaits its caller (answer.go).
	awaited chan struct{}
	// drive is the rendezvous with Advance of a driven run; nil otherwise.
	drive *driver
	// awaits is what the run awaits, and the gate its steps ask through
	// (its own lock).
	awaits *awaits
	// conv is what the model is sent: the fold of the run's log, which
	// its recorder applies each event to as it appends it (its own lock).
	conv *conversation
	// liveHub delivers deltas to followers; nil until the first (hub.go).
	liveHub atomic.Pointer[hub]
	// snippets numbers the code blocks whose output is streamed.
	snippets atomic.Int64

	mu      sync.Mutex    // guards the run's lifecycle, below
	done    chan struct{} // closed when the current turn ends
	outcome Outcome
	cancel  context.CancelCauseFunc
	steps   int
	usage   llm.Usage
	begun   bool
	// turnSteps and turnTokens are the steps and tokens spent before the
	// current turn: limits apply per turn.
	turnSteps, turnTokens int
}

// drivenBy makes the run driven when driven is set: it stops at every
// pause until Advance.
func (h *Handle) drivenBy(driven bool) {
	if !driven {
		return
	}
	h.drive = newDriver()
	h.rec.tap = h.drive.record
}

// ID returns the run's ID.
func (h *Handle) ID() run.ID { return h.id }

// State returns the run's own state: its variables, matrix, interpreter
// and history.
func (h *Handle) State() *State { return h.st }

// Wait blocks until the run's current turn ends or ctx is done.
func (h *Handle) Wait(ctx context.Context) (Outcome, error) {
	h.mu.Lock()
	done := h.done
	h.mu.Unlock()
	select {
	case <-done:
		h.mu.Lock()
		defer h.mu.Unlock()
		return h.outcome, nil
	case <-ctx.Done():
		return Outcome{}, ctx.Err()
	}
}

// Snapshot folds the run's events into its current state.
func (h *Handle) Snapshot(ctx context.Context) (run.Snapshot, error) {
	return run.LoadSnapshot(ctx, h.rec.store, h.id)
}

// Status returns the run's current status.
func (h *Handle) Status() run.Status { return h.rec.current() }

// Options returns the options the run was started (or restored) with.
func (h *Handle) Options() RunOptions { return h.opts }

// runConversation makes run h's conversation: its recorder applies every
// event it appends to it.
func runConversation(h *Handle) *conversation {
	c := newConversation(h.opts.History, withDefaults(h.opts.Limits).LargeResult)
	c.st, c.opts, c.model, c.rec = h.st, &h.opts, h.model, h.rec
	h.conv, h.rec.fold = c, c.fold
	return c
}

// Pending returns what the run awaits, if anything.
func (h *Handle) Pending() (run.AwaitRequested, bool) {
	a := h.awaits
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.pending == nil {
		return run.AwaitRequested{}, false
	}
	return a.pending.req, true
}

// Resume answers what the run awaits. awaitID names the await (as in
// run.AwaitRequested.ID); "" means whichever is pending. The answer must fit
// the await's kind: a Decision for an approval or an authorization, Text
// for a question, Input (JSON) for input. A mismatch returns an error
// wrapping ErrAwaitMismatch that says what is pending; ErrNoAwait when the
// run awaits nothing.
func (h *Handle) Resume(ctx context.Context, awaitID string, answer run.Answer) error {
	a := h.awaits
	a.mu.Lock()
	p := a.pending
	if p == nil {
		a.mu.Unlock()
		return fmt.Errorf("%w: run %s is %s", ErrNoAwait, h.id, h.rec.current())
	}
	if awaitID != "" && awaitID != p.req.ID {
		a.mu.Unlock()
		return fmt.Errorf("%w: run %s awaits %s %s (%s), not %s", ErrAwaitMismatch, h.id, p.req.Await, p.req.ID, p.req.Message, awaitID)
	}
	if err := p.req.Check(answer); err != nil {
		a.mu.Unlock()
		return fmt.Errorf("%w: run %s awaits %s %s: %v", ErrAwaitMismatch, h.id, p.req.Await, p.req.ID, err)
	}
	a.pending = nil // claimed: the loop now waits for this Resume's word
	a.mu.Unlock()
	<-p.ready // closed right after the store answers, whatever it says
	if err := h.rec.transitionFrom(ctx, run.StatusAwaiting, run.StatusRunning, "", []run.Payload{run.AwaitResolved{ID: p.req.ID, Answer: answer}}); err != nil {
		p.answer <- resumed{err: err}
		return fmt.Errorf("agent: the answer to %s could not be recorded: %w", p.req.ID, err)
	}
	p.answer <- resumed{answer: answer}
	return nil
}

// runGate is the gate of the steps a run's loop asks for: the run's
// awaits, and the run itself, whose log records the steps.
type runGate struct {
	*awaits
	run *Handle
}

// owner implements gate: a run's loop asks for its steps itself.
func (g runGate) owner() *Handle { return g.run }
